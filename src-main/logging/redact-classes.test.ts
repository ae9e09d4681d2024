// Redaction by class: any Authorization scheme, signed addresses with or without a scheme,
// url-encoded and quoted secrets (spaces and all), and local paths, which may name a patient.
import { describe, expect, it } from 'vitest';
import { loggableError, redact } from './redact.js';

describe('redact, by class', () => {
  it.each([
    ['{"authorization":"Basic dXNlcjpwYXNz"}', 'dXNlcjpwYXNz'],
    ['Proxy-Authorization: Digest dXNlcjpwYXNz', 'dXNlcjpwYXNz'],
    ['storage said: bucket.s3.amazonaws.com/k?X-Amz-Signature=deadbeef', 'deadbeef'],
    ['Location: //cdn.example.com/x?sig=abc123', 'abc123'],
    ['client_secret%3Dabc123', 'abc123'],
    ['{"client_secret": "correct horse battery"}', 'horse'],
    ['x-amz-security-token=FQoGZXIvYXdzE', 'FQoGZXIvYXdzE'],
    ["ENOENT: no such file or directory, open '/home/u/DOE JANE/LKFN01_DOE_JANE_002.dcm'", 'DOE'],
    ['open /home/u/scans/DOE_JANE/x.dcm failed', 'DOE'],
    ['{"p":"C:\\\\Users\\\\doe\\\\scan.dcm"}', 'doe'],
    // Unquoted, with spaces in the folder names (a review): the whole path goes, not its first word.
    ['cannot be read: /home/u/Patients/Doe Jane 1970/scan-anon.zip.', 'Jane'],
    ['cannot be read: C:\\Users\\dr\\Patients\\Doe Jane\\x.dcm', 'Jane'],
    ['cannot be read: \\\\server\\share\\Doe Jane\\x.dcm', 'Jane'],
    ['cannot be read: Patients/Doe_Jane/x.dcm', 'Doe_Jane'],
    // Bare file names (no folder): the local engine names a slice by its package entry (a review).
    ['The slice slice-00035-DOE_JANE_0070.dcm reads 1500 above its neighbours.', 'DOE_JANE'],
    ['{"error":"refused DOE_JANE.zip"}', 'DOE_JANE'],
    ['{"error":"Doe Jane 0070.DCM"}', 'Jane'],
    ["cannot read 'Doe Jane 1970.nii.gz' whole", 'Jane'],
    ['made DOE_JANE-skull.stl and DOE_JANE.ply', 'DOE_JANE'],
    [
      'the service answered 400: Invalid token eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjbGllbnQifQ.SIGPART (expired)',
      'SIGPART',
    ],
  ])('%s', (line, secret) => {
    expect(redact(line)).not.toContain(secret);
  });

  it('keeps what diagnosis needs', () => {
    expect(redact('https://svc.example/api/v1/jobs/123 answered 500')).toBe(
      'https://svc.example/api/v1/jobs/123 answered 500',
    );
    expect(redact('{"authorization":"Basic dXNlcjpwYXNz"}')).toContain('Basic');
    expect(redact('PUT https://b.example/k/scan.zip?sig=1')).toContain('https://b.example/k/scan.zip?');
    expect(redact('mesh 3 of 4 (skull) written')).toBe('mesh 3 of 4 (skull) written');
  });

  it('logs only the code of an error about the user files', () => {
    const e = {
      code: 'bad-input',
      message: 'A file of the scan is no longer where it was (LKFN01_DOE.dcm).',
    };
    expect(loggableError(e)).not.toContain('LKFN01');
    expect(loggableError({ ...e, code: 'burned-in-annotation' })).not.toContain('LKFN01');
    expect(loggableError({ code: 'network', message: 'The service could not be reached.' })).toContain(
      'service',
    );
  });
});
