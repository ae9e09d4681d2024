import { useId, useState } from 'react';
import { NAMING_FIELDS } from '../../src-shared/job-states';
import { AppSettingsSchema, type AppSettings } from '../../src-shared/settings';
import { useApp } from '../app/app-store';
import { ErrorNote, Switch } from '../common/ui';
import { announce } from '../shell/announce';
import { ScreenTitle } from '../shell/ScreenTitle';
import { OutputFolderField } from './OutputFolderField';
import './settings.css';

/** Everything but the output folder, which has its own flow (OutputFolderField). */
type Draft = Omit<AppSettings, 'uploads' | 'downloads' | 'outputDir'> & {
  uploads: string;
  downloads: string;
};
const DraftSchema = AppSettingsSchema.omit({ outputDir: true });

const toDraft = (s: Omit<AppSettings, 'outputDir'>): Draft => ({
  namingTemplate: s.namingTemplate,
  deidentifyByDefault: s.deidentifyByDefault,
  uploads: String(s.uploads),
  downloads: String(s.downloads),
});

export function SettingsScreen() {
  const settings = useApp((s) => s.settings);
  const error = useApp((s) => s.settingsError);
  const info = useApp((s) => s.info);
  return (
    <section className="settings-screen" aria-labelledby="screen-title">
      <div className="screen-head">
        <ScreenTitle>Settings</ScreenTitle>
      </div>
      {settings ? (
        <>
          <OutputFolderField current={settings.outputDir} native={info?.nativeDialogs ?? false} />
          <SettingsForm settings={settings} />
        </>
      ) : error ? (
        <ErrorNote error={error} />
      ) : (
        <p>Loading settings…</p>
      )}
      {info && (
        <p className="muted small-text">
          scan2mesh {info.version} · data folder <code>{info.dataDir}</code> · logs{' '}
          <code>{info.logsDir}</code>
        </p>
      )}
    </section>
  );
}

function SettingsForm({ settings }: { settings: AppSettings }) {
  const error = useApp((s) => s.settingsError);
  const [draft, setDraft] = useState<Draft>(() => toDraft(settings));
  const uid = useId();

  const parsed = DraftSchema.safeParse({
    ...draft,
    uploads: Number(draft.uploads),
    downloads: Number(draft.downloads),
  });
  const problems: Record<string, string> = {};
  if (!parsed.success)
    for (const i of parsed.error.issues) {
      const k = String(i.path[0]);
      problems[k] ??=
        k === 'uploads' || k === 'downloads'
          ? 'A whole number from 1 to 8.'
          : i.message.replace(/^Too small.*/, 'Required.');
    }
  const dirty = JSON.stringify(toDraft(settings)) !== JSON.stringify(draft);

  const field = (k: 'namingTemplate' | 'uploads' | 'downloads', label: string, hint: string) => (
    <div className="field">
      <label htmlFor={`${uid}-${k}`}>{label}</label>
      <input
        id={`${uid}-${k}`}
        value={draft[k]}
        inputMode={k === 'uploads' || k === 'downloads' ? 'numeric' : undefined}
        spellCheck={false}
        aria-invalid={problems[k] ? true : undefined}
        aria-describedby={`${uid}-${k}-msg`}
        onChange={(e) => setDraft({ ...draft, [k]: e.target.value })}
      />
      <span id={`${uid}-${k}-msg`} className={problems[k] ? 'problem' : 'hint'}>
        {problems[k] ?? hint}
      </span>
    </div>
  );

  return (
    <form
      className="card settings-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        if (!parsed.success) return;
        void useApp
          .getState()
          .updateSettings(parsed.data)
          .then((ok) => {
            if (ok) {
              setDraft(toDraft(parsed.data));
              announce('Settings saved.');
            }
          });
      }}
    >
      {field(
        'namingTemplate',
        'File names',
        `Fields: ${NAMING_FIELDS.map((f) => `{${f}}`).join(' ')}; / makes folders.`,
      )}
      <div className="row">
        {field('uploads', 'Uploads at once', '1 to 8.')}
        {field('downloads', 'Downloads at once', '1 to 8.')}
      </div>
      <Switch
        id={`${uid}-deid`}
        checked={draft.deidentifyByDefault}
        onChange={(on) => setDraft({ ...draft, deidentifyByDefault: on })}
        label="De-identify new scans by default"
        hint="Each scan keeps its own switch on its card."
      />
      {error && <ErrorNote error={error} />}
      <div className="row">
        <button type="submit" className="primary" disabled={!dirty || !parsed.success}>
          Save settings
        </button>
        {dirty && (
          <button type="button" onClick={() => setDraft(toDraft(settings))}>
            Discard changes
          </button>
        )}
      </div>
    </form>
  );
}
