import { addFolder, CT_SERIES } from './ui-helpers';
import { test, expect, snap } from './fixtures';

test('the app shell opens with its navigation', async ({ app }, testInfo) => {
  const { page } = app;
  await expect(page).toHaveTitle('scan2mesh');
  const nav = page.getByRole('navigation', { name: 'Main' });
  for (const label of ['Scans', 'Jobs', 'Viewer', 'Connections'])
    await expect(nav.getByRole('button', { name: label })).toBeVisible();
  await snap(page, testInfo, 'app shell');
});

test('the renderer lists connection profiles through the contract', async ({ app }, testInfo) => {
  const { page } = app;
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Connections' }).click();
  const items = page.getByTestId('profile-item');
  await expect(items).toHaveCount(1);
  await expect(items.first()).toContainText('Local engine (this computer)');
  await expect(items.first()).toContainText('In use');
  await snap(page, testInfo, 'connections');
});

test('the first page’s scripts ask V8 to compile them while they stream, the viewer’s does not', async ({
  app,
}) => {
  const { page } = app;
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Viewer' }).click();
  await expect(page.locator('canvas')).toBeVisible();
  // The scripts the page's HTML names (later imports add links of their own to the live document).
  const base = page.url();
  const html = await (await page.request.get(base)).text();
  const firstPage = [
    ...html.matchAll(/<(?:script type="module"[^>]* src|link rel="modulepreload"[^>]* href)="([^"]+)"/g),
  ].map((m) => new URL(m[1] ?? '', base).href);
  const loaded = (await page.evaluate(
    "performance.getEntriesByType('resource').map((e) => e.name).filter((u) => /\\/assets\\/[^/]+\\.js$/.test(u))",
  )) as string[];
  const firstLine = async (url: string) => (await (await page.request.get(url)).text()).split('\n', 1)[0];
  const heads = {
    firstPage: await Promise.all(firstPage.map(async (u) => [u, await firstLine(u)])),
    later: await Promise.all(
      loaded.filter((u) => !firstPage.includes(u)).map(async (u) => [u, await firstLine(u)]),
    ),
  };
  expect(heads.firstPage.length).toBeGreaterThanOrEqual(3);
  for (const [url, line] of heads.firstPage) expect(line, url).toBe('//# allFunctionsCalledOnLoad');
  const viewer = heads.later.find(([url]) => /ViewerHost-/.test(url ?? ''));
  expect(viewer, 'the viewer chunk was loaded').toBeDefined();
  expect(viewer?.[1]).not.toContain('allFunctionsCalledOnLoad');
});

test('a reload lists again the scans added before it, unticked, and not one the user removed', async ({
  app,
}) => {
  const { page } = app;
  await addFolder(page, CT_SERIES);
  const card = page.getByTestId('series-card');
  await expect(card).toHaveCount(1, { timeout: 60_000 });
  await expect(card).toContainText('512 × 512 × 140');
  await page.reload();
  // The main process still holds the series: the card comes back without reading the scan again.
  await expect(card).toHaveCount(1, { timeout: 30_000 });
  await expect(card).toContainText('512 × 512 × 140');
  await expect(card.getByRole('checkbox', { name: /^Include .* in the next submission$/ })).not.toBeChecked();
  await card.getByRole('button', { name: /^Remove .* from the list$/ }).click();
  await expect(card).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('empty-scans')).toBeVisible();
  await expect(card).toHaveCount(0);
});
