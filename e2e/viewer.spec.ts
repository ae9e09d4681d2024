import { readFileSync } from 'node:fs';
import type { Locator, Page, TestInfo } from '@playwright/test';
import { test, expect, FIXTURES } from './fixtures';
import { expectAccessible, nav } from './ui-helpers';

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

interface Rgb {
  r: number;
  g: number;
  b: number;
}

/**
 * Pixels of the viewer's WebGL canvas (kept with preserveDrawingBuffer), at fractions of its size.
 * Read in the page through a 2D canvas, so they are exactly what was drawn, not a screenshot. The
 * viewer draws on the next animation frame after a change: two frames pass before reading.
 */
async function canvasPixels(page: Page, points: [number, number][]): Promise<Rgb[]> {
  await page.evaluate(async () => {
    const raf = (globalThis as unknown as { requestAnimationFrame(cb: () => void): number })
      .requestAnimationFrame;
    for (let i = 0; i < 2; i++) await new Promise<void>((r) => raf(() => r()));
  });
  return page.getByTestId('viewer-canvas').evaluate((el, pts) => {
    // Runs in the page; the e2e project is compiled without the DOM library, hence the local types.
    interface Canvas {
      width: number;
      height: number;
    }
    interface Ctx {
      drawImage(c: Canvas, x: number, y: number): void;
      getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
    }
    const doc = (
      globalThis as unknown as {
        document: { createElement(t: 'canvas'): Canvas & { getContext(t: '2d'): Ctx } };
      }
    ).document;
    const src = el as unknown as Canvas;
    const copy = doc.createElement('canvas');
    copy.width = src.width;
    copy.height = src.height;
    const ctx = copy.getContext('2d');
    ctx.drawImage(src, 0, 0);
    return pts.map(([fx, fy]) => {
      const d = ctx.getImageData(
        Math.round(fx * (src.width - 1)),
        Math.round(fy * (src.height - 1)),
        1,
        1,
      ).data;
      return { r: d[0]!, g: d[1]!, b: d[2]! };
    });
  }, points);
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

  // Distance between two picked points on the surface, in mm.
  await page.getByRole('button', { name: 'Distance' }).click();
  const box = (await page.getByTestId('viewer-canvas').boundingBox())!;
  await page.mouse.click(box.x + box.width * 0.42, box.y + box.height * 0.4);
  await expect(page.getByTestId('measure-readout')).toHaveText('Click a second point');
  await page.mouse.click(box.x + box.width * 0.58, box.y + box.height * 0.4);
  await expect(page.getByTestId('measure-readout')).toHaveText(/^\d+\.\d mm$/);
  const mm = parseFloat((await page.getByTestId('measure-readout').textContent())!);
  // 16% of the view's width across the forehead of a skull 225 mm wide, framed with a margin.
  expect(mm).toBeGreaterThan(20);
  expect(mm).toBeLessThan(120);
  await attachCanvas(page, testInfo, `distance ${mm} mm`);

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
