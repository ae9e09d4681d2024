import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  ConnectionProfileSchema,
  LOCAL_ENGINE_PROFILE,
  type ConnectionProfile,
  type RemoteProfileInput,
} from '../../src-shared/profiles.js';
import { AppError } from '../../src-shared/errors.js';
import { readJsonFile, writeJsonFileAtomic } from './json-file.js';
import type { Logger } from '../logging/logger.js';

const FileSchema = z.object({
  version: z.literal(1),
  activeId: z.string(),
  profiles: z.array(ConnectionProfileSchema),
});
type ProfilesFile = z.infer<typeof FileSchema>;

/**
 * Connection profiles as plain settings (profiles.json in the data folder). Secrets are not here:
 * they live in the keychain under the profile's id. The local engine is always present and is the default.
 */
export class ProfileStore {
  private readonly path: string;

  constructor(
    dataDir: string,
    private readonly logger?: Logger,
  ) {
    this.path = join(dataDir, 'profiles.json');
  }

  private read(): ProfilesFile {
    const raw = readJsonFile(this.path, null, (e) =>
      this.logger?.warn('profiles.json was unreadable and was set aside', { error: String(e) }),
    );
    const parsed = FileSchema.safeParse(raw);
    const file: ProfilesFile = parsed.success
      ? parsed.data
      : { version: 1, activeId: LOCAL_ENGINE_PROFILE.id, profiles: [] };
    const remotes = file.profiles.filter((p) => p.kind === 'remote');
    const activeId = [LOCAL_ENGINE_PROFILE.id, ...remotes.map((p) => p.id)].includes(file.activeId)
      ? file.activeId
      : LOCAL_ENGINE_PROFILE.id;
    return { version: 1, activeId, profiles: [LOCAL_ENGINE_PROFILE, ...remotes] };
  }

  private write(file: ProfilesFile): void {
    writeJsonFileAtomic(this.path, { ...file, profiles: file.profiles.filter((p) => p.kind === 'remote') });
  }

  list(): ConnectionProfile[] {
    return this.read().profiles;
  }

  activeId(): string {
    return this.read().activeId;
  }

  /** By id, or by name (case-insensitive) as the command line's --profile takes it. */
  get(idOrName: string): ConnectionProfile | undefined {
    const all = this.list();
    return (
      all.find((p) => p.id === idOrName) ?? all.find((p) => p.name.toLowerCase() === idOrName.toLowerCase())
    );
  }

  save(input: RemoteProfileInput): ConnectionProfile {
    const file = this.read();
    if (input.id === LOCAL_ENGINE_PROFILE.id)
      throw new AppError('bad-request', 'The local engine connection cannot be edited.');
    const clash = file.profiles.find(
      (p) => p.id !== input.id && p.name.trim().toLowerCase() === input.name.trim().toLowerCase(),
    );
    if (clash)
      throw new AppError(
        'bad-request',
        `A connection named "${input.name}" exists already; choose another name.`,
      );
    const profile: ConnectionProfile = {
      id: input.id ?? randomUUID(),
      name: input.name.trim(),
      kind: 'remote',
      baseUrl: input.baseUrl.trim().replace(/\/+$/, ''),
      authUrl: input.authUrl.trim().replace(/\/+$/, ''),
      audience: input.audience.trim(),
      clientId: input.clientId.trim(),
    };
    const i = file.profiles.findIndex((p) => p.id === profile.id);
    if (input.id && i < 0) throw new AppError('not-found', 'That connection no longer exists.');
    if (i >= 0) file.profiles[i] = profile;
    else file.profiles.push(profile);
    this.write(file);
    return profile;
  }

  delete(id: string): void {
    if (id === LOCAL_ENGINE_PROFILE.id)
      throw new AppError('bad-request', 'The local engine connection cannot be removed.');
    const file = this.read();
    const next = file.profiles.filter((p) => p.id !== id);
    if (next.length === file.profiles.length)
      throw new AppError('not-found', 'That connection no longer exists.');
    this.write({
      ...file,
      profiles: next,
      activeId: file.activeId === id ? LOCAL_ENGINE_PROFILE.id : file.activeId,
    });
  }

  setActive(id: string): void {
    const file = this.read();
    if (!file.profiles.some((p) => p.id === id))
      throw new AppError('not-found', 'That connection no longer exists.');
    this.write({ ...file, activeId: id });
  }
}
