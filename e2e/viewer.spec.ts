import { readFileSync, writeFileSync } from 'node:fs';
import type { Locator, Page, TestInfo } from '@playwright/test';
import { test, expect, FIXTURES, snap } from './fixtures';
import { expectAccessible, nav } from './ui-helpers';
import { readViewerCanvas, type Rgb } from './viewer-canvas';

const MESH = `${FIXTURES}/mesh`;

/** Every fixture format, opened through the viewer's own file input as a user would. */
const FORMATS = [
  { file: 'bunny-binary.stl', triangles: '69,451' },
  { file: 'bunny-ascii.ply', triangles: '69,451' },
  { file: 'bunny.drc', triangles: '69,451' },
  { file: 'spot-public-domain.obj', triangles: '5,856' },
  { file: 'spider-ascii.stl', triangles: '1,368' },
  { file: 'turbineblade-binary.ply', triangles: '199,034' },
];

/**
 * Pixels of the viewer's WebGL canvas at fractions of its size. The viewer draws on the next
 * animation frame after a change: two frames pass, then the picture is awaited whole.
 */
async function canvasPixels(page: Page, points: [number, number][]): Promise<Rgb[]> {
  await page.evaluate(async () => {
    const raf = (globalThis as unknown as { requestAnimationFrame(cb: () => void): number })
      .requestAnimationFrame;
    for (let i = 0; i < 2; i++) await new Promise<void>((r) => raf(() => r()));
  });
  return (await readViewerCanvas(page, { points })).samples;
}

/** The centre of the view and four points 2% of its size around it. */
const CENTRE: [number, number][] = [
  [0.5, 0.5],
  [0.48, 0.5],
  [0.52, 0.5],
  [0.5, 0.48],
  [0.5, 0.52],
];
/** A corner far from any framed mesh: the background colour. */
const CORNER: [number, number][] = [[0.005, 0.005]];

const diff = (a: Rgb, b: Rgb): number =>
  Math.max(Math.abs(a.r - b.r), Math.abs(a.g - b.g), Math.abs(a.b - b.b));

function hue({ r, g, b }: Rgb): number {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  if (max === min) return 0;
  const d = max - min;
  const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return (h * 60 + 360) % 360;
}

const hueDistance = (a: number, b: number): number => Math.min(Math.abs(a - b), 360 - Math.abs(a - b));

const rgbOf = (hex: string): Rgb => ({
  r: parseInt(hex.slice(1, 3), 16),
  g: parseInt(hex.slice(3, 5), 16),
  b: parseInt(hex.slice(5, 7), 16),
});

async function attachCanvas(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await testInfo.attach(name, {
    body: await page.getByTestId('viewer-canvas').screenshot(),
    contentType: 'image/png',
  });
}

async function openMesh(page: Page, ...files: string[]): Promise<void> {
  await page.getByLabel('Open mesh…').setInputFiles(files.map((f) => `${MESH}/${f}`));
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function status(page: Page): Locator {
  return page.getByTestId('viewer-status');
}

test('every mesh format is drawn over the centre, in the colour chosen, and hiding it clears it', async ({
  app,
}, testInfo) => {
  const { page } = app;
  await nav(page, 'Viewer');
  for (const { file, triangles } of FORMATS) {
    await openMesh(page, file);
    await expect(status(page)).toHaveText(
      new RegExp(`^Loaded ${escape(file)}: ${triangles} triangles, [\\d.]+ x [\\d.]+ x [\\d.]+ mm$`),
      { timeout: 60_000 },
    );
    const item = page.getByTestId('scene-item');
    await expect(item).toHaveCount(1);
    await expect(item).toContainText(`${triangles} triangles`);

    const [background] = await canvasPixels(page, CORNER);
    await expect
      .poll(async () => (await canvasPixels(page, CENTRE)).every((p) => diff(p, background!) > 12), {
        message: `${file} covers the centre of the view`,
      })
      .toBe(true);

    // A colour no mesh has by default: lighting changes its brightness, never its hue.
    const chosen = '#c0392b';
    await page.getByLabel(`Colour of ${file}`).fill(chosen);
    const target = hue(rgbOf(chosen));
    const isChosen = (p: Rgb): boolean => hueDistance(hue(p), target) <= 8 && p.r > 2 * Math.max(p.g, p.b);
    await expect
      .poll(async () => (await canvasPixels(page, CENTRE)).filter((p) => !isChosen(p)), {
        message: `${file} is drawn in ${chosen} (pixels listed are not)`,
      })
      .toEqual([]);
    await attachCanvas(page, testInfo, `${file} in ${chosen}`);

    await page.getByLabel(`Show ${file}`).uncheck();
    await expect
      .poll(async () => (await canvasPixels(page, CENTRE)).every((p) => diff(p, background!) <= 2), {
        message: `hiding ${file} clears the view`,
      })
      .toBe(true);
    await attachCanvas(page, testInfo, `${file} hidden`);

    await page.getByRole('button', { name: `Remove ${file}` }).click();
    await expect(item).toHaveCount(0);
  }
});

test('broken or unusable files are refused with a message, and the viewer keeps working', async ({
  app,
}, testInfo) => {
  const { page } = app;
  await nav(page, 'Viewer');
  const notices = page.getByTestId('viewer-notices');
  const cases = [
    {
      file: 'bad/truncated-binary-pointcloud.ply',
      says: /truncated-binary-pointcloud\.ply cannot be read: .* so it is truncated/,
    },
    { file: 'bad/empty.obj', says: /empty\.obj is empty \(0 bytes\)/ },
    { file: 'bad/empty.ply', says: /empty\.ply is empty \(0 bytes\)/ },
    { file: 'bad/degenerate-mesh.obj', says: /degenerate \(zero area\): there is no surface to show/ },
  ];
  for (const { file, says } of cases) {
    await openMesh(page, file);
    await expect(status(page)).toHaveText(says, { timeout: 30_000 });
    await expect(notices).toContainText(says);
  }
  // Each message says what to do, not only what is wrong.
  await expect(notices).toContainText('Export or download the mesh again.');
  await expect(page.getByTestId('scene-item')).toHaveCount(0);
  await testInfo.attach('messages', { body: await page.screenshot(), contentType: 'image/png' });

  // A file that is not a mesh at all.
  await page.getByLabel('Open mesh…').setInputFiles({
    name: 'notes.txt',
    mimeType: 'text/plain',
    buffer: Buffer.from('not a mesh'),
  });
  await expect(status(page)).toHaveText(/notes\.txt is not a mesh file this viewer can open/);

  // A machine with little memory: the 400k-triangle skull is refused before it is parsed.
  await page.evaluate(() =>
    Object.defineProperty((globalThis as unknown as { navigator: object }).navigator, 'deviceMemory', {
      value: 1 / 16,
    }),
  );
  await openMesh(page, 'skull-invesalius-cranium-400k-binary.stl');
  await expect(status(page)).toHaveText(
    'skull-invesalius-cranium-400k-binary.stl is too large for this computer: 399,757 triangles, and 139,810 more fit in the memory the viewer may use.',
  );
  await expect(notices).toContainText('ask for a decimated mesh');
  await expect(page.getByTestId('scene-item')).toHaveCount(0);

  await openMesh(page, 'spider-binary.stl');
  await expect(status(page)).toHaveText(/^Loaded spider-binary\.stl: 1,368 triangles/, { timeout: 30_000 });
  // Five messages are kept, newest first; each can be dismissed.
  await expect(notices.getByRole('listitem')).toHaveCount(5);
  await page.getByRole('button', { name: 'Dismiss message' }).first().click();
  await expect(notices.getByRole('listitem')).toHaveCount(4);
});

test('views, clipping, wireframe, measurement and screenshot on a skull', async ({ app }, testInfo) => {
  const { page } = app;
  await nav(page, 'Viewer');
  const file = 'skull-invesalius-cranium-400k-binary.stl';
  await openMesh(page, file);
  await expect(status(page)).toHaveText(`Loaded ${file}: 399,757 triangles, 225.2 x 214.6 x 158.2 mm`, {
    timeout: 60_000,
  });
  // "skull" in the name: bone ivory from the clinical palette.
  await expect(page.getByLabel(`Colour of ${file}`)).toHaveValue('#e3d7b8');
  await expectAccessible(page, testInfo, 'viewer with a mesh');

  const view = page.getByRole('application', { name: '3D view of the meshes' });
  const orientation = page.locator('#vw-orientation-text');
  await expect(orientation).toHaveText(
    'Orientation: patient left is to the right, superior is up, anterior faces you.',
  );
  await attachCanvas(page, testInfo, 'anterior');

  const sample: [number, number][] = [];
  for (let i = 1; i < 10; i++) for (let j = 1; j < 10; j++) sample.push([i / 10, j / 10]);
  const picture = async (): Promise<string> => JSON.stringify(await canvasPixels(page, sample));
  const anterior = await picture();

  await page.getByRole('button', { name: 'Superior', exact: true }).click();
  await expect(orientation).toHaveText(
    'Orientation: patient right is to the right, anterior is up, superior faces you.',
  );
  await expect.poll(picture).not.toBe(anterior);
  await attachCanvas(page, testInfo, 'superior');

  // The same views from the keyboard: focus the 3D view, then digits 1 to 6.
  await view.focus();
  await page.keyboard.press('3');
  await expect(orientation).toHaveText(
    'Orientation: patient posterior is to the right, superior is up, left faces you.',
  );
  await page.keyboard.press('1');
  await expect(orientation).toHaveText(
    'Orientation: patient left is to the right, superior is up, anterior faces you.',
  );
  await expect.poll(picture).toBe(anterior);
  await page.keyboard.press('ArrowLeft');
  await expect.poll(picture).not.toBe(anterior);
  await page.keyboard.press('1');
  await expect.poll(picture).toBe(anterior);

  await page.getByRole('button', { name: 'Wireframe' }).click();
  await expect(page.getByRole('button', { name: 'Wireframe' })).toHaveAttribute('aria-pressed', 'true');
  await expect.poll(picture).not.toBe(anterior);
  await attachCanvas(page, testInfo, 'wireframe');
  await page.getByRole('button', { name: 'Wireframe' }).click();
  await expect.poll(picture).toBe(anterior);

  // An axial cut through the middle, seen from above: the skull base shows from inside.
  await page.getByRole('button', { name: 'Superior', exact: true }).click();
  const superior = await picture();
  await page.getByRole('checkbox', { name: 'Clip' }).check();
  await expect(page.getByLabel('Clipping plane position')).toHaveAttribute('aria-valuetext', '79.1 mm');
  await expect.poll(picture).not.toBe(superior);
  const [bg] = await canvasPixels(page, CORNER);
  const covered = (await canvasPixels(page, sample)).filter((p) => diff(p, bg!) > 12).length;
  // The whole skull covers 20 of the 81 sample points from above; the lower half, cut open, about as many.
  expect(covered, 'sample points on the cut skull').toBeGreaterThan(10);
  await attachCanvas(page, testInfo, 'clipped axially, from above');
  await page.getByRole('checkbox', { name: 'Clip' }).uncheck();
  await expect.poll(picture).toBe(superior);
  await page.getByRole('button', { name: 'Anterior', exact: true }).click();

  // Distance between two picked points on the surface, in mm. The first click on the view comes in
  // the same task as the one on "Distance", before any timer can run: a user that quick, or a busy
  // machine, must not lose it (measuring once went on in a later task, and such a click was dropped).
  const box = (await page.getByTestId('viewer-canvas').boundingBox())!;
  await page.getByTestId('viewer-canvas').evaluate(
    (canvas, at) => {
      // Runs in the page; the e2e project is compiled without the DOM library, hence the local types.
      const { document, PointerEvent } = globalThis as unknown as {
        document: { querySelectorAll(s: string): Iterable<{ textContent: string | null; click(): void }> };
        PointerEvent: new (type: string, init: object) => Event;
      };
      const distance = [...document.querySelectorAll('button')].find(
        (b) => b.textContent?.trim() === 'Distance',
      );
      if (!distance) throw new Error('no Distance button');
      distance.click();
      const init = { clientX: at.x, clientY: at.y, bubbles: true, pointerId: 1, isPrimary: true };
      canvas.dispatchEvent(new PointerEvent('pointerdown', init));
      canvas.dispatchEvent(new PointerEvent('pointerup', init));
    },
    { x: box.x + box.width * 0.42, y: box.y + box.height * 0.4 },
  );
  await expect(page.getByTestId('measure-readout')).toHaveText('Click a second point');
  await page.mouse.click(box.x + box.width * 0.58, box.y + box.height * 0.4);
  await expect(page.getByTestId('measure-readout')).toHaveText(/^\d+\.\d mm$/);
  const mm = parseFloat((await page.getByTestId('measure-readout').textContent())!);
  // 16% of the view's width across the forehead of a skull 225 mm wide, framed with a margin.
  expect(mm).toBeGreaterThan(20);
  expect(mm).toBeLessThan(120);

  // A second measurement, shorter, down the forehead: the first one stays listed.
  const list = page.getByTestId('measurement');
  await page.mouse.click(box.x + box.width * 0.5, box.y + box.height * 0.35);
  await expect(page.getByTestId('measure-readout')).toHaveText('Click a second point');
  await expect(list).toHaveCount(1);
  await page.mouse.click(box.x + box.width * 0.5, box.y + box.height * 0.45);
  await expect(list).toHaveCount(2);
  await expect(list.nth(0)).toHaveText(new RegExp(`^1${escape(mm.toFixed(1))} mm`));
  const second = parseFloat((await list.nth(1).textContent())!.replace(/^2/, ''));
  expect(second).toBeGreaterThan(5);
  expect(second).toBeLessThan(mm);
  await expect(page.getByTestId('measure-readout')).toHaveText(`${second.toFixed(1)} mm`);
  await attachCanvas(page, testInfo, `two measurements: ${mm} mm and ${second} mm`);
  await snap(page, testInfo, 'measurement list');
  // Leaving measuring keeps the list; each goes on its own, or all at once.
  await page.getByRole('button', { name: 'Distance' }).click();
  await expect(list).toHaveCount(2);
  await page.getByRole('button', { name: new RegExp(`^Remove measurement 1, `) }).click();
  await expect(list).toHaveCount(1);
  await expect(list.nth(0)).toHaveText(new RegExp(`^2${escape(second.toFixed(1))} mm`));
  await page.getByRole('button', { name: 'Clear all measurements' }).click();
  await expect(page.getByTestId('measurement-list')).toHaveCount(0);

  // Plus zooms in and minus out, as the help says (a review found them the other way round): zoomed
  // in, the skull covers more of the sample points; zoomed out, fewer.
  const [background] = await canvasPixels(page, CORNER);
  const coveredPoints = async (): Promise<number> =>
    (await canvasPixels(page, sample)).filter((p) => diff(p, background!) > 12).length;
  const framed = await coveredPoints();
  await view.focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press('+');
  await expect.poll(coveredPoints).toBeGreaterThan(framed);
  for (let i = 0; i < 6; i++) await page.keyboard.press('-');
  await expect.poll(coveredPoints).toBeLessThan(framed);
  await page.keyboard.press('f');

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Screenshot' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^scan2mesh-view-\d{8}-\d{6}\.png$/);
  const png = readFileSync((await download.path())!);
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  await testInfo.attach('screenshot button output', { body: png, contentType: 'image/png' });
});

test('a mesh dropped on the viewer opens', async ({ app }, testInfo) => {
  const { page } = app;
  await nav(page, 'Viewer');
  const bytes = readFileSync(`${MESH}/vtk-42400-IDGH-binary.stl`).toString('base64');
  const dt = await page.evaluateHandle((b64) => {
    // Runs in the page; the e2e project is compiled without the DOM library, hence the local type.
    const g = globalThis as unknown as { DataTransfer: new () => { items: { add(f: File): void } } };
    const transfer = new g.DataTransfer();
    const bin = atob(b64);
    const data = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) data[i] = bin.charCodeAt(i);
    transfer.items.add(new File([data], 'vtk-42400-IDGH-binary.stl'));
    return transfer;
  }, bytes);
  const target = page.getByRole('region', { name: 'Mesh viewer' });
  await target.dispatchEvent('dragenter', { dataTransfer: dt });
  await target.dispatchEvent('dragover', { dataTransfer: dt });
  await target.dispatchEvent('drop', { dataTransfer: dt });
  await dt.dispose();
  await expect(status(page)).toHaveText(/^Loaded vtk-42400-IDGH-binary\.stl: 11,036 triangles/, {
    timeout: 30_000,
  });
  await attachCanvas(page, testInfo, 'dropped mesh');
});

test('several meshes open together into one scene, each listed with its own controls', async ({
  app,
}, testInfo) => {
  const { page } = app;
  await nav(page, 'Viewer');
  // More files than loads run at once: the rest wait their turn.
  await openMesh(page, 'bunny-binary.stl', 'spider-binary.stl', 'spot-public-domain.obj');
  await expect(page.getByTestId('scene-item')).toHaveCount(3, { timeout: 60_000 });
  await expect(page.getByTestId('scene-summary')).toContainText('Shown: 76,675 triangles');
  for (const name of ['bunny-binary.stl', 'spider-binary.stl', 'spot-public-domain.obj']) {
    await expect(page.getByLabel(`Show ${name}`)).toBeChecked();
    await expect(page.getByLabel(`Opacity of ${name}`)).toHaveValue('1');
  }
  // Distinct fallback colours for meshes the palette does not know.
  const colours = await Promise.all(
    ['bunny-binary.stl', 'spider-binary.stl', 'spot-public-domain.obj'].map((n) =>
      page.getByLabel(`Colour of ${n}`).inputValue(),
    ),
  );
  expect(new Set(colours).size).toBe(3);
  await page.getByLabel('Show spider-binary.stl').uncheck();
  await expect(page.getByTestId('scene-summary')).toContainText('Shown: 75,307 triangles');
  await attachCanvas(page, testInfo, 'three meshes, one hidden');
});

test('a clipped closed mesh shows a solid cap on its cut, in the mesh colour', async ({ app }, testInfo) => {
  const { page } = app;
  await nav(page, 'Viewer');
  const file = 'sphere-ascii.stl';
  await openMesh(page, file);
  await expect(status(page)).toHaveText(new RegExp(`^Loaded ${escape(file)}: 224 triangles`), {
    timeout: 30_000,
  });
  const chosen = '#2e86c1';
  await page.getByLabel(`Colour of ${file}`).fill(chosen);
  await page.getByRole('button', { name: 'Superior', exact: true }).click();
  // Points across the middle of the sphere seen from above: the centre and rings out to 60% of its radius.
  const disc: [number, number][] = [[0.5, 0.5]];
  const radius = await page.getByTestId('viewer-canvas').evaluate((el) => {
    const c = el as unknown as { width: number; height: number };
    return Math.min(c.width, c.height) / 2 / Math.max(c.width, c.height);
  });
  for (let k = 0; k < 8; k++) {
    for (const f of [0.3, 0.6]) {
      const a = (k * Math.PI) / 4;
      disc.push([0.5 + Math.cos(a) * f * radius * 0.8, 0.5 + Math.sin(a) * f * radius * 0.8]);
    }
  }
  const spread = (pixels: Rgb[]): number => Math.max(...pixels.map((p) => diff(p, pixels[0]!)));
  // The dome, lit by a headlight, is brighter at its centre than towards its rim.
  await expect.poll(async () => spread(await canvasPixels(page, disc))).toBeGreaterThan(20);
  await attachCanvas(page, testInfo, 'sphere from above');

  await page.getByRole('checkbox', { name: 'Clip' }).check();
  await expect(page.getByLabel('Clipping plane position')).toHaveAttribute('aria-valuetext', '0 mm');
  // The upper half is cut away: without a cap the view would look into the lower half's bowl,
  // shaded like the dome. The cap is flat and faces the view: one colour, the mesh's hue.
  const target = hue(rgbOf(chosen));
  const isCap = (pixels: Rgb[]): boolean =>
    spread(pixels) <= 6 && pixels.every((p) => hueDistance(hue(p), target) <= 10);
  await expect
    .poll(async () => isCap(await canvasPixels(page, disc)), {
      message: 'the cut shows one flat colour of the mesh’s hue',
    })
    .toBe(true);
  await attachCanvas(page, testInfo, 'clipped axially with its cap, from above');

  // Seen from the side, the cut is edge-on and the lower half remains.
  await page.getByRole('button', { name: 'Anterior', exact: true }).click();
  const [bg] = await canvasPixels(page, CORNER);
  const [above, below] = await canvasPixels(page, [
    [0.5, 0.35],
    [0.5, 0.65],
  ]);
  expect(diff(above!, bg!), 'the upper half is cut away').toBeLessThanOrEqual(2);
  expect(diff(below!, bg!), 'the lower half remains').toBeGreaterThan(12);
  await attachCanvas(page, testInfo, 'clipped, from the front');
});

test('a mesh whose size suggests metres says so, with what it would measure in mm', async ({
  app,
}, testInfo) => {
  const { page } = app;
  await nav(page, 'Viewer');
  // The spider fixture (binary STL, mm) scaled down a thousandfold, as if written in metres.
  const stl = Buffer.from(readFileSync(`${MESH}/spider-binary.stl`));
  const triangles = stl.readUInt32LE(80);
  for (let t = 0; t < triangles; t++) {
    // Normal (3 floats), then 3 corners of 3 floats, then a 2-byte attribute.
    for (let f = 3; f < 12; f++) {
      const at = 84 + t * 50 + f * 4;
      stl.writeFloatLE(stl.readFloatLE(at) / 1000, at);
    }
  }
  const file = testInfo.outputPath('spider-in-metres.stl');
  writeFileSync(file, stl);
  await page.getByLabel('Open mesh…').setInputFiles(file);
  await expect(status(page)).toHaveText(/^Loaded spider-in-metres\.stl: 1,368 triangles/, {
    timeout: 30_000,
  });
  const hint = page.getByTestId('unit-hint');
  await expect(hint).toContainText(
    /spider-in-metres\.stl is 0\.\d+ mm across, smaller than any tooth: the file is probably in metres \([\d.]+ mm if so\)/,
  );
  await expectAccessible(page, testInfo, 'viewer with a unit hint');
  await snap(page, testInfo, 'unit hint');
  await page.getByRole('button', { name: 'Dismiss the size hint for spider-in-metres.stl' }).click();
  await expect(hint).toHaveCount(0);

  // The same file at its real size gets no hint.
  await openMesh(page, 'spider-binary.stl');
  await expect(status(page)).toHaveText(/^Loaded spider-binary\.stl: 1,368 triangles/, { timeout: 30_000 });
  await expect(page.getByTestId('scene-item')).toHaveCount(2);
  await expect(hint).toHaveCount(0);
});

test('the 400k-triangle skull is uploaded and drawn over many short frames, its long tasks recorded', async ({
  app,
}, testInfo) => {
  const { page } = app;
  await nav(page, 'Viewer');
  // The viewer warms up (its shaders compile, its pipelines are built ahead) before the file is chosen.
  await expect(page.getByTestId('viewer-canvas')).toHaveAttribute('data-ready', 'true', { timeout: 30_000 });
  const supported = await page.evaluate(() => {
    // Runs in the page; the e2e project is compiled without the DOM library, hence the local types.
    interface Entry {
      startTime: number;
      duration: number;
    }
    const g = globalThis as unknown as {
      longTasks: Entry[];
      frames: string[];
      chosenAt: number | null;
      PerformanceObserver: {
        new (cb: (list: { getEntries(): Entry[] }) => void): { observe(o: { type: string }): void };
        supportedEntryTypes: string[];
      };
      MutationObserver: new (cb: () => void) => { observe(el: unknown, o: object): void };
      document: {
        addEventListener(t: string, cb: () => void, capture: boolean): void;
        querySelector(s: string): { dataset: { frame?: string } };
      };
    };
    g.longTasks = [];
    g.frames = [];
    g.chosenAt = null;
    new g.PerformanceObserver((list) => {
      for (const e of list.getEntries()) g.longTasks.push({ startTime: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask' });
    g.document.addEventListener('change', () => (g.chosenAt ??= performance.now()), true);
    // Every state the canvas reports after the file is chosen: "partial" frames, then "complete".
    const canvas = g.document.querySelector('[data-testid="viewer-canvas"]');
    new g.MutationObserver(() => {
      if (g.chosenAt !== null) g.frames.push(canvas.dataset.frame ?? '');
    }).observe(canvas, { attributes: true, attributeFilter: ['data-frame'] });
    return g.PerformanceObserver.supportedEntryTypes.includes('longtask');
  });
  expect(supported, 'the Long Tasks API is available').toBe(true);
  const file = 'skull-invesalius-cranium-400k-binary.stl';
  await openMesh(page, file);
  await expect(status(page)).toHaveText(`Loaded ${file}: 399,757 triangles, 225.2 x 214.6 x 158.2 mm`, {
    timeout: 60_000,
  });
  const drawnMark = (): Promise<number | null> =>
    page.evaluate(() => {
      const m = performance.getEntriesByType('mark').filter((e) => e.name.startsWith('viewer:drawn:'));
      return m.length > 0 ? m[m.length - 1]!.startTime : null;
    });
  await expect.poll(drawnMark, { message: 'the whole skull is drawn' }).not.toBeNull();
  // Long-task entries are delivered after their task: give them a moment.
  await page.waitForTimeout(300);
  const result = await page.evaluate(() => {
    const g = globalThis as unknown as {
      longTasks: { startTime: number; duration: number }[];
      frames: string[];
      chosenAt: number;
    };
    const drawn = performance
      .getEntriesByType('mark')
      .filter((e) => e.name.startsWith('viewer:drawn:'))
      .at(-1)!.startTime;
    const inside = g.longTasks.filter((t) => t.startTime + t.duration > g.chosenAt && t.startTime < drawn);
    return {
      chosenToDrawnMs: Math.round(drawn - g.chosenAt),
      longestTaskMs: Math.round(Math.max(0, ...inside.map((t) => t.duration))),
      longTasks: inside.map((t) => ({
        at: Math.round(t.startTime - g.chosenAt),
        ms: Math.round(t.duration),
      })),
      frames: g.frames,
    };
  });
  await testInfo.attach('main-thread long tasks from file chosen to the whole skull drawn', {
    body: JSON.stringify(result, null, 2),
    contentType: 'application/json',
  });
  console.log(`skull: longest main-thread task ${result.longestTaskMs} ms; ${JSON.stringify(result)}`);
  testInfo.annotations.push({
    type: 'longest main-thread task',
    description: `${result.longestTaskMs} ms (${result.longTasks.length} tasks over 50 ms; skull drawn ${result.chosenToDrawnMs} ms after being chosen)`,
  });
  await attachCanvas(page, testInfo, 'skull');
  // The upload and the drawing are spread over frames: 400k triangles in chunks of 16k, a frame's
  // budget at a time, make many partial frames with a software renderer, at least 3 with a GPU's
  // upload budget.
  const partial = result.frames.filter((f) => f === 'partial').length;
  expect(partial, `frames: ${result.frames.join(' ')}`).toBeGreaterThanOrEqual(3);
  expect(result.frames.at(-1)).toBe('complete');
  // The hard limit (no task over 50 ms) is the mesh-load bench's, on a quiet machine: headless
  // SwiftShader makes the browser wait for the rasteriser when it composites each frame, which on
  // a loaded 2-core machine alone can exceed 50 ms. The figures are attached above.
});
