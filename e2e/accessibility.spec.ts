import { test, expect, snap } from './fixtures';
import { addFolder, CRANIUM, dropFiles, expectAccessible, fixtureFile, MULTIFRAME, nav } from './ui-helpers';
import type { Page } from '@playwright/test';

/** Whether the focused element shows a focus indicator (an outline or a ring), as the eye would see it. */
async function focusIsVisible(page: Page): Promise<{ ok: boolean; what: string }> {
  return page.evaluate(() => {
    // Runs in the page; the e2e project is compiled without the DOM library, hence the local types.
    interface El {
      tagName: string;
      textContent: string | null;
      getAttribute(n: string): string | null;
      labels?: { textContent: string | null }[] | null;
    }
    const g = globalThis as unknown as {
      document: { activeElement: El | null; body: El };
      getComputedStyle(el: El): { outlineStyle: string; outlineWidth: string; boxShadow: string };
    };
    const el = g.document.activeElement;
    if (!el || el === g.document.body) return { ok: false, what: 'nothing focused' };
    const s = g.getComputedStyle(el);
    const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0;
    const ring = s.boxShadow !== 'none';
    const name = el.getAttribute('aria-label') ?? el.labels?.[0]?.textContent ?? el.textContent ?? '';
    // Long enough to tell the three slice views of one scan apart (their names differ only at the end).
    const what = `${el.tagName.toLowerCase()}:${name.trim().slice(0, 80)}`;
    return { ok: outline || ring, what };
  });
}

test('every screen passes axe without serious or critical findings', async ({ app }, testInfo) => {
  const { page } = app;
  await expectAccessible(page, testInfo, 'scans, empty');
  await snap(page, testInfo, 'scans, empty');

  // A real drop of a multi-frame CT file on the window: two frames, so a card that says why it cannot be used.
  await dropFiles(page, [fixtureFile(MULTIFRAME)]);
  const cards = page.getByTestId('series-card');
  await expect(cards).toHaveCount(1, { timeout: 30_000 });
  await expect(cards).toContainText('only 2 slices');
  await expectAccessible(page, testInfo, 'scans with an unusable card');
  // And a scan that can be segmented, with its slice preview.
  await addFolder(page, CRANIUM);
  await expect(cards).toHaveCount(2, { timeout: 60_000 });
  await expect(page.getByTestId('slice-position')).not.toHaveText('—', { timeout: 30_000 });
  await expectAccessible(page, testInfo, 'scans with a card');
  await snap(page, testInfo, 'scans with a card');

  await page.getByRole('button', { name: 'Choose single teeth…' }).click();
  // The local engine cannot make single teeth: the chart shows them, each saying so.
  await expect(page.getByRole('button', { name: /^Tooth 36/ })).toHaveAccessibleName(/not available/);
  await page.getByRole('button', { name: 'Implant planning' }).click();
  await expectAccessible(page, testInfo, 'structure picker with the tooth chart');
  await snap(page, testInfo, 'structure picker');

  await nav(page, 'Jobs');
  await expectAccessible(page, testInfo, 'jobs');
  await snap(page, testInfo, 'jobs');

  await nav(page, 'Connections');
  await page.getByRole('button', { name: 'Add Relu EU 24.06…' }).click();
  await page.getByLabel('Client id').fill('x');
  await page.getByLabel('Client id').fill('');
  await expectAccessible(page, testInfo, 'connections with the form open');
  await snap(page, testInfo, 'connections with the form open');

  await nav(page, 'Settings');
  await expectAccessible(page, testInfo, 'settings');
  await snap(page, testInfo, 'settings');

  await nav(page, 'Viewer');
  await expectAccessible(page, testInfo, 'viewer');
  await snap(page, testInfo, 'viewer');

  // Dark, as the OS may ask: the same checks (contrast above all) hold.
  await page.emulateMedia({ colorScheme: 'dark' });
  await nav(page, 'Scans');
  await expectAccessible(page, testInfo, 'scans, dark');
  await snap(page, testInfo, 'scans, dark');
  await nav(page, 'Connections');
  await expectAccessible(page, testInfo, 'connections, dark');
  await nav(page, 'Jobs');
  await expectAccessible(page, testInfo, 'jobs, dark');
});

test('the scan screen works from the keyboard alone, with visible focus', async ({ app }, testInfo) => {
  const { page } = app;
  await addFolder(page, CRANIUM);
  await expect(page.getByTestId('series-card')).toHaveCount(1, { timeout: 60_000 });
  await expect(page.getByTestId('slice-position')).not.toHaveText('—', { timeout: 30_000 });

  await page.getByRole('checkbox', { name: 'Skull' }).focus();
  await page.keyboard.press('Space');
  await expect(page.getByRole('checkbox', { name: 'Skull' })).toBeChecked();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Scans' }).focus();
  await page.keyboard.press('Shift+Tab');

  // Tab through everything on the screen: each stop shows where the focus is.
  const invisible: string[] = [];
  const stops = new Set<string>();
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    const f = await focusIsVisible(page);
    // Past the last control the focus leaves the page: the whole tab order has been walked.
    if (f.what === 'nothing focused' || stops.has(f.what)) break;
    stops.add(f.what);
    if (!f.ok) invisible.push(f.what);
  }
  expect(invisible, 'focus stops without a visible indicator').toEqual([]);
  // Navigation, the add buttons, the card's controls, the picker and Submit are all on the way.
  const walked = [...stops];
  for (const stop of [
    'button:Scans',
    'button:Add scans…',
    'div:Slice preview of',
    'input:Skull',
    'button:Submit',
  ])
    expect(
      walked.some((w) => w.startsWith(stop)),
      `${stop} in ${walked.join(' | ')}`,
    ).toBe(true);

  // The slice preview answers to keys; the structures, the tooth chart and Submit too.
  const slider = page.getByRole('slider').first(); // the axial view
  await slider.focus();
  const now = Number(await slider.getAttribute('aria-valuenow'));
  await page.keyboard.press(now > 1 ? 'ArrowDown' : 'ArrowUp');
  await expect(slider).not.toHaveAttribute('aria-valuenow', String(now));
  const text = await slider.getAttribute('aria-valuetext');
  await page.keyboard.press('-');
  await expect(slider).not.toHaveAttribute('aria-valuetext', text ?? '');
  await snap(page, testInfo, 'slice preview focused');

  await page.getByRole('button', { name: 'Choose single teeth…' }).focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: /^Tooth 11/ })).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByRole('button', { name: /^Tooth 12/ })).toBeFocused();
  // The local engine cannot separate single teeth: a refused tooth stays reachable but cannot be chosen.
  await expect(page.getByRole('button', { name: /^Tooth 12/ })).toHaveAttribute('aria-disabled', 'true');
  await page.keyboard.press('Space');
  await expect(page.getByRole('button', { name: /^Tooth 12/ })).toHaveAttribute('aria-pressed', 'false');
  await page.keyboard.press('ArrowDown');
  await expect(page.getByRole('button', { name: /^Tooth 52/ })).toBeFocused();
  await snap(page, testInfo, 'tooth chart by keyboard');
  await expect(page.getByTestId('refusals')).toHaveCount(0);
  await page.getByTestId('submit').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Jobs' })).toBeVisible();
  await expect(page.getByTestId('job-row')).toHaveCount(1);
  await snap(page, testInfo, 'submitted by keyboard');
});
