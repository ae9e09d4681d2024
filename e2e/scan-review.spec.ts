import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { test, expect, snap, FIXTURES } from './fixtures';
import { addFolder, expectAccessible, setOutputFolder } from './ui-helpers';
import { readViewerCanvas } from './viewer-canvas';

const CRANIUM = `${FIXTURES}/dicom/ct-human-cranium-teeth`;
/** The cranium's pixel size (MANIFEST.md): 0.957 mm. */
const PIXEL_MM = 0.957;
const SHIFT_MM = 5;

/** Every .stl under a folder (the job's outputs). */
function stlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? stlFiles(p) : n.endsWith('.stl') ? [p] : [];
  });
}

/** A binary STL moved by `dx` mm along x (the patient's left, LPS). */
function shiftedStl(path: string, dx: number): Buffer {
  const buf = Buffer.from(readFileSync(path));
  const n = buf.readUInt32LE(80);
  expect(buf.length, 'the job writes binary STL').toBe(84 + 50 * n);
  for (let t = 0; t < n; t++) {
    for (let c = 0; c < 3; c++) {
      const at = 84 + t * 50 + 12 + c * 12;
      buf.writeFloatLE(buf.readFloatLE(at) + dx, at);
    }
  }
  return buf;
}

/**
 * The pixels of one colour on a view's overlay canvas (where the outlines are drawn): what the user
 * sees, not what the code meant to draw.
 */
async function outlinePixels(
  view: Locator,
  colour: string,
): Promise<{ xy: number[]; n: number; width: number }> {
  return view.locator('canvas.rv-overlay').evaluate((el, hex) => {
    const c = el as unknown as {
      width: number;
      height: number;
      getContext(k: '2d'): {
        getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
      };
    };
    const want = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
    const xy: number[] = [];
    for (let i = 0; i < data.length; i += 4) {
      // The line's core only: its anti-aliased rim is mixed with the dark halo under it.
      if (data[i + 3]! < 200) continue;
      const d =
        Math.abs(data[i]! - want[0]!) + Math.abs(data[i + 1]! - want[1]!) + Math.abs(data[i + 2]! - want[2]!);
      if (d > 24) continue;
      const p = i / 4;
      xy.push(p % c.width, Math.floor(p / c.width));
    }
    return { xy, n: xy.length / 2, width: c.width };
  }, colour);
}

/**
 * The shift (in pixels) that lays outline b best over outline a: for every candidate shift, how many
 * of b's pixels land on (or next to) one of a's. A dashed outline has fewer pixels, never a bias.
 */
function bestShift(a: number[], b: number[], range: number): { dx: number; dy: number; hits: number } {
  const near = new Set<number>();
  const key = (x: number, y: number): number => (y + 4096) * 8192 + (x + 4096);
  for (let i = 0; i < a.length; i += 2)
    for (let ox = -1; ox <= 1; ox++)
      for (let oy = -1; oy <= 1; oy++) near.add(key(a[i]! + ox, a[i + 1]! + oy));
  let best = { dx: 0, dy: 0, hits: -1 };
  for (let dy = -range; dy <= range; dy++) {
    for (let dx = -range; dx <= range; dx++) {
      let hits = 0;
      for (let i = 0; i < b.length; i += 2) if (near.has(key(b[i]! - dx, b[i + 1]! - dy))) hits++;
      if (hits > best.hits) best = { dx, dy, hits };
    }
  }
  return best;
}

/** Pixels of the 3D view close to a colour. */
async function viewerPixelsOf(page: Page, rgb: [number, number, number]): Promise<number> {
  return (await readViewerCanvas(page, { points: [], near: rgb })).nearCount;
}

async function shoot(page: Page, testInfo: Parameters<typeof snap>[1], name: string): Promise<void> {
  for (const [w, h] of [
    [1440, 900],
    [1024, 700],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    await page.waitForTimeout(300); // the views refit on resize (ResizeObserver); let them draw
    await snap(page, testInfo, `${name} at ${w}x${h}`);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

test('scan review: three linked views, and a job’s mesh outlined on them; a shifted mesh lies off', async ({
  app,
}, testInfo) => {
  test.setTimeout(420_000);
  const { page } = app;
  await page.setViewportSize({ width: 1440, height: 900 });
  const outDir = join(app.dataDir, 'meshes');
  mkdirSync(outDir, { recursive: true });
  await setOutputFolder(page, outDir);
  await addFolder(page, CRANIUM);
  const card = page.getByTestId('series-card');
  await expect(card).toHaveCount(1, { timeout: 60_000 });

  const axial = card.getByTestId('view-axial');
  const coronal = card.getByTestId('view-coronal');
  const sagittal = card.getByTestId('view-sagittal');
  const slider = (v: Locator): Locator => v.getByRole('slider');
  await expect(slider(axial)).toHaveAttribute('aria-valuemax', '108', { timeout: 30_000 });
  await expect(slider(coronal)).toHaveAttribute('aria-valuemax', '256', { timeout: 30_000 });
  await expect(slider(sagittal)).toHaveAttribute('aria-valuemax', '256', { timeout: 30_000 });

  // Orientation letters from the series' cosines: an axial CT seen from the feet, coronal from the front.
  await expect(axial.getByTestId('orientation-letters')).toHaveText('RLAP');
  await expect(coronal.getByTestId('orientation-letters')).toHaveText('RLSI');
  await expect(sagittal.getByTestId('orientation-letters')).toHaveText('APSI');
  await expect(axial.getByTestId('scale-bar')).toHaveText(/^\d+ mm$/);

  // A click in the axial view moves the coronal and sagittal slices to that point.
  const cor0 = await slider(coronal).getAttribute('aria-valuenow');
  const sag0 = await slider(sagittal).getAttribute('aria-valuenow');
  const box = await axial.locator('canvas.rv-overlay').boundingBox();
  if (!box) throw new Error('the axial view has no box');
  await page.mouse.click(box.x + box.width * 0.3, box.y + box.height * 0.35);
  await expect(slider(coronal)).not.toHaveAttribute('aria-valuenow', cor0 ?? '');
  await expect(slider(sagittal)).not.toHaveAttribute('aria-valuenow', sag0 ?? '');
  // Columns run to the patient's left: 30% across is the right side, about 30% of 256 columns in.
  expect(Number(await slider(sagittal).getAttribute('aria-valuenow'))).toBeGreaterThan(65);
  expect(Number(await slider(sagittal).getAttribute('aria-valuenow'))).toBeLessThan(90);
  // Keyboard: PageUp moves the focused view ten slices.
  const ax0 = Number(await slider(axial).getAttribute('aria-valuenow'));
  await slider(axial).focus();
  await page.keyboard.press('PageUp');
  await expect(slider(axial)).toHaveAttribute('aria-valuenow', String(ax0 + 10));
  await page.keyboard.press('PageDown');

  // Presets, and a right-drag of 80 px that changes the window gently (the issue: all black before).
  await card.getByRole('button', { name: 'Bone' }).click();
  await expect(card.getByTestId('window-level')).toHaveText('W 2000 · L 500');
  await expect(card.getByRole('button', { name: 'Bone' })).toHaveAttribute('aria-pressed', 'true');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down({ button: 'right' });
  await page.mouse.move(box.x + box.width / 2 - 80, box.y + box.height / 2, { steps: 8 });
  await page.mouse.up({ button: 'right' });
  const wl = (await card.getByTestId('window-level').textContent()) ?? '';
  const w = Number(/W (\d+)/.exec(wl)?.[1]);
  expect(w).toBeGreaterThan(1000);
  expect(w).toBeLessThan(1500);
  await card.getByRole('button', { name: 'Bone' }).click();
  await expectAccessible(page, testInfo, 'scan review');
  await shoot(page, testInfo, 'three views with crosshair');

  // A local skull job on this scan, then its mesh in the viewer, outlined on the scan.
  await page.getByRole('checkbox', { name: 'Skull' }).check();
  await page.getByTestId('submit').click();
  const job = page.getByTestId('job-row');
  await expect(job).toHaveAttribute('data-state', 'done', { timeout: 300_000 });
  await job.getByRole('button', { name: /^Open .+ in viewer$/ }).click();
  await expect(page.getByTestId('scene-item')).toHaveCount(1, { timeout: 60_000 });
  const check = page.getByTestId('scan-check');
  const cAxial = check.getByTestId('view-axial');
  await expect(slider(cAxial)).toHaveAttribute('aria-valuemax', '108', { timeout: 30_000 });
  const jobColour = await page.getByTestId('scene-item').locator('input[type="color"]').inputValue();
  await expect
    .poll(async () => (await outlinePixels(cAxial, jobColour)).n, { timeout: 30_000 })
    .toBeGreaterThan(200);
  await expect(check.getByTestId('frame-warning')).toHaveCount(0);
  // The three slice planes run through the mesh in the 3D view (axial drawn in red), and go when unticked.
  const AXIAL_RED: [number, number, number] = [0xd9, 0x45, 0x3b];
  await expect.poll(() => viewerPixelsOf(page, AXIAL_RED), { timeout: 30_000 }).toBeGreaterThan(50);
  const planes = check.getByRole('checkbox', { name: 'Show the three slice planes in the 3D view' });
  await planes.uncheck();
  await expect.poll(() => viewerPixelsOf(page, AXIAL_RED), { timeout: 30_000 }).toBeLessThan(5);
  await planes.check();
  await expectAccessible(page, testInfo, 'mesh outlines on the scan');
  await shoot(page, testInfo, 'job mesh outlined on the slices');

  // The same mesh moved 5 mm to the patient's left, opened from disk: dashed, named, and off by 5 mm.
  const [output] = stlFiles(outDir);
  if (!output) throw new Error(`no STL output under ${outDir}`);
  const shiftedPath = join(app.dataDir, 'shifted-5mm.stl');
  writeFileSync(shiftedPath, shiftedStl(output, SHIFT_MM));
  await page.getByLabel('Open mesh…').setInputFiles(shiftedPath);
  await expect(page.getByTestId('scene-item')).toHaveCount(2, { timeout: 60_000 });
  await expect(check.getByTestId('frame-warning')).toContainText('shifted-5mm.stl');
  const shiftedColour = await page
    .getByTestId('scene-item')
    .filter({ hasText: 'shifted-5mm' })
    .locator('input[type="color"]')
    .inputValue();
  expect(shiftedColour).not.toBe(jobColour);
  for (const plane of ['axial', 'coronal'] as const) {
    const view = check.getByTestId(`view-${plane}`);
    await expect
      .poll(async () => (await outlinePixels(view, shiftedColour)).n, { timeout: 30_000 })
      .toBeGreaterThan(100);
    // Each outline read alone (the other hidden), so neither covers the other where they cross.
    const alone = async (
      hide: string,
      colour: string,
    ): Promise<Awaited<ReturnType<typeof outlinePixels>>> => {
      const box = page.getByLabel(`Show ${hide}`);
      await box.uncheck();
      await expect
        .poll(
          async () =>
            (await outlinePixels(view, colour)).n > 0 &&
            (await outlinePixels(view, hide === 'skull.stl' ? jobColour : shiftedColour)).n === 0,
        )
        .toBe(true);
      const px = await outlinePixels(view, colour);
      await box.check();
      return px;
    };
    const a = await alone('shifted-5mm.stl', jobColour);
    const b = await alone('skull.stl', shiftedColour);
    const imageWidth = await view
      .locator('canvas.rv-image')
      .evaluate((c) => (c as unknown as { width: number }).width);
    const mmPerPx = (imageWidth * PIXEL_MM) / a.width;
    // Search shifts up to 15 mm each way: the one that overlays the outlines best is how far apart they are.
    const best = bestShift(a.xy, b.xy, Math.ceil(15 / mmPerPx));
    const dxMm = best.dx * mmPerPx;
    const dyMm = best.dy * mmPerPx;
    testInfo.annotations.push({
      type: `${plane} outline shift`,
      description: `${dxMm.toFixed(2)} mm, ${dyMm.toFixed(2)} mm; ${best.hits} of ${b.n} pixels fit`,
    });
    // Most of the moved outline lies on the original once moved back, far more than without moving it.
    expect(best.hits / b.n).toBeGreaterThan(0.6);
    expect(best.hits).toBeGreaterThan(1.5 * bestShift(a.xy, b.xy, 0).hits);
    // On screen the patient's left is to the right in both views: the outline moved ~5 mm right.
    expect(dxMm).toBeGreaterThan(SHIFT_MM - 1.5);
    expect(dxMm).toBeLessThan(SHIFT_MM + 1.5);
    expect(Math.abs(dyMm)).toBeLessThan(1.5);
  }
  await shoot(page, testInfo, 'mesh shifted 5 mm, off its anatomy');
});
