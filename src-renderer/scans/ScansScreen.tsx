import { activeProfile, useConnections } from '../connections/connections-store';
import { ScreenTitle } from '../shell/ScreenTitle';
import { IntakeStatus } from './IntakeNotices';
import { useScanPickers, type ScanPickers } from './ScanPickers';
import { SeriesCard } from './SeriesCard';
import { SubmitPanel } from './SubmitPanel';
import { useScans } from './scans-store';
import './scans.css';

function AddButtons({ pickers, big }: { pickers: ScanPickers; big?: boolean }) {
  return (
    <div className="row">
      <button type="button" className={big ? 'primary big' : 'primary'} onClick={pickers.addFiles}>
        Add scans…
      </button>
      {!pickers.native && (
        <button type="button" className={big ? 'big' : undefined} onClick={pickers.addFolder}>
          Add a folder…
        </button>
      )}
    </div>
  );
}

/** First run: one obvious thing to do, and the reassurance that it stays on this computer. */
function EmptyScans({ pickers }: { pickers: ScanPickers }) {
  const profile = useConnections((s) => activeProfile(s.profiles));
  const local = !profile || profile.kind === 'local-engine';
  return (
    <div className="dropzone" data-testid="empty-scans">
      <svg className="dropzone-icon" viewBox="0 0 48 48" aria-hidden="true">
        <path d="M24 6v24m0 0-9-9m9 9 9-9M8 34v6h32v-6" fill="none" stroke="currentColor" strokeWidth="3" />
      </svg>
      <p className="dropzone-text">
        Drop a CBCT scan — a DICOM folder, a .zip or a .dcm file — or click Add scans.
      </p>
      <AddButtons pickers={pickers} big />
      <ol className="steps">
        <li>Add a scan: you see who it is and a slice.</li>
        <li>Choose what to segment on the right.</li>
        <li>Submit: the mesh opens in the viewer when it is done.</li>
      </ol>
      <p className="muted">
        {local
          ? 'The local engine on this computer is selected: it works offline and needs no account.'
          : `Scans are sent to ${profile.name}.`}
      </p>
    </div>
  );
}

export function ScansScreen() {
  const series = useScans((s) => s.series);
  const pickers = useScanPickers();

  return (
    <div className="scans-screen">
      <section className="scans-main" aria-labelledby="screen-title">
        <div className="screen-head">
          <ScreenTitle>Scans</ScreenTitle>
          {series.length > 0 && <AddButtons pickers={pickers} />}
        </div>
        {pickers.inputs}
        <IntakeStatus />
        {series.length === 0 ? (
          <EmptyScans pickers={pickers} />
        ) : (
          <div className="cards" aria-label="Series found">
            {series.map((s) => (
              <SeriesCard key={s.id} series={s} />
            ))}
          </div>
        )}
      </section>
      <aside className="side-panel" aria-label="Structures and submission">
        <SubmitPanel />
      </aside>
    </div>
  );
}
