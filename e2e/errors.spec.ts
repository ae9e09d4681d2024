import { test, expect, snap, FIXTURES } from './keyring';
import { startEngineProcess } from './engine-process';
import { addFolder, CRANIUM, dropFiles, fixtureFile, nav } from './ui-helpers';
import type { Page } from '@playwright/test';

async function addConnection(
  page: Page,
  fields: {
    name: string;
    baseUrl: string;
    authUrl: string;
    audience: string;
    clientId: string;
    secret: string;
  },
): Promise<void> {
  await nav(page, 'Connections');
  await page.getByRole('button', { name: 'Add other service…' }).click();
  const form = page.getByRole('form', { name: 'New connection' });
  await form.getByLabel('Name').fill(fields.name);
  await form.getByLabel('Service address').fill(fields.baseUrl);
  await form.getByLabel('Sign-in address').fill(fields.authUrl);
  await form.getByLabel('Audience').fill(fields.audience);
  await form.getByLabel('Client id').fill(fields.clientId);
  await form.getByLabel('Client secret').fill(fields.secret);
}

test('a file that is not DICOM, dropped on the window, gets a clear message', async ({ app }, testInfo) => {
  const { page } = app;
  // A mesh file is what a user most plausibly drops by mistake.
  await dropFiles(page, [fixtureFile(`${FIXTURES}/mesh/sphere-ascii.stl`)]);
  const notice = page.getByTestId('intake-notice');
  await expect(notice).toBeVisible({ timeout: 30_000 });
  await expect(notice).toContainText('No usable CT scan in sphere-ascii.stl');
  await expect(notice).toContainText(/DICOM/);
  await expect(notice).toHaveAttribute('role', 'alert');
  await expect(page.getByTestId('series-card')).toHaveCount(0);
  await snap(page, testInfo, 'non-DICOM drop: message');
  // The message goes away when dismissed and the first-run screen is still there to try again.
  await notice.getByRole('button', { name: 'Dismiss message' }).click();
  await expect(page.getByTestId('empty-scans')).toBeVisible();
});

test('a wrong client secret makes Test connection fail, saying so', async ({ app }, testInfo) => {
  const { page } = app;
  const engine = await startEngineProcess();
  try {
    await addConnection(page, {
      name: 'Practice server',
      baseUrl: engine.baseUrl,
      authUrl: engine.authUrl,
      audience: engine.audience,
      clientId: engine.clientId,
      secret: 'not-the-right-secret',
    });
    await snap(page, testInfo, 'connection form filled');
    await page.getByRole('button', { name: 'Save and test' }).click();
    const item = page.getByTestId('profile-item').filter({ hasText: 'Practice server' });
    await expect(item.getByTestId('secret-state')).toHaveText('Secret stored');
    const result = item.getByTestId('test-result');
    await expect(result).toHaveAttribute('data-ok', 'false', { timeout: 30_000 });
    await expect(result).toContainText('Sign-in refused: the client id or client secret is not accepted.');
    await snap(page, testInfo, 'wrong secret: test failed');
    // The secret is never shown back: the form only says one is stored.
    await item.getByRole('button', { name: 'Edit Practice server' }).click();
    const secret = page.getByLabel('Client secret');
    await expect(secret).toHaveValue('');
    await expect(secret).toHaveAttribute('placeholder', 'Stored — type to replace');
    expect(await page.content()).not.toContain('not-the-right-secret');
  } finally {
    await engine.stop();
  }
});

test('the service down gives a message, not a frozen screen', async ({ app }, testInfo) => {
  const { page } = app;
  await addConnection(page, {
    name: 'Down service',
    baseUrl: 'http://127.0.0.1:9/24.06',
    authUrl: 'http://127.0.0.1:9/auth',
    audience: 'virtualpatientengine.com',
    clientId: 'clinic-42',
    secret: 'some-secret',
  });
  await page.getByRole('button', { name: 'Save and test' }).click();
  const item = page.getByTestId('profile-item').filter({ hasText: 'Down service' });
  const result = item.getByTestId('test-result');
  await expect(result).toHaveAttribute('data-ok', 'false', { timeout: 60_000 });
  await expect(result).toContainText('The service could not be reached.');
  await snap(page, testInfo, 'service down: test failed');

  // Submitting to it: the job fails with the reason and what to do, and the app stays usable.
  await item.getByRole('button', { name: 'Use this connection' }).click();
  await expect(item).toContainText('In use');
  await nav(page, 'Scans');
  await addFolder(page, CRANIUM);
  await expect(page.getByTestId('series-card')).toHaveCount(1, { timeout: 60_000 });
  await expect(page.getByTestId('active-connection')).toHaveText('Down service');
  await page.getByRole('checkbox', { name: 'Mandible' }).check();
  await page.getByTestId('submit').click();
  // The queue keeps trying a service it cannot reach (for hours: a technician's batch must survive an
  // outage), and says so on the job while the rest of the app stays usable.
  const job = page.getByTestId('job-row');
  await expect(job).toContainText(/no connection|reach|connect/i, { timeout: 60_000 });
  await snap(page, testInfo, 'service down: the job says it cannot reach it');
  await nav(page, 'Scans');
  await expect(page.getByTestId('series-card')).toHaveCount(1);
  await nav(page, 'Jobs');
  await job.getByRole('button', { name: /^Cancel/ }).click();
  await expect(job).toHaveAttribute('data-state', 'canceled');
  await expect(job.getByRole('button', { name: 'Start again' })).toBeVisible();
  await snap(page, testInfo, 'service down: job canceled');

  await nav(page, 'Connections');
  await item.getByRole('button', { name: 'Edit Down service' }).click();
  await expect(page.getByRole('form', { name: 'Edit Down service' })).toBeVisible();
  await page.getByLabel('Service address').fill('http://127.0.0.1:9');
  await expect(page.getByText('The service address must end with the version segment')).toBeVisible();
  await snap(page, testInfo, 'editing the connection: checked as typed');
});
