import { useId, useState } from 'react';
import type { OutputDirCheck } from '../../src-shared/contract';
import { api, errorText, type ErrorText } from '../bridge/api';
import { useApp } from '../app/app-store';
import { ErrorNote } from '../common/ui';
import { announce } from '../shell/announce';

/**
 * Where finished meshes go. The app writes there, so the folder is never taken from a plain settings
 * save: the desktop app asks the system's folder picker; web mode checks the typed path in the app and
 * shows the folder it will really use (links followed, ~ expanded) for the user to confirm.
 */
export function OutputFolderField({ current, native }: { current: string; native: boolean }) {
  const uid = useId();
  const [typed, setTyped] = useState(current);
  const [asking, setAsking] = useState<OutputDirCheck | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorText | null>(null);

  const run = async (step: () => Promise<void>): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await step();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const applied = (settings: { outputDir: string }): void => {
    useApp.setState((s) =>
      s.settings ? { settings: { ...s.settings, outputDir: settings.outputDir } } : {},
    );
    setTyped(settings.outputDir);
    setAsking(null);
    announce(`Meshes will be saved in ${settings.outputDir}.`);
  };

  const choose = (): Promise<void> =>
    run(async () => {
      const r = await api.settings.chooseOutputDir({});
      if (!r.canceled) applied(r.settings);
    });
  const check = (): Promise<void> =>
    run(async () => setAsking(await api.settings.checkOutputDir({ path: typed })));
  const confirm = (question: OutputDirCheck): Promise<void> =>
    run(async () =>
      applied(await api.settings.setOutputDir({ path: question.path, confirmation: question.confirmation })),
    );

  return (
    <div className="card settings-form" role="group" aria-labelledby={`${uid}-title`}>
      <h2 id={`${uid}-title`}>Where meshes are saved</h2>
      <p>
        Finished meshes are saved in <code data-testid="output-folder">{current}</code>
      </p>
      {native ? (
        <button type="button" disabled={busy} onClick={() => void choose()}>
          Change folder…
        </button>
      ) : (
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void check();
          }}
        >
          <div className="field">
            <label htmlFor={`${uid}-path`}>Output folder</label>
            <input
              id={`${uid}-path`}
              value={typed}
              spellCheck={false}
              aria-describedby={`${uid}-hint`}
              onChange={(e) => {
                setTyped(e.target.value);
                setAsking(null);
              }}
            />
            <span id={`${uid}-hint`} className="hint">
              A full path in your home folder or on a mounted drive; ~ stands for your home folder.
            </span>
          </div>
          <button type="submit" disabled={busy || typed.trim() === '' || typed === current}>
            Change folder…
          </button>
        </form>
      )}
      {asking && (
        <div className="note note-info" role="alertdialog" aria-labelledby={`${uid}-ask`}>
          <div className="note-body">
            <p className="note-title" id={`${uid}-ask`}>
              Save finished meshes in <code>{asking.path}</code>?
            </p>
            <p className="note-action">
              {asking.exists ? 'The folder exists.' : 'The folder does not exist yet; it will be created.'}
            </p>
            <div className="row note-buttons">
              <button type="button" className="primary" disabled={busy} onClick={() => void confirm(asking)}>
                Use this folder
              </button>
              <button type="button" disabled={busy} onClick={() => setAsking(null)}>
                Cancel
              </button>
            </div>
          </div>
        </div>
      )}
      {error && <ErrorNote error={error} />}
    </div>
  );
}
