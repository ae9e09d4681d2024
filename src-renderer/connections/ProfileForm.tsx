import { useId, useState } from 'react';
import type { ProfileView } from '../../src-shared/contract';
import { errorText, type ErrorText } from '../bridge/api';
import { ErrorNote } from '../common/ui';
import { announce } from '../shell/announce';
import { useConnections } from './connections-store';
import {
  checkForm,
  fromTemplate,
  SECRET_AGAIN,
  secretBindingChanged,
  type FieldName,
  type FormValues,
} from './profile-form';

const FIELDS: { name: Exclude<FieldName, 'clientSecret'>; label: string; hint: string; type?: string }[] = [
  { name: 'name', label: 'Name', hint: 'How this connection appears in the app.' },
  {
    name: 'baseUrl',
    label: 'Service address',
    hint: 'Including the version, e.g. https://eu.virtualpatientengine.com/24.06',
    type: 'url',
  },
  {
    name: 'authUrl',
    label: 'Sign-in address',
    hint: 'The token endpoint is this address + /oauth/token.',
    type: 'url',
  },
  { name: 'audience', label: 'Audience', hint: 'Given by the service operator.' },
  { name: 'clientId', label: 'Client id', hint: 'Given by the service operator.' },
];

/**
 * Adding or editing a remote connection. Every field is checked as it is typed with the contract's own
 * schema. The secret field is write-only: the stored secret is never shown, only that one is stored.
 */
export function ProfileForm({
  initial,
  existing,
  onDone,
}: {
  initial: FormValues;
  existing?: ProfileView;
  onDone: (savedId: string | null) => void;
}) {
  const uid = useId();
  const [values, setValues] = useState<FormValues>(initial);
  const [touched, setTouched] = useState<Set<FieldName>>(new Set());
  const [tried, setTried] = useState(false);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<ErrorText | null>(null);
  const secretStored = existing?.secretStored ?? false;
  const { errors } = checkForm(values, secretStored, existing);
  // A changed address makes the stored secret go on save: say so before, not after.
  const secretGoes = secretStored && secretBindingChanged(values, existing);
  const shown = (f: FieldName): string | undefined => (tried || touched.has(f) ? errors[f] : undefined);

  const set = (f: FieldName, v: string): void => {
    setValues((cur) => ({ ...cur, [f]: v }));
    setTouched((t) => (t.has(f) ? t : new Set(t).add(f)));
  };

  const save = async (andTest: boolean): Promise<void> => {
    setTried(true);
    const { input } = checkForm(values, secretStored, existing);
    if (!input) return;
    setSaving(true);
    setError(null);
    try {
      const store = useConnections.getState();
      const saved = await store.save(input, values.clientSecret || undefined);
      // The typed secret leaves the page's memory as soon as it is in the keychain.
      setValues((v) => ({ ...v, clientSecret: '' }));
      announce(`${saved.name} saved.`);
      onDone(saved.id);
      if (andTest) void store.test(saved.id);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setSaving(false);
    }
  };

  return (
    <form
      className="card profile-form"
      aria-labelledby={`${uid}-title`}
      noValidate
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !saving) onDone(null);
      }}
      onSubmit={(e) => {
        e.preventDefault();
        void save(false);
      }}
    >
      <div className="row">
        <h2 id={`${uid}-title`}>{existing ? `Edit ${existing.name}` : 'New connection'}</h2>
        {!existing && (
          <button
            type="button"
            className="small push-right"
            onClick={() => {
              setValues((v) => ({ ...fromTemplate(), clientId: v.clientId, clientSecret: v.clientSecret }));
            }}
          >
            Fill in Relu EU 24.06
          </button>
        )}
      </div>
      {FIELDS.map((f) => {
        const id = `${uid}-${f.name}`;
        const problem = shown(f.name);
        return (
          <div className="field" key={f.name}>
            <label htmlFor={id}>{f.label}</label>
            <input
              id={id}
              type={f.type ?? 'text'}
              value={values[f.name]}
              spellCheck={false}
              autoComplete="off"
              aria-invalid={problem ? true : undefined}
              aria-describedby={`${id}-msg`}
              onChange={(e) => set(f.name, e.target.value)}
              onBlur={() => setTouched((t) => (t.has(f.name) ? t : new Set(t).add(f.name)))}
            />
            <span id={`${id}-msg`} className={problem ? 'problem' : 'hint'}>
              {problem ?? f.hint}
            </span>
          </div>
        );
      })}
      <div className="field">
        <label htmlFor={`${uid}-secret`}>Client secret</label>
        <input
          id={`${uid}-secret`}
          type="password"
          value={values.clientSecret}
          autoComplete="new-password"
          spellCheck={false}
          placeholder={secretStored && !secretGoes ? 'Stored — type to replace' : ''}
          aria-invalid={shown('clientSecret') ? true : undefined}
          aria-describedby={`${uid}-secret-msg`}
          onChange={(e) => set('clientSecret', e.target.value)}
        />
        <span id={`${uid}-secret-msg`} className={shown('clientSecret') ? 'problem' : 'hint'}>
          {shown('clientSecret') ??
            (secretGoes
              ? SECRET_AGAIN
              : secretStored
                ? 'Stored in the system keychain. Leave empty to keep it.'
                : 'Kept in the system keychain, never shown again.')}
        </span>
      </div>
      {error && <ErrorNote error={error} />}
      <div className="row">
        <button type="submit" className="primary" disabled={saving}>
          {saving ? 'Saving…' : 'Save'}
        </button>
        <button type="button" disabled={saving} onClick={() => void save(true)}>
          Save and test
        </button>
        <button type="button" disabled={saving} onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
