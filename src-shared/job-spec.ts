import { z } from 'zod';

/**
 * What a job asks of the service, in the app's own terms, and the wire shapes of the service
 * interface (service-interface.md §2) built from it and read back. Response schemas are loose:
 * the service sends fields beyond the ones shown, and those must not break the client.
 */

export const MESH_EXTENSIONS = ['.stl', '.ply', '.obj', '.drc'] as const;
export type KnownMeshExtension = (typeof MESH_EXTENSIONS)[number];
/** The four known ones; other names starting with a dot pass through to the service, which is the authority. */
export type MeshExtension = KnownMeshExtension | `.${string}`;

const ExtensionSchema = z
  .string()
  .regex(/^\.[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/, 'An extension starts with a dot, e.g. ".stl" or ".nii.gz".');

const InputSpecSchema = z.object({
  extension: ExtensionSchema,
  /** Pre-signed address on the client's own storage; the service fetches the input and no upload happens. */
  downloadUrl: z.string().url().optional(),
});
export type InputSpec = z.infer<typeof InputSpecSchema>;

const MeshOutputSpecSchema = z.object({
  extension: ExtensionSchema as z.ZodType<MeshExtension>,
  /** Several structures in one output are merged into one mesh file. */
  structures: z.array(z.string().min(1)).min(1, 'A mesh output needs at least one structure.'),
  /** Pre-signed address on the client's own storage; the service uploads the result there. */
  uploadUrl: z.string().url().optional(),
});
export type MeshOutputSpec = z.infer<typeof MeshOutputSpecSchema>;

export const JobSpecSchema = z.object({
  inputs: z
    .record(z.string().min(1), InputSpecSchema)
    .refine((r) => Object.keys(r).length > 0, 'A job needs at least one input, e.g. "cbct".'),
  meshes: z.array(MeshOutputSpecSchema).min(1, 'A job needs at least one mesh output.'),
  /** Passed through untouched, e.g. { mandible: { smoothingIterations: 0, decimateMaxError: 0.1 } }. */
  options: z.record(z.string(), z.unknown()).optional(),
  finishWebhook: z.string().url().optional(),
  endUserId: z.string().min(1).optional(),
  cloudPackage: z.string().min(1).optional(),
});
export type JobSpec = z.infer<typeof JobSpecSchema>;

/** The job request body (§2.1) as it goes on the wire. */
interface JobBody {
  inputFiles: Record<string, { extension: string; downloadUrl?: string }>;
  outputFiles: { meshes: { extension: string; structures: string[]; uploadUrl?: string }[] };
  options?: Record<string, unknown>;
  finishWebhook?: string;
  endUserId?: string;
  cloudPackage?: string;
}

export function buildJobBody(spec: JobSpec): JobBody {
  const inputFiles: JobBody['inputFiles'] = {};
  for (const [name, input] of Object.entries(spec.inputs)) {
    inputFiles[name] = input.downloadUrl
      ? { extension: input.extension, downloadUrl: input.downloadUrl }
      : { extension: input.extension };
  }
  const body: JobBody = {
    inputFiles,
    outputFiles: {
      meshes: spec.meshes.map((m) =>
        m.uploadUrl
          ? { extension: m.extension, structures: [...m.structures], uploadUrl: m.uploadUrl }
          : { extension: m.extension, structures: [...m.structures] },
      ),
    },
  };
  if (spec.options !== undefined) body.options = spec.options;
  if (spec.finishWebhook !== undefined) body.finishWebhook = spec.finishWebhook;
  if (spec.endUserId !== undefined) body.endUserId = spec.endUserId;
  if (spec.cloudPackage !== undefined) body.cloudPackage = spec.cloudPackage;
  return body;
}

/** The job body as a server reads it (the local engine): the shown fields checked, the rest tolerated. */
export const JobBodySchema = z.looseObject({
  inputFiles: z.record(
    z.string().min(1),
    z.looseObject({ extension: ExtensionSchema, downloadUrl: z.string().url().optional() }),
  ),
  outputFiles: z.looseObject({
    meshes: z
      .array(
        z.looseObject({
          extension: ExtensionSchema,
          structures: z.array(z.string().min(1)).min(1),
          uploadUrl: z.string().url().optional(),
        }),
      )
      .min(1),
  }),
  options: z.record(z.string(), z.unknown()).optional(),
  finishWebhook: z.string().url().optional(),
  endUserId: z.string().optional(),
  cloudPackage: z.string().optional(),
});

/** §2.2 */
export const CreateJobResponseSchema = z.looseObject({
  jobId: z.string().min(1),
  /** Absent or partial when inputs come from client-hosted download addresses. */
  presignedUploadUrl: z
    .record(
      z.string(),
      z.looseObject({
        presignedUploadUrl: z.string().min(1),
        notifyFinishUploadUrl: z.string().min(1),
      }),
    )
    .optional(),
});
export type CreateJobResponse = z.infer<typeof CreateJobResponseSchema>;

/** The one `status` value the interface shows; any other is treated as a failed output. */
export const OUTPUT_AVAILABLE = 'Available';
/** The local engine's status for a mesh it would not make (its message says why); not in the interface. */
export const OUTPUT_REFUSED = 'Refused';

/**
 * A field beyond those §2.3 shows: "the response contains further fields beyond these; they are not
 * shown", so another service may give the same name another type. Read as text when it is text, and
 * otherwise left aside: never a reason to refuse the answer.
 */
const extraText = z
  .unknown()
  .transform((v) => (typeof v === 'string' ? v : undefined))
  .optional();

/** §2.3, one record of outputFiles.meshes. */
const MeshResultSchema = z.looseObject({
  status: z.string(),
  /**
   * "Size of the file; unit not shown": a hint, never a check on its own (see output-place.ts).
   * Absent is tolerated for outputs delivered to a client-hosted uploadUrl; one that is no count of
   * bytes (null, a fraction, text, past 2^53) is dropped, not a reason to leave the meshes behind.
   */
  size: z
    .unknown()
    .transform((v) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined))
    .optional(),
  extension: z.string(),
  structures: z.array(z.string()),
  /** Pre-signed download address; absent when the output went to a client-hosted uploadUrl. */
  url: z.string().min(1).optional(),
  /** The local engine says here what it did (e.g. "bone surface, not separated from the skull"). */
  note: extraText,
});
export type MeshResult = z.infer<typeof MeshResultSchema>;

/** §2.3: the poll response when finished. */
export const PollResultSchema = z
  .looseObject({
    success: z.boolean(),
    outputFiles: z.looseObject({ meshes: z.array(MeshResultSchema).optional() }).optional(),
    /** Not in the interface; read when it is text, to say why a job failed. */
    message: extraText,
  })
  .superRefine((r, ctx) => {
    if (r.success && !r.outputFiles?.meshes)
      ctx.addIssue({
        code: 'custom',
        path: ['outputFiles', 'meshes'],
        message: 'a finished job lists its meshes',
      });
  });
export type PollResult = z.infer<typeof PollResultSchema>;

/** §9: the version segment v2 and older creates jobs at /generic-job, later versions at /job. */
export function jobCreationPath(version: string): '/job' | '/generic-job' {
  const m = /^v(\d+)(?:\.\d+)*$/i.exec(version);
  return m && Number(m[1]) <= 2 ? '/generic-job' : '/job';
}

/**
 * File name of a mesh output: its structures joined by '+', then the extension, reduced to characters
 * that are safe on every file system ("left_nerve+right_nerve.stl").
 */
export function meshFileName(structures: string[], extension: string): string {
  const stem = structures.map(sanitizeFileNamePart).filter(Boolean).join('+') || 'mesh';
  const ext = extension.startsWith('.') ? '.' + sanitizeFileNamePart(extension.slice(1)) : '';
  return stem.slice(0, 150) + ext;
}

/**
 * Names Windows keeps for devices: with any extension too (`aux.scan`, `CON.txt` cannot be made), a
 * space before the dot, and COM/LPT with a digit or a superscript digit (COM¹); CONIN$ and CONOUT$
 * on newer versions.
 */
const WINDOWS_RESERVED =
  /^(con|prn|aux|nul|conin\$|conout\$|(com|lpt)[0-9\u00b9\u00b2\u00b3\u2074-\u2079]) *(\..*)?$/i;

/**
 * A part's most UTF-16 units, and UTF-8 bytes: most file systems allow 255 bytes a name, and 120
 * letters of a script written in 3 bytes each (CJK) would be 360; the rest leaves room for " (2)".
 */
const MAX_PART_UNITS = 120;
const MAX_PART_BYTES = 240;

/** One path segment safe on Windows, macOS and Linux; never '.' or '..'; '' when nothing is left. */
export function sanitizeFileNamePart(text: string): string {
  const cleaned = cutWhole(
    text
      .normalize('NFC')
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u001f<>:"/\\|?*]+/g, '_')
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/^\.+/, '_'),
  )
    // After the cut, which can end on a dot or a space: Windows drops both from a name's end.
    .replace(/[. ]+$/, '');
  if (!cleaned) return '';
  return WINDOWS_RESERVED.test(cleaned) ? `_${cleaned}` : cleaned;
}

/**
 * Bytes of `text` in UTF-8, from its code points (src-shared has no TextEncoder: it is typed for
 * every side, Node's and the page's alike). A lone surrogate counts as U+FFFD does: 3 bytes.
 */
function utf8Length(text: string): number {
  let bytes = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/**
 * `base` made safe (sanitizeFileNamePart) and cut short enough that `suffix` ("-2") still fits after
 * it: a suffix added to a name at the limit was cut off again where the path was made, so a long
 * name's "-2" folder was the first one's. '' when nothing of `base` is left.
 */
export function fileNamePartWithSuffix(base: string, suffix: string): string {
  const safe = sanitizeFileNamePart(base);
  if (!safe) return '';
  const cut = cutWhole(safe, MAX_PART_UNITS - suffix.length, MAX_PART_BYTES - utf8Length(suffix));
  return `${cut.replace(/[. ]+$/, '')}${suffix}`;
}

/**
 * The longest start of `text` within the limits that ends between two characters as a reader sees
 * them (grapheme clusters): a cut by UTF-16 unit split an emoji's surrogate pair into a replacement
 * character, and a cut by code point can still part a letter from its accent or a flag's halves.
 * One cluster past the limits on its own (a letter with a hundred marks) is cut by code point.
 */
function cutWhole(text: string, maxUnits = MAX_PART_UNITS, maxBytes = MAX_PART_BYTES): string {
  if (text.length <= maxUnits && utf8Length(text) <= maxBytes) return text;
  const fits = (pieces: Iterable<string>): string => {
    let out = '';
    let bytes = 0;
    for (const piece of pieces) {
      const size = utf8Length(piece);
      if (out.length + piece.length > maxUnits || bytes + size > maxBytes) break;
      out += piece;
      bytes += size;
    }
    return out;
  };
  const clusters = new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text);
  return fits([...clusters].map((c) => c.segment)) || fits(text);
}
