import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, type TestInfo } from '@playwright/test';
import { snap } from './fixtures';
import { FIXTURES } from './launch-app';

export const CT_SERIES = `${FIXTURES}/dicom/ct-head-phantom-1mm`;
/** The cheapest series that passes the fitness check (108 slices of 256 × 256, 14 MB): a scan that can be submitted. */
export const CRANIUM = `${FIXTURES}/dicom/ct-human-cranium-teeth`;
/** Two frames only: too few slices to hold a jaw, so it shows an unfit card that says why. */
export const MULTIFRAME = `${FIXTURES}/dicom/multiframe/enhanced-ct-nema-ct0012-2frames.dcm`;

/** Goes to a screen through the main navigation, as a user would. */
export async function nav(page: Page, label: 'Scans' | 'Jobs' | 'Viewer' | 'Connections' | 'Settings') {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: label }).click();
  await expect(page.getByRole('heading', { level: 1, name: label })).toBeVisible();
}

/** "Add a folder…" in web mode: the folder input, given a real directory (Playwright uploads its files). */
export async function addFolder(page: Page, dir: string): Promise<void> {
  await page.getByTestId('scan-folder-input').setInputFiles(dir);
}

export async function addFiles(page: Page, files: string[]): Promise<void> {
  await page.getByTestId('scan-file-input').setInputFiles(files);
}

/**
 * A real drop: a DataTransfer built in the page from the given files' bytes, dispatched as
 * dragenter, dragover and drop on the window's content, exactly the events a drag from the desktop makes.
 */
export async function dropFiles(
  page: Page,
  files: { name: string; bytes: Buffer; type?: string }[],
): Promise<void> {
  const payload = files.map((f) => ({ name: f.name, type: f.type ?? '', b64: f.bytes.toString('base64') }));
  const dt = await page.evaluateHandle((items) => {
    // Runs in the page; the e2e project is compiled without the DOM library, hence the local type.
    const g = globalThis as unknown as { DataTransfer: new () => { items: { add(f: File): void } } };
    const transfer = new g.DataTransfer();
    for (const it of items) {
      const bin = atob(it.b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      transfer.items.add(new File([bytes], it.name, { type: it.type }));
    }
    return transfer;
  }, payload);
  const target = page.getByTestId('app');
  await target.dispatchEvent('dragenter', { dataTransfer: dt });
  await target.dispatchEvent('dragover', { dataTransfer: dt });
  await expect(page.getByText('Drop to add scans')).toBeVisible();
  await target.dispatchEvent('drop', { dataTransfer: dt });
  await dt.dispose();
}

export function fixtureFile(path: string): { name: string; bytes: Buffer } {
  return { name: basename(path), bytes: readFileSync(path) };
}

/**
 * axe on the screen as it is: no serious or critical violation. The report of every finding (minor
 * ones included) is attached so they can be read even when the test passes.
 */
export async function expectAccessible(page: Page, testInfo: TestInfo, screen: string): Promise<void> {
  const result = await new AxeBuilder({ page }).analyze();
  await testInfo.attach(`axe: ${screen}`, {
    body: JSON.stringify(
      result.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 10),
      })),
      null,
      2,
    ),
    contentType: 'application/json',
  });
  for (const v of result.violations)
    console.log(
      `axe ${screen}: ${v.impact} ${v.id} (${v.nodes.length}) ${v.nodes[0]?.target.join(' ') ?? ''}`,
    );
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    bad.map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} — ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 5)
          .join(', ')}`,
    ),
    `axe on ${screen}`,
  ).toEqual([]);
}

/**
 * Points the output folder at a test folder through the Settings screen, as a user would in web mode:
 * type it, ask to change, and confirm the folder the app shows back.
 */
export async function setOutputFolder(page: Page, dir: string): Promise<void> {
  await nav(page, 'Settings');
  await page.getByLabel('Output folder').fill(dir);
  await page.getByRole('button', { name: 'Change folder…' }).click();
  const question = page.getByRole('alertdialog');
  await expect(question).toContainText(dir);
  await question.getByRole('button', { name: 'Use this folder' }).click();
  await expect(page.getByTestId('output-folder')).toHaveText(dir);
  await nav(page, 'Scans');
}

/** The smallest window the app is laid out for (issue 17): screens worth a screenshot are also shot there. */
export const SMALL_WINDOW = { width: 1024, height: 700 };

/**
 * One state worth keeping: a screenshot at the test's window size and one at 1024 x 700, and axe on it
 * in the light and the dark scheme. The window size and scheme are put back afterwards.
 */
export async function lookAt(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await snap(page, testInfo, name);
  await expectAccessible(page, testInfo, `${name}, light`);
  await page.emulateMedia({ colorScheme: 'dark' });
  await expectAccessible(page, testInfo, `${name}, dark`);
  await snap(page, testInfo, `${name}, dark`);
  await page.emulateMedia({ colorScheme: null });
  const size = page.viewportSize();
  if (size && (size.width !== SMALL_WINDOW.width || size.height !== SMALL_WINDOW.height)) {
    await page.setViewportSize(SMALL_WINDOW);
    await snap(page, testInfo, `${name} (1024 x 700)`);
    await page.setViewportSize(size);
  }
}
