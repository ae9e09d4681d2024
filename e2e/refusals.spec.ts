import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkStructures, respell } from '../src-shared/structure-check';
import { PRESETS, structureInfo } from '../src-shared/structures';
import { connectionCapabilities } from '../src-main/app/structure-check';
import { createSegmentationProcessor } from '../src-main/engine/segmentation/index';
import { ScanService } from '../src-main/scans/scan-service';
import { test, expect, snap } from './fixtures';
import { addFolder, CT_SERIES, setOutputFolder } from './ui-helpers';

// What the local engine refuses is its own say (it changes as it learns): ask it, as the app does.
const caps = connectionCapabilities('local-engine', createSegmentationProcessor());
const labelOf = (name: string): string => structureInfo(name)?.label ?? name;
/** The engine's reason as the panel words it: without the name in front, ids written as labels. */
const reasonOf = (name: string): string => {
  const r = caps.refused.find((x) => x.name === name)?.reason ?? '';
  return respell(r.startsWith(`${name}:`) ? r.slice(name.length + 1).trimStart() : r, labelOf);
};

test('clinician: what the local engine refuses cannot be picked, and says why beside it', async ({
  app,
}, testInfo) => {
  // Uploading the 71 MB scan to web mode takes a while on a loaded machine.
  test.setTimeout(240_000);
  const { page } = app;
  await addFolder(page, CT_SERIES);
  await expect(page.getByTestId('series-card')).toHaveCount(1, { timeout: 60_000 });
  const submit = page.getByTestId('submit');
  const bar = page.getByTestId('submit-bar');

  // A refused tooth: disabled in the chart, its reason in words beside the chart, and a click or a
  // key press does not choose it.
  const tooth = caps.refused.find((r) => /^tooth\d\d$/.test(r.name))?.name;
  test.skip(!tooth, 'the local engine makes single teeth: no tooth to refuse');
  await page.getByRole('button', { name: 'Choose single teeth…' }).click();
  const button = page.getByRole('button', {
    name: new RegExp(`^${labelOf(tooth!).replace(/[()]/g, '\\$&')}`),
  });
  await expect(button).toHaveAttribute('aria-disabled', 'true');
  await expect(button).toHaveAccessibleDescription(new RegExp(escape(reasonOf(tooth!))));
  await expect(page.locator('.tooth-chart').getByText(reasonOf(tooth!))).toBeVisible();
  await button.click({ force: true });
  await button.focus();
  await page.keyboard.press('Space');
  await expect(button).toHaveAttribute('aria-pressed', 'false');
  await expect(page.getByRole('list', { name: 'Chosen structures' })).toHaveCount(0);
  await snap(page, testInfo, 'refused tooth cannot be picked');

  // A refused catalogue name in the lists: a disabled checkbox with the reason beside it.
  const listed = caps.refused.find((r) => !/^tooth\d\d$/.test(r.name));
  if (listed) {
    const box = page.getByRole('checkbox', { name: labelOf(listed.name), exact: true });
    await expect(box).toBeDisabled();
    await expect(page.locator('.picker').getByText(reasonOf(listed.name)).first()).toBeVisible();
  }

  // Free entry: a name the engine does not know is said as it is typed, and cannot be added.
  const free = page.getByRole('textbox', { name: 'Another structure by name' });
  await free.fill('femur');
  await expect(page.getByTestId('free-structure-hint')).toContainText('Not available on');
  await expect(page.getByRole('button', { name: 'Add', exact: true })).toBeDisabled();
  await free.fill('');

  // A preset with refused names: each refused structure once, by its label, inside the Submit bar
  // beside the disabled button, with the reason.
  const preset = PRESETS.find(
    (p) => checkStructures(p.structures, caps, { connectionName: 'x' }).refused.length > 0,
  );
  test.skip(!preset, 'every preset is made by the local engine');
  const expected = checkStructures(preset!.structures, caps, { connectionName: 'x' }).refused.map(
    (r) => r.name,
  );
  await page.getByRole('button', { name: preset!.label, exact: true }).click();
  await expect(submit).toBeDisabled();
  const refusals = bar.getByTestId('refusals');
  await expect(refusals.locator('li strong')).toHaveText(expected.map(labelOf));
  for (const name of expected) await expect(refusals).toContainText(reasonOf(name));
  // Beside the button: the list ends above the button, and both lie inside the fixed bar.
  const [barBox, listBox, buttonBox] = await Promise.all([
    bar.boundingBox(),
    refusals.boundingBox(),
    submit.boundingBox(),
  ]);
  expect(listBox!.y + listBox!.height).toBeLessThanOrEqual(buttonBox!.y + 1);
  expect(listBox!.y).toBeGreaterThanOrEqual(barBox!.y);
  expect(buttonBox!.y + buttonBox!.height).toBeLessThanOrEqual(barBox!.y + barBox!.height + 1);
  await snap(page, testInfo, 'refused structures beside Submit');

  // Removing them leaves what the engine makes, and Submit is enabled (All teeth included, if made).
  await refusals.getByRole('button', { name: /^Remove/ }).click();
  await expect(bar.getByTestId('refusals')).toHaveCount(0);
  const kept = preset!.structures.filter((n) => !expected.includes(n));
  if (kept.length > 0) await expect(submit).toBeEnabled();
  await snap(page, testInfo, 'refused structures removed');

  // A preset the local engine makes in full: nothing refused, Submit ready.
  const whole = PRESETS.find(
    (p) => checkStructures(p.structures, caps, { connectionName: 'x' }).refused.length === 0,
  );
  expect(whole, 'a preset the local engine accepts in full').toBeDefined();
  await page.getByRole('button', { name: whole!.label, exact: true }).click();
  await expect(bar.getByTestId('refusals')).toHaveCount(0);
  await expect(submit).toBeEnabled();
});

test('clinician: a 2-slice series says why on its card and is not ticked', async ({ app }, testInfo) => {
  test.setTimeout(240_000);
  const { page } = app;
  const slab = mkdtempSync(join(tmpdir(), 'scan2mesh-e2e-slab-'));
  try {
    for (const f of readdirSync(CT_SERIES).sort().slice(0, 2))
      copyFileSync(join(CT_SERIES, f), join(slab, f));
    // The reasons are the series summary's own (the same code the app runs), not words copied here.
    const scans = new ScanService({});
    const fitness = (await scans.intake([slab])).series[0]!.fitness;
    await scans.dispose();
    expect(fitness.fit).toBe(false);

    await addFolder(page, CT_SERIES);
    await expect(page.getByTestId('series-card')).toHaveCount(1, { timeout: 60_000 });
    await addFolder(page, slab);
    await expect(page.getByTestId('series-card')).toHaveCount(2, { timeout: 60_000 });

    const slabCard = page.getByTestId('series-card').filter({ has: page.getByTestId('series-refusal') });
    await expect(slabCard).toHaveCount(1);
    for (const reason of fitness.reasons)
      await expect(slabCard.getByTestId('series-refusal')).toContainText(reason);
    const tick = slabCard.getByRole('checkbox', { name: /^Include / });
    await expect(tick).not.toBeChecked();
    await expect(tick).toBeDisabled();
    const fullCard = page.getByTestId('series-card').filter({ hasNot: page.getByTestId('series-refusal') });
    await expect(fullCard.getByRole('checkbox', { name: /^Include / })).toBeChecked();
    await expect(page.getByTestId('selected-count')).toHaveText('1 scan of 1 ticked.');
    await snap(page, testInfo, '2-slice series refused on its card');
  } finally {
    rmSync(slab, { recursive: true, force: true });
  }
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

test('clinician: a structure the engine refuses after reading the scan costs the others nothing', async ({
  app,
}, testInfo) => {
  test.setTimeout(300_000);
  const { page } = app;
  await setOutputFolder(page, join(app.dataDir, 'meshes'));
  await addFolder(page, CT_SERIES);
  await expect(page.getByTestId('series-card')).toHaveCount(1, { timeout: 60_000 });
  // The phantom is a bare skull: no skin over the bone, which only reading its voxels shows.
  await page.getByRole('checkbox', { name: 'Skull' }).check();
  await page.getByRole('textbox', { name: 'Another structure by name' }).fill('soft_tissue');
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await page.getByTestId('submit').click();

  const job = page.getByTestId('job-row');
  await expect(job).toHaveAttribute('data-state', /^(done|failed)$/, { timeout: 240_000 });
  await expect(job).toHaveAttribute('data-state', 'failed');
  const error = job.getByTestId('job-error');
  await expect(error).toContainText('The local engine made 1 of the 2 meshes.');
  await expect(error).toContainText('soft_tissue.stl was refused');
  await expect(error).toContainText('no soft tissue over the bone');
  // Final, and the engine's own: no Retry, the way back to the scans instead.
  await expect(job.getByRole('button', { name: 'Retry' })).toHaveCount(0);
  await expect(job.getByRole('button', { name: 'Back to scans' })).toBeVisible();
  // The skull it made is saved, listed, and opens in the viewer.
  await expect(job.getByRole('list', { name: /^Files of / })).toContainText('skull.stl');
  await snap(page, testInfo, 'one structure refused, the other saved');
  await job.getByRole('button', { name: /^Open .+ in viewer$/ }).click();
  await expect(page.getByTestId('scene-item')).toHaveCount(1, { timeout: 60_000 });
  await expect(page.getByTestId('viewer-status')).toContainText('Loaded', { timeout: 60_000 });
});
