import {
  RELU_EU_TEMPLATE,
  RemoteProfileInputSchema,
  SECRET_BOUND_FIELDS,
  type RemoteProfileInput,
} from '../../src-shared/profiles';
import type { ProfileView } from '../../src-shared/contract';

export type FieldName = 'name' | 'baseUrl' | 'authUrl' | 'audience' | 'clientId' | 'clientSecret';

export interface FormValues {
  id?: string;
  name: string;
  baseUrl: string;
  authUrl: string;
  audience: string;
  clientId: string;
  /** Only what the user typed in this form; the stored secret is never read back. */
  clientSecret: string;
}

export const EMPTY_FORM: FormValues = {
  name: '',
  baseUrl: 'https://',
  authUrl: 'https://',
  audience: '',
  clientId: '',
  clientSecret: '',
};

export function fromTemplate(): FormValues {
  const { name, baseUrl, authUrl, audience, clientId } = RELU_EU_TEMPLATE;
  return { name, baseUrl, authUrl, audience, clientId, clientSecret: '' };
}

export function fromProfile(p: ProfileView): FormValues {
  return {
    id: p.id,
    name: p.name,
    baseUrl: p.baseUrl,
    authUrl: p.authUrl,
    audience: p.audience,
    clientId: p.clientId,
    clientSecret: '',
  };
}

/** As the main process stores them: trimmed, addresses without a trailing slash. */
const normalised = (f: FieldName, value: string): string =>
  f === 'baseUrl' || f === 'authUrl' ? value.trim().replace(/\/+$/, '') : value.trim();

/**
 * True when the form would send the stored secret somewhere (or for something) it was not typed for:
 * the main process then deletes it on save, so the form asks for it again.
 */
export function secretBindingChanged(v: FormValues, existing: ProfileView | undefined): boolean {
  if (!existing) return false;
  return SECRET_BOUND_FIELDS.some((f) => normalised(f, v[f]) !== normalised(f, existing[f]));
}

export const SECRET_AGAIN =
  'The address, audience or client id changed: type the client secret again. The stored one is deleted when you save, so it is never sent to the new address.';

/**
 * Checks the form with the same schema the main process applies, so the messages shown as the user
 * types are the ones a save would give. A new profile needs a secret; a stored one may be kept unless
 * the address it belongs to changed (`existing` is the profile as saved).
 */
export function checkForm(
  v: FormValues,
  secretStored: boolean,
  existing?: ProfileView,
): { input: RemoteProfileInput | null; errors: Partial<Record<FieldName, string>> } {
  const errors: Partial<Record<FieldName, string>> = {};
  const parsed = RemoteProfileInputSchema.safeParse({
    ...(v.id ? { id: v.id } : {}),
    name: v.name,
    baseUrl: v.baseUrl,
    authUrl: v.authUrl,
    audience: v.audience,
    clientId: v.clientId,
  });
  if (!parsed.success)
    for (const issue of parsed.error.issues) {
      const field = issue.path[0] as FieldName | undefined;
      if (field && !errors[field]) errors[field] = issue.message;
    }
  const rebound = secretStored && secretBindingChanged(v, existing);
  if (rebound && v.clientSecret.trim() === '') errors.clientSecret = SECRET_AGAIN;
  else if (!secretStored && v.clientSecret.trim() === '')
    errors.clientSecret = 'The client secret is required; the service operator gives it with the client id.';
  else if (v.clientSecret !== v.clientSecret.trim())
    errors.clientSecret = 'The secret starts or ends with a space; check that it was copied exactly.';
  return { input: parsed.success && Object.keys(errors).length === 0 ? parsed.data : null, errors };
}
