import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from './fixtures';
import { addFolder, CT_SERIES, nav, setOutputFolder } from './ui-helpers';

/**
 * A batch's jobs are listed, and processed, in the order submitted. They share one creation time and
 * were then ordered by their random ids (a review saw Series 5, 3, 2, 4, 1), and exports are usually
 * folders all named DICOM, so no name puts them in order either.
 */
test('the jobs of a batch of folders all named DICOM are listed in the order submitted', async ({ app }) => {
  test.setTimeout(300_000);
  const { page } = app;
  await setOutputFolder(page, join(app.dataDir, 'order-out'));
  // The files are named I10, I20... in slice order; slabs of 35 slices (overlapping) are fit to segment.
  const files = readdirSync(CT_SERIES).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
  for (let s = 0; s < 5; s++) {
    const dir = join(app.dataDir, 'exports', `export-${s + 1}`, 'DICOM');
    mkdirSync(dir, { recursive: true });
    for (const f of files.slice(s * 25, s * 25 + 35)) cpSync(join(CT_SERIES, f), join(dir, f));
    await addFolder(page, dir);
    await expect(page.getByTestId('series-card')).toHaveCount(s + 1, { timeout: 60_000 });
  }
  await page.getByRole('checkbox', { name: 'Skull' }).check();
  await page.getByRole('button', { name: 'Submit 5 scans' }).click();

  const rows = page.getByTestId('job-row');
  await expect(rows).toHaveCount(5);
  const expected = [1, 2, 3, 4, 5].map((k) => `DICOM, Series ${k}`);
  await expect
    .poll(() => rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label'))))
    .toEqual(expected);
  await expect(page.locator('[data-testid="job-row"][data-state="done"]')).toHaveCount(5, {
    timeout: 240_000,
  });
  // Still in that order once done, and after the page is loaded again from the queue.
  await page.reload();
  await nav(page, 'Jobs');
  await expect(rows).toHaveCount(5);
  expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))).toEqual(expected);
});
