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
