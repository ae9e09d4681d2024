// Fitness of real slices whose headers a test changed, for the fitness tests.
import type { DicomHeader } from './header-fields.js';
import { fitnessInputOf } from './fitness-input.js';
import { segmentationFitness } from './segmentation-fitness.js';
import { layoutSlices } from './slice-layout.js';
import { readSeriesHeaders, volumeFromHeaders } from './volume-reader.js';

/** The fitness of the files' headers, each changed by `edit`, and the layout's problems. */
export async function fitnessOf(
  files: string[],
  edit?: (h: DicomHeader, index: number) => void,
): Promise<ReturnType<typeof segmentationFitness> & { problems: string[] }> {
  const headers = await readSeriesHeaders(files);
  if (edit) headers.forEach(edit);
  const { layout, problems } = layoutSlices(headers);
  return {
    ...segmentationFitness(fitnessInputOf(headers, layout, problems)),
    problems: problems.map((p) => `${p.severity} ${p.code}`),
  };
}

/** Why the volume read for a model refuses the files, edited as given (it must refuse them). */
export async function engineRefusal(
  files: string[],
  edit: (h: DicomHeader, index: number) => void,
): Promise<string> {
  const headers = await readSeriesHeaders(files);
  headers.forEach(edit);
  return volumeFromHeaders(headers, undefined, { requireFit: true }).then(
    () => 'read',
    (e: unknown) => (e as Error).message,
  );
}

export const setFrames =
  (change: (fr: DicomHeader['frames'][number], index: number) => void) => (h: DicomHeader, i: number) => {
    for (const fr of h.frames) change(fr, i);
  };
