import type { SecretStore } from '../secrets/secret-store.js';

/**
 * What differs between Electron, web mode, the command line and tests, injected into the core
 * (architecture.md). Optional members are the ones a transport may not have.
 */
export interface Platform {
  transport: 'electron' | 'web';
  dataDir: string;
  secrets: SecretStore;
  /** Shows the file in the system's file manager. */
  revealInFolder?(path: string): Promise<void>;
  /** A desktop notification (job failed, batch finished). */
  notify?(title: string, body: string): void;
  /** The taskbar / dock progress; null clears it. */
  setProgress?(fraction: number | null): void;
  /** Native open dialog (Electron only); resolves to the chosen paths, empty when canceled. */
  chooseScans?(): Promise<string[]>;
  /** Native folder picker (Electron only) for the output folder; null when canceled. */
  chooseFolder?(opts: { title: string; defaultPath?: string }): Promise<string | null>;
}
