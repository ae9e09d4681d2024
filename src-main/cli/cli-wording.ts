/**
 * The scan reader (scans/intake.ts) speaks to someone who dropped files on a window. On the command
 * line the paths were typed: its words are made "what you gave" there, as a review asked.
 */
export function givenNotDropped(text: string): string {
  return text
    .replace(/\bwhat you dropped\b/g, 'what you gave')
    .replace(/\bWhat you dropped\b/g, 'What you gave')
    .replace(/\bthe folder you dropped\b/g, 'the folder you gave')
    .replace(/\bDrop fewer series at a time\b/g, 'Give fewer series at a time')
    .replace(/\bdrop that place itself\b/g, 'give that place itself');
}
