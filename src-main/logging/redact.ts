/**
 * Redaction applied to every log line: credentials (any Authorization header, tokens, client
 * secrets, passwords), the signatures of pre-signed addresses, and local file paths (a scan's
 * folders and file names may be a patient's name) must never reach a log file or a terminal.
 */

/** Names whose value is a credential, as a JSON key, a form field or a query parameter. */
const SECRET_KEYS = 'client_secret|access_token|refresh_token|id_token|secret|password|passwd|token|api_?key';
/** What joins a key to its value: ":" or "=", also url-encoded (%3A, %3D). */
const JOIN = String.raw`\s*(?::|=|%3[aAdD])\s*`;

const PATTERNS: [RegExp, string][] = [
  // Any Authorization scheme (Bearer, Basic, Digest...): the scheme stays, the credential goes.
  [/("?(?:proxy-)?authorization"?\s*[:=]\s*"?(?:[A-Za-z-]+\s+)?)(?:[^"\n\\]|\\.)+/gi, '$1[redacted]'],
  [/(\b(?:Bearer|Basic|Digest)\s+)[A-Za-z0-9\-._~+/]+=*/gi, '$1[redacted]'],
  // A JSON Web Token standing alone (an error answer quoting the token it refused): its header and
  // payload are base64url JSON, so both start "eyJ".
  [/\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, '[redacted]'],
  // A quoted secret is redacted up to its closing quote, spaces and all.
  [new RegExp(`("(?:${SECRET_KEYS})"${JOIN}")(?:[^"\\\\]|\\\\.)*`, 'gi'), '$1[redacted]'],
  [new RegExp(`((?:${SECRET_KEYS})${JOIN}'?)[^"'\\s,&}]+`, 'gi'), '$1[redacted]'],
  // Query strings carry the signature of pre-signed addresses, with a scheme, protocol-relative
  // (//host/x?) or bare (host.tld/x?): keep the path for diagnosis.
  [/((?:[a-z][a-z0-9+.-]*:)?\/\/[^\s?"']+|\b[\w-]+(?:\.[\w-]+)+\/[^\s?"']*)\?[^\s"']*/gi, '$1?[redacted]'],
  // Signature parameters wherever else they appear.
  [
    /((?:X-Amz-|X-Goog-)[A-Za-z-]+=|[?&](?:sig|signature|se|sp|Policy|Key-Pair-Id)=)[^\s&"']+/gi,
    '$1[redacted]',
  ],
  // Local paths: quoted ones whole (they may hold spaces). Others (UNC ones too) up to a space, and on
  // over words while a separator follows before the next space: "/home/u/Doe Jane 1970/x.zip" whole,
  // where its first word alone left the name in the log (a review).
  [/(['"])(?:file:\/\/|\/|~\/|[A-Za-z]:(?:\\\\|\\|\/)|\\\\\\\\)[^'"\n]*\1/g, '$1[path]$1'],
  [
    /(^|[\s(=[,])(?:file:\/\/|~\/|\/(?=[^\s/]+\/)|[A-Za-z]:(?:\\\\|\\|\/)|\\\\(?=[^\s\\]+\\))[^\s"'()[\],]*(?:(?:[ \t]+[^\s"'()[\],/\\]+)+[/\\][^\s"'()[\],]*)*/g,
    '$1[path]',
  ],
  // Relative paths to a scan or mesh file ("Patients/Doe_Jane/x.dcm"): the folders may name the patient.
  // Not an address's path (after "//", or after a host name such as bucket.example/).
  [
    /(?<![\w.:/-])(?![\w-]+(?:\.[\w-]+)+\/)[\w.-]+(?:[/\\][\w .-]+?)+\.(?:dcm|dicom|ima|zip|stl|ply|obj|drc)\b/gi,
    '[path]',
  ],
  // A scan or mesh file named alone, with no folder: the local engine names a slice by its package
  // entry ("slice-00035-DOE_JANE_0070.dcm"), which keeps the user's file name. Quoted ones whole
  // (spaces and all), others from the start of their word.
  [/(['"])[^'"\n/\\]*\.(?:dcm|dicom|ima|zip|gz|stl|ply|obj|drc)\1/gi, '$1[file]$1'],
  [/(?<![\w./\\-])[\w.-]*[\w-]\.(?:dcm|dicom|ima|zip|gz|stl|ply|obj|drc)\b/gi, '[file]'],
];

export function redact(text: string): string {
  let out = text;
  for (const [re, rep] of PATTERNS) out = out.replace(re, rep);
  return out;
}

/** Errors about the user's own files: their messages name those files for the user. */
const SCAN_ERROR_CODES = new Set(['bad-input', 'burned-in-annotation']);

/**
 * What a log may say of a job's error. An input error (bad-input, burned-in-annotation) is about the
 * user's own files, and its message names them (which file changed, which one is damaged) for the
 * user, who sees it; a file name may be a patient's name, so the log keeps its code only. Other
 * errors (network, service, disk) keep their message, redacted as every line is (file names too).
 */
export function loggableError(err: { code: string; message: string }): string {
  return SCAN_ERROR_CODES.has(err.code)
    ? '[about the scan files: shown to the user, not logged]'
    : err.message;
}
