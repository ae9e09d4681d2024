import { randomBytes } from 'node:crypto';
import type { Handlers } from '../dispatch.js';
import type { Platform } from '../platform.js';
import type { JobQueue } from '../services.js';
import { AppError } from '../../../src-shared/errors.js';
import type { AppSettingsStore } from '../../settings/app-settings.js';
import { checkOutputFolder, prepareOutputFolder } from '../../settings/output-folder.js';

type SettingsHandlers = Pick<
  Handlers,
  | 'settings.get'
  | 'settings.update'
  | 'settings.chooseOutputDir'
  | 'settings.checkOutputDir'
  | 'settings.setOutputDir'
>;

/** Long enough to read the question and answer it; short enough that an old answer is not replayed. */
const CONFIRMATION_TTL_MS = 10 * 60_000;

/**
 * The output folder is the one place the app writes that the renderer could name, so it changes only
 * through a flow a person takes part in: the system's folder picker (Electron), or in web mode a typed
 * path that the core checks and the page shows back for confirmation. A settings update cannot set it.
 */
interface SettingsHandlerDeps {
  settings: Pick<AppSettingsStore, 'get' | 'update'>;
  /** Changed transfer limits apply to the running queue. */
  jobs: () => Promise<Pick<JobQueue, 'setLimits'>>;
  platform: Pick<Platform, 'chooseFolder'>;
}

export function settingsHandlers({ settings, jobs, platform }: SettingsHandlerDeps): SettingsHandlers {
  const pending = new Map<string, { path: string; expires: number }>();
  const typedFlowRefused = (): void => {
    if (platform.chooseFolder)
      throw new AppError(
        'bad-request',
        'In the desktop app the output folder is chosen with the folder picker.',
        {
          action: 'Use "Change folder…" in Settings.',
        },
      );
  };
  return {
    'settings.get': async () => settings.get(),
    'settings.update': async (patch) => {
      const next = settings.update(patch);
      // Changed limits apply to the running queue at once, not only after a restart.
      if (patch.uploads !== undefined || patch.downloads !== undefined)
        (await jobs()).setLimits({ uploads: next.uploads, downloads: next.downloads });
      return next;
    },
    'settings.chooseOutputDir': async () => {
      if (!platform.chooseFolder)
        throw new AppError('bad-request', 'There is no folder picker in web mode.', {
          action: 'Type the folder in Settings, then confirm it.',
        });
      const current = settings.get();
      const chosen = await platform.chooseFolder({
        title: 'Folder for finished meshes',
        defaultPath: current.outputDir,
      });
      if (chosen === null) return { canceled: true, settings: current };
      return {
        canceled: false,
        settings: settings.update({ outputDir: prepareOutputFolder(chosen, { picked: true }) }),
      };
    },
    'settings.checkOutputDir': async ({ path }) => {
      typedFlowRefused();
      const checked = checkOutputFolder(path);
      const now = Date.now();
      for (const [token, p] of pending) if (p.expires < now) pending.delete(token);
      const confirmation = randomBytes(18).toString('base64url');
      pending.set(confirmation, { path: checked.path, expires: now + CONFIRMATION_TTL_MS });
      return { ...checked, confirmation };
    },
    'settings.setOutputDir': async ({ path, confirmation }) => {
      typedFlowRefused();
      const asked = pending.get(confirmation);
      // One answer per question: the token is spent whether or not it fits.
      pending.delete(confirmation);
      if (!asked || asked.expires < Date.now() || asked.path !== path)
        throw new AppError('bad-request', 'This output folder was not confirmed.', {
          action: 'Type the folder in Settings, choose "Change folder…", and confirm the folder it shows.',
        });
      return settings.update({ outputDir: prepareOutputFolder(path) });
    },
  };
}
