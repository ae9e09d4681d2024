import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * A leading `~` or `~/` (`~\` too) as the home folder; anything else as typed. The shell expands `~`
 * only at the start of a word, so `--out=~/meshes` and `'~/scan'` reach us unexpanded: the command
 * line and web mode's settings read them as the user meant, the same way (`~user` is left alone).
 */
export function expandHome(text: string, home: string = homedir()): string {
  if (text === '~') return home;
  return /^~[\\/]/.test(text) ? join(home, text.slice(2)) : text;
}
