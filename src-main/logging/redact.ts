/**
 * Redaction applied to every log line: bearer tokens, client secrets and the signatures of
 * pre-signed addresses must never reach a log file or a terminal.
 */
const PATTERNS: [RegExp, string][] = [
  [/(Bearer\s+)[A-Za-z0-9\-._~+/]+=*/gi, '$1[redacted]'],
  [
    /("?(?:client_secret|access_token|refresh_token|secret|password|token)"?\s*[:=]\s*"?)[^"\s,&}]+/gi,
    '$1[redacted]',
  ],
  // Query strings carry the signature of pre-signed addresses; keep the path for diagnosis.
  [/(https?:\/\/[^\s?"']+)\?[^\s"']*/gi, '$1?[redacted]'],
];

export function redact(text: string): string {
  let out = text;
  for (const [re, rep] of PATTERNS) out = out.replace(re, rep);
  return out;
}
