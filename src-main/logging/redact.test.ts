import { describe, expect, it } from 'vitest';
import { redact } from './redact.js';
import { createLogger } from './logger.js';
import { readLogs } from './log-files.test-support.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('redact', () => {
  it('removes bearer tokens, secrets and pre-signed query strings', () => {
    const line = redact(
      'Authorization: Bearer eyJhbGciOi.abc-123_x {"client_secret":"s3cr3t","access_token":"tok"} PUT https://bucket.s3.example/k/scan.zip?X-Amz-Signature=deadbeef&X-Amz-Expires=3600',
    );
    expect(line).not.toMatch(/eyJhbGciOi|s3cr3t|"tok"|deadbeef/);
    expect(line).toContain('https://bucket.s3.example/k/scan.zip?[redacted]');
  });

  it('applies to every line the logger writes', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'log-')), 'a.log');
    const log = createLogger({ file });
    log.info('token fetched', {
      header: 'Bearer abc.def.ghi',
      url: 'http://127.0.0.1:5/u?sig=1',
    });
    await log.close();
    const text = readLogs(file);
    expect(text).toContain('token fetched');
    expect(text).not.toMatch(/abc\.def\.ghi|sig=1/);
  });
});
