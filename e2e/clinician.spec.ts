import { test, expect, snap } from './fixtures';
import { readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { addFolder, CT_SERIES, setOutputFolder } from './ui-helpers';

test('clinician: a scan folder becomes a skull mesh in the viewer', async ({ app }, testInfo) => {
  test.setTimeout(300_000);
  const { page } = app;

  // First run: an empty Scans screen that says what to do.
  await expect(page.getByTestId('empty-scans')).toContainText(
    'Drop a CBCT scan — a DICOM folder, a .zip or a .dcm file — or click Add scans',
  );
  await expect(page.getByTestId('empty-scans')).toContainText('works offline');
  await snap(page, testInfo, 'first run: empty scans');
  await setOutputFolder(page, join(app.dataDir, 'meshes'));

  await addFolder(page, CT_SERIES);
  const card = page.getByTestId('series-card');
  await expect(card).toHaveCount(1, { timeout: 60_000 });
  await expect(card).toContainText('HEAD');
  await expect(card.getByTestId('series-size')).toContainText('512 × 512 × 140');

  // A slice is drawn, and the wheel and the keyboard move through the slices.
  const slider = card.getByRole('slider').first(); // the axial view
  await expect(slider).toHaveAttribute('aria-valuemax', '140', { timeout: 30_000 });
  const before = Number(await slider.getAttribute('aria-valuenow'));
  await slider.hover();
  await page.mouse.wheel(0, 200);
  await expect(slider).not.toHaveAttribute('aria-valuenow', String(before));
  await slider.focus();
  const afterWheel = Number(await slider.getAttribute('aria-valuenow'));
  await page.keyboard.press('PageDown');
  await expect(slider).toHaveAttribute('aria-valuenow', String(afterWheel - 10));
  // Dragging across the slice with the right button changes window and level.
  const contrast = await slider.getAttribute('aria-valuetext');
  const box = await slider.boundingBox();
  if (!box) throw new Error('the slice preview has no box');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down({ button: 'right' });
  await page.mouse.move(box.x + box.width / 2 + 60, box.y + box.height / 2 - 30, { steps: 5 });
  await page.mouse.up({ button: 'right' });
  await expect(slider).not.toHaveAttribute('aria-valuetext', contrast ?? '');
  await expect(card.getByTestId('slice-position')).toHaveText(`Axial ${afterWheel - 10} / 140`);
  await snap(page, testInfo, 'scan card with a slice');

  await page.getByRole('checkbox', { name: 'Skull' }).check();
  await snap(page, testInfo, 'skull chosen');
  await page.getByTestId('submit').click();

  // Submitting shows the Jobs screen, where the job goes through its states to done.
  await expect(page.getByRole('heading', { level: 1, name: 'Jobs' })).toBeVisible();
  const job = page.getByTestId('job-row');
  await expect(job).toHaveCount(1);
  const seen = new Set<string>();
  const deadline = Date.now() + 240_000;
  let shotRunning = false;
  for (;;) {
    const state = (await job.getAttribute('data-state')) ?? '';
    seen.add(state);
    if (!shotRunning && state !== 'queued' && state !== 'done') {
      await snap(page, testInfo, `job ${state}`);
      shotRunning = true;
    }
    if (state === 'done' || state === 'failed' || Date.now() > deadline) break;
    await page.waitForTimeout(150);
  }
  await snap(page, testInfo, 'job finished');
  expect([...seen], `states seen: ${[...seen].join(', ')}`).toContain('done');
  expect(seen.size).toBeGreaterThan(1);

  // A mesh moved away since the job saved it is marked on its row once the user is back in the app
  // (from the file manager, say), and offers no "Show in folder"; back in place, the mark goes.
  const saved = readdirSync(join(app.dataDir, 'meshes'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.stl'))
    .map((f) => join(app.dataDir, 'meshes', f));
  expect(saved).toHaveLength(1);
  const moved = `${saved[0]!}.moved`;
  const mark = job.getByTestId('output-not-as-saved');
  // The window's focus event, as when the user switches back to the app.
  const backInApp = async (): Promise<void> => {
    await page.evaluate("window.dispatchEvent(new Event('focus'))");
  };
  await expect(job.getByRole('button', { name: /^Show .+ in its folder$/ })).toBeVisible();
  renameSync(saved[0]!, moved);
  await backInApp();
  await expect(mark).toHaveText('no longer there');
  await expect(job.getByRole('button', { name: /^Show .+ in its folder$/ })).toHaveCount(0);
  await snap(page, testInfo, 'mesh moved away since saved');
  renameSync(moved, saved[0]!);
  await backInApp();
  await expect(mark).toHaveCount(0);

  await job.getByRole('button', { name: /^Open .+ in viewer$/ }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Viewer' })).toBeVisible();
  await expect(page.getByTestId('scene-item')).toHaveCount(1, { timeout: 60_000 });
  await expect(page.getByTestId('viewer-status')).toContainText('Loaded', { timeout: 60_000 });
  await snap(page, testInfo, 'mesh in the viewer');
});
