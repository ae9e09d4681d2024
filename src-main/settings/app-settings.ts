import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { AppError } from '../../src-shared/errors.js';
import { DEFAULT_NAMING_TEMPLATE } from '../../src-shared/jobs.js';
import { AppSettingsSchema, type AppSettings } from '../../src-shared/settings.js';
import { checkNamingTemplate } from './output-naming.js';
import type { Logger } from '../logging/logger.js';
import { readJsonFile, writeJsonFileAtomic } from './json-file.js';

export type { AppSettings } from '../../src-shared/settings.js';

/** Documents/scan2mesh where a Documents folder exists (Windows, macOS, most desktops), else ~/scan2mesh-meshes. */
export function defaultOutputDir(home = homedir()): string {
  const documents = join(home, 'Documents');
  return existsSync(documents) ? join(documents, 'scan2mesh') : join(home, 'scan2mesh-meshes');
}

function defaultAppSettings(): AppSettings {
  return {
    outputDir: defaultOutputDir(),
    namingTemplate: DEFAULT_NAMING_TEMPLATE,
    uploads: 2,
    downloads: 2,
    deidentifyByDefault: true,
  };
}

/** What the shared schema cannot say (it has no Node): a full path, and a template that names files. */
function problemOf(settings: AppSettings): string | null {
  if (!isAbsolute(settings.outputDir)) return 'The output folder must be a full path.';
  return checkNamingTemplate(settings.namingTemplate);
}

/**
 * The app's own settings (settings.json in the data folder), shared by the app and the command line.
 * A field that is missing or unreadable falls back to its default alone, so one bad value does not
 * throw away the others.
 */
export class AppSettingsStore {
  private readonly path: string;

  constructor(
    dataDir: string,
    private readonly logger?: Logger,
  ) {
    this.path = join(dataDir, 'settings.json');
  }

  get(): AppSettings {
    const raw = readJsonFile(this.path, {}, (e) =>
      this.logger?.warn('settings.json was unreadable and was set aside', { error: String(e) }),
    );
    const defaults = defaultAppSettings();
    const stored = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
    const result: Record<string, unknown> = { ...defaults };
    for (const key of Object.keys(AppSettingsSchema.shape) as (keyof AppSettings)[]) {
      if (stored[key] === undefined) continue;
      const field = AppSettingsSchema.shape[key].safeParse(stored[key]);
      const candidate = { ...defaults, [key]: field.data };
      if (field.success && !problemOf(candidate as AppSettings)) result[key] = field.data;
      else this.logger?.warn('setting ignored', { key });
    }
    return result as AppSettings;
  }

  /** Checks the whole result and writes it; a bad value is refused with what is wrong with it. */
  update(patch: Partial<AppSettings>): AppSettings {
    const next = AppSettingsSchema.safeParse({ ...this.get(), ...patch });
    const problem = next.success
      ? problemOf(next.data)
      : (next.error.issues[0]?.message ?? 'The settings are not valid.');
    if (!next.success || problem)
      throw new AppError('bad-request', problem ?? 'The settings are not valid.', {
        action: 'Correct the setting and save again.',
      });
    writeJsonFileAtomic(this.path, next.data);
    return next.data;
  }
}
