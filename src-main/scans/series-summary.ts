import { createHash } from 'node:crypto';
import { basename, resolve } from 'node:path';
import type { ScanProblem, SeriesSummary } from '../../src-shared/scans.js';
import { burnedInReason } from './burned-in.js';
import { planeName } from './geometry.js';
import type { DicomHeader } from './header-fields.js';
import { canDecode, readsAsGrey } from './pixel-format.js';
import { fitnessInputOf } from './fitness-input.js';
import { modalityWords, segmentationFitness } from './segmentation-fitness.js';
import { layoutSlices, type SliceLayout } from './slice-layout.js';
import { knownSyntax, transferSyntax } from './transfer-syntax.js';

/** Transfer syntaxes whose images lost detail when compressed. */
const LOSSY = new Set([
  '1.2.840.10008.1.2.4.50',
  '1.2.840.10008.1.2.4.51',
  '1.2.840.10008.1.2.4.81',
  '1.2.840.10008.1.2.4.91',
  '1.2.840.10008.1.2.4.203',
]);

export const isLossy = (transferSyntaxUid: string): boolean => LOSSY.has(transferSyntaxUid);

/** A stable id: the same files of the same series always get the same id. */
export function seriesId(seriesUid: string, displayPaths: string[]): string {
  // Resolved: a job records its scan's paths absolute (new-jobs.ts), and the scan read again from
  // them, from any folder, must get the id it had when given relative to where the command ran
  // (a review: a batch resumed from another folder failed as "no longer where they were").
  return digest16(`${seriesUid}\n${lines(displayPaths.map((p) => resolve(p)).sort())}`);
}

/** Each string followed by a newline, as one string: hashed in one update, not two per string. */
const lines = (items: string[]): string => (items.length > 0 ? `${items.join('\n')}\n` : '');

const digest16 = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);

/**
 * Describes one series (or one multi-frame file) and checks it, in words for a clinician.
 * `display` maps real paths to what the user knows them as (zip entries as archive/entry).
 */
export function summarizeSeries(
  headers: DicomHeader[],
  display: (path: string) => string,
  extraProblems: ScanProblem[] = [],
): { summary: SeriesSummary; layout: SliceLayout } {
  const first = headers[0]!;
  const { layout, problems: layoutProblems } = layoutSlices(headers);
  const problems: ScanProblem[] = [...extraProblems];
  const files = headers.map((h) => display(h.path));
  const ts = transferSyntax(first.transferSyntaxUid);
  const slices = layout.frames.length;

  // Slices are put together by their Series Instance UID: without one, a file is a scan of its own
  // (a review: 140 slices without it were listed as 140 single images, each "too few slices").
  if (!first.seriesUid && first.numberOfFrames <= 1) {
    problems.push({
      severity: 'error',
      code: 'no-series-uid',
      message:
        'This file has no Series Instance UID (0020,000E), which tells which slices make one scan, so it is listed alone and cannot be put together with the other slices of its scan. Export the series again from the scanner or PACS.',
    });
  }
  if (first.modality !== 'CT') {
    const words = modalityWords(first.modality);
    problems.push({
      severity: 'warning',
      code: 'not-ct',
      // A fact, not a verdict: the series' fitness says, in one place, that no model is made of it.
      message: `This is ${words}, not a CT or cone-beam CT scan.`,
    });
  }
  const colour = headers.find((h) => h.samplesPerPixel > 1 && !readsAsGrey(h));
  const palette = headers.find((h) => h.samplesPerPixel === 1 && h.photometric === 'PALETTE COLOR');
  // One sample per pixel is a density only as MONOCHROME1 or MONOCHROME2 (which differ in display
  // alone; the rescale gives the density either way): "XYZ" was called fit and made into a mesh.
  const notGrey = headers.find(
    (h) =>
      h.samplesPerPixel === 1 &&
      h.photometric !== 'MONOCHROME1' &&
      h.photometric !== 'MONOCHROME2' &&
      h.photometric !== 'PALETTE COLOR',
  );
  const noSamples = headers.find((h) => !(h.samplesPerPixel >= 1));
  const signedness = headers.find((h) => h.pixelRepresentation !== 0 && h.pixelRepresentation !== 1);
  if (noSamples) {
    problems.push({
      severity: 'error',
      code: 'pixel-format',
      message: `The images say each pixel holds ${noSamples.samplesPerPixel} values (Samples per Pixel), which cannot be: the files are damaged.`,
      file: display(noSamples.path),
    });
  } else if (palette) {
    problems.push({
      severity: 'error',
      code: 'colour-image',
      message:
        'These images are stored as palette colours (PALETTE COLOR): each pixel names a colour in a table, not a density, so they cannot be segmented.',
      file: display(palette.path),
    });
  } else if (notGrey) {
    problems.push({
      severity: 'error',
      code: 'pixel-format',
      message: `The images say their pixels are ${notGrey.photometric ? `"${notGrey.photometric}"` : 'of no stated kind'} (Photometric Interpretation), not the grey values (MONOCHROME1 or MONOCHROME2) of a scan, so what a pixel means cannot be known and they cannot be segmented: the files are damaged or not a scan. Export the series again from the scanner or PACS.`,
      file: display(notGrey.path),
    });
  } else if (signedness) {
    problems.push({
      severity: 'error',
      code: 'pixel-format',
      message: `The images give Pixel Representation ${signedness.pixelRepresentation}, which DICOM defines only as 0 (unsigned) or 1 (signed): whether a pixel's value is negative cannot be known, so its density cannot be read.`,
      file: display(signedness.path),
    });
  } else if (colour) {
    problems.push({
      severity: 'error',
      code: 'colour-image',
      message:
        'These are colour pictures (for example screenshots), not a grey-scale scan; they cannot be segmented.',
      file: display(colour.path),
    });
  } else if (![8, 16, 32].includes(first.bitsAllocated)) {
    problems.push({
      severity: 'error',
      code: 'pixel-format',
      message: `The images store ${first.bitsAllocated} bits per pixel, which scan2mesh cannot read.`,
      file: display(first.path),
    });
  }
  const otherPatient = firstOtherPatient(headers);
  if (otherPatient) {
    problems.push({
      severity: 'error',
      code: 'mixed-patients',
      // What differs, not the values: the other patient's identity is not shown where this one's is.
      message: `The files of this series are not all of one patient: the ${listWords(otherPatient.fields)} ${otherPatient.fields.length > 1 ? 'differ' : 'differs'} between them (for example in ${basename(display(otherPatient.header.path))}). A model is made of one patient's scan only; export the series again.`,
      file: display(otherPatient.header.path),
    });
  }
  // One scan is in one frame of reference, of one modality: slices of another frame of reference lie
  // in another coordinate system (a model would be put together of misplaced slices), and an MR slice
  // among CT ones holds no density (a review: both were made into models without a word).
  const otherFrame = headers.find((h) => h.frameOfReferenceUid !== first.frameOfReferenceUid);
  if (otherFrame) {
    const [a, b] = [basename(display(otherFrame.path)), basename(display(first.path))];
    const which = !first.frameOfReferenceUid
      ? `${a} states one, ${b} none`
      : !otherFrame.frameOfReferenceUid
        ? `${a} states none, ${b} one`
        : `${a} differs from ${b}`;
    problems.push({
      severity: 'error',
      code: 'mixed-frames-of-reference',
      message: `The files of this series do not all lie in one frame of reference (Frame of Reference UID; ${which}): their positions may be in different coordinate systems, so the slices cannot be placed together with confidence. Export the series again.`,
      file: display(otherFrame.path),
    });
  }
  const otherStudy = headers.find((h) => h.studyUid !== first.studyUid);
  if (otherStudy) {
    problems.push({
      severity: 'error',
      code: 'mixed-studies',
      message: `The files of this series do not all belong to one study (Study Instance UID; ${basename(display(otherStudy.path))} differs from ${basename(display(first.path))}): a slice of another examination may be among them. Export the series again.`,
      file: display(otherStudy.path),
    });
  }
  const otherModality = headers.find((h) => h.modality !== first.modality);
  if (otherModality) {
    problems.push({
      severity: 'error',
      code: 'mixed-modalities',
      message: `The files of this series are not all of one kind of scan (${modalityWords(first.modality)} and ${modalityWords(otherModality.modality)}, in ${basename(display(otherModality.path))}): their values do not form one volume. Export the series again.`,
      file: display(otherModality.path),
    });
  }
  // Another kind of image among the slices (a review: a Secondary Capture, which need not say where it
  // lies or what its values are, taken as one more CT slice without a word).
  const otherClass = headers.find((h) => h.sopClassUid.trim() !== first.sopClassUid.trim());
  if (otherClass) {
    problems.push({
      severity: 'error',
      code: 'mixed-image-kinds',
      message: `The files of this series are not all of one kind of image (SOP Class UID ${otherClass.sopClassUid || 'none'} in ${basename(display(otherClass.path))}, ${first.sopClassUid || 'none'} in ${basename(display(first.path))}): a screen capture or another object may be among the slices. Export the series again.`,
      file: display(otherClass.path),
    });
  }
  // A dynamic or 4D CT under one Series UID: its time points interleave, 0.5 mm apart or at the same
  // places, and a model of them all mixes two moments of the patient (a review: seen only by the
  // engine, as shifted slices).
  const times = new Set(headers.map((h) => h.temporalPosition).filter((t) => t !== undefined));
  if (times.size > 1) {
    const other = headers.find((h) => h.temporalPosition !== first.temporalPosition) ?? first;
    problems.push({
      severity: 'error',
      code: 'mixed-time-points',
      message: `The files of this series show ${times.size} time points of a scan repeated over time (Temporal Position Identifier: ${basename(display(other.path))} is at ${other.temporalPosition ?? 'none'}, ${basename(display(first.path))} at ${first.temporalPosition ?? 'none'}): a model is made of one moment of the patient. Export each time point as a series of its own.`,
      file: display(other.path),
    });
  }
  for (const p of layoutProblems) problems.push(p.file ? { ...p, file: display(p.file) } : p);
  if (slices === 1) {
    problems.push({
      severity: 'error',
      code: 'single-image',
      message: 'This series is a single image, not a 3D scan: a model needs a stack of slices.',
    });
  }
  // Too few slices for a jaw is the fitness check's to say (segmentation-fitness.ts), with its own
  // threshold: a second, softer warning here told the user something else.
  const syntaxes = new Set(headers.map((h) => h.transferSyntaxUid));
  const decodable = everyDecodes(headers);
  if (!/^(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))*$/.test(ts.uid)) {
    // Not a UID at all ("1.2.840.10008.1.2.1xyz"): the file's meta header is damaged.
    problems.push({
      severity: 'error',
      code: 'corrupt-file',
      message: `The files name their encoding "${ts.uid.replace(/[^\x20-\x7e]/g, '?').slice(0, 64)}" (Transfer Syntax UID), which is no UID: their meta header is damaged, and how their pixels are stored cannot be known.`,
    });
  } else if (!knownSyntax(ts.uid)) {
    problems.push({
      severity: 'info',
      code: 'compressed',
      message: `The images are stored in an encoding scan2mesh does not know (transfer syntax ${ts.uid}). A remote service may read them; this computer cannot show a preview of them or segment them with the local engine.`,
    });
  } else if (ts.compressed) {
    problems.push({
      severity: 'info',
      code: 'compressed',
      message: decodable
        ? `The images are compressed (${ts.name}). That is fine: they are uploaded as they are.`
        : `The images are compressed (${ts.name}). They can be uploaded as they are, but this computer cannot show a preview of them or segment them with the local engine.`,
    });
  }
  if ([...syntaxes].some((u) => LOSSY.has(u))) {
    problems.push({
      severity: 'warning',
      code: 'lossy-compression',
      message:
        'The images were compressed with loss of detail; fine structures such as root canals may be less accurate.',
    });
  }
  if (syntaxes.size > 1) {
    problems.push({
      severity: 'info',
      code: 'mixed-encodings',
      message: `The files of this series are stored in ${syntaxes.size} different encodings; they are read alike.`,
    });
  }

  const errors = problems.some((p) => p.severity === 'error');
  const fitness = segmentationFitness(
    fitnessInputOf(
      headers,
      layout,
      problems.filter((p) => p.severity === 'error'),
    ),
  );
  const seriesUid = first.seriesUid;
  const summary: SeriesSummary = {
    id: seriesId(seriesUid || first.path, files),
    patient: { name: first.patientName, id: first.patientId, birthDate: first.patientBirthDate },
    study: { date: first.studyDate, description: first.studyDescription, uid: first.studyUid },
    seriesUid,
    seriesDescription: first.seriesDescription,
    modality: first.modality,
    manufacturer: first.manufacturer,
    rows: layout.rows,
    columns: layout.columns,
    slices,
    pixelSpacing: layout.pixelSpacing,
    sliceSpacing: layout.sliceSpacing,
    gridStep: layout.stack.step,
    orientation: { cosines: layout.orientation, plane: planeName(layout.orientation) },
    origin: layout.frames[0]!.position,
    bitsAllocated: first.bitsAllocated,
    bitsStored: first.bitsStored,
    transferSyntax: { uid: ts.uid, name: ts.name, compressed: ts.compressed },
    multiFrame: headers.length === 1 && first.numberOfFrames > 1,
    totalBytes: headers.reduce((s, h) => s + h.fileSize, 0),
    fileCount: headers.length,
    previewable: decodable && !errors,
    problems: sortProblems(problems),
    fitness,
  };
  if (first.seriesNumber !== undefined) summary.seriesNumber = first.seriesNumber;
  if (!layout.pixelSpacingKnown) summary.pixelSpacingUnknown = true;
  if (!layout.sliceSpacingKnown) summary.sliceSpacingUnknown = true;
  const burnedIn = firstBurnedIn(headers);
  if (burnedIn) summary.burnedInAnnotation = burnedIn;
  summary.instancesKey = instancesKey(headers, display);
  return { summary, layout };
}

/*
 * The checks below run once per file of a series, whose files mostly say the same: each asks again
 * only when a file says something else than the one before it.
 */

function everyDecodes(headers: DicomHeader[]): boolean {
  let last: DicomHeader | undefined;
  for (let i = 0; i < headers.length; i++) {
    const h = headers[i]!;
    if (last && h.transferSyntaxUid === last.transferSyntaxUid && h.bitsAllocated === last.bitsAllocated)
      continue;
    if (!canDecode(h)) return false;
    last = h;
  }
  return true;
}

/**
 * The first file whose patient (Patient's Name, Patient ID or Patient's Birth Date) is not the first
 * file's, and which of the three differ. Compared exactly, but for padding: one letter or digit
 * apart may be another person.
 */
function firstOtherPatient(headers: DicomHeader[]): { header: DicomHeader; fields: string[] } | undefined {
  const first = headers[0]!;
  for (let i = 1; i < headers.length; i++) {
    const h = headers[i]!;
    if (
      h.patientName === first.patientName &&
      h.patientId === first.patientId &&
      h.patientBirthDate === first.patientBirthDate
    )
      continue;
    const fields: string[] = [];
    if (differs(h.patientName, first.patientName)) fields.push("patient's name");
    if (differs(h.patientId, first.patientId)) fields.push('patient ID');
    if (differs(h.patientBirthDate, first.patientBirthDate)) fields.push('birth date');
    if (fields.length > 0) return { header: h, fields };
  }
  return undefined;
}

const differs = (a: string, b: string): boolean => a !== b && a.trim() !== b.trim();

/** "a", "a and b", "a, b and c". */
const listWords = (items: string[]): string =>
  items.length > 1 ? `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}` : (items[0] ?? '');

/** The first reason any file gives for patient data in its pixels. */
function firstBurnedIn(headers: DicomHeader[]): string | undefined {
  let last: DicomHeader | undefined;
  for (let i = 0; i < headers.length; i++) {
    const h = headers[i]!;
    if (
      last &&
      h.burnedInAnnotation === last.burnedInAnnotation &&
      h.recognizableVisualFeatures === last.recognizableVisualFeatures &&
      h.imageType === last.imageType &&
      h.modality === last.modality &&
      h.sopClassUid === last.sopClassUid
    )
      continue;
    // The same facts packaging checks (burned-in.ts), so that the card says before Submit what
    // packaging would refuse without acceptance; flags inside functional groups only packaging reads.
    const reason = burnedInReason({
      burnedInAnnotation: h.burnedInAnnotation ?? '',
      modality: h.modality,
      sopClassUid: h.sopClassUid,
      recognizableVisualFeatures: h.recognizableVisualFeatures ?? '',
      imageType: h.imageType.split('\\'),
    });
    if (reason !== undefined) return reason;
    last = h;
  }
  return undefined;
}

/** What the images are, wherever they lie: for telling the same series dropped twice. */
export function instancesKey(headers: DicomHeader[], display: (path: string) => string): string {
  const keys = headers.map((h) => {
    if (h.sopInstanceUid) return `uid:${h.sopInstanceUid}`;
    const name = display(h.path).split(/[\\/]/).pop() ?? '';
    return `file:${name}:${h.fileSize}`;
  });
  return digest16(lines(keys.sort()));
}

const RANK = { error: 0, warning: 1, info: 2 } as const;

export function sortProblems(problems: ScanProblem[]): ScanProblem[] {
  return [...problems].sort((a, b) => RANK[a.severity] - RANK[b.severity]);
}
