import { test as base, expect, type TestInfo, type Page } from '@playwright/test';
import { launchApp, type LaunchedApp } from './launch-app';

export { expect };
export { FIXTURES, ROOT } from './launch-app';

/** Attaches a screenshot of the page to the test report under a name that says which screen it shows. */
export async function snap(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await testInfo.attach(name, { body: await page.screenshot(), contentType: 'image/png' });
}

export const test = base.extend<{ app: LaunchedApp }>({
  app: async ({ browser }, use, testInfo) => {
    const app = await launchApp(browser);
    await use(app);
    await snap(app.page, testInfo, 'final screen').catch(() => undefined);
    await app.close();
  },
});
