import { basename } from 'node:path';
import type { DicomHeader } from './header-fields.js';

const DICOMDIR_SOP_CLASS = '1.2.840.10008.1.3.10';

/** Words for SOP classes that carry no image, so the user learns what the file was. */
const NON_IMAGE_CLASSES: [RegExp, string][] = [
  [/^1\.2\.840\.10008\.5\.1\.4\.1\.1\.88\./, 'a structured report (text), not an image'],
  [/^1\.2\.840\.10008\.5\.1\.4\.1\.1\.481\.(5|8)$/, 'a radiotherapy plan, not an image'],
  [/^1\.2\.840\.10008\.5\.1\.4\.1\.1\.481\.3$/, 'a radiotherapy structure set, not an image'],
  [/^1\.2\.840\.10008\.5\.1\.4\.1\.1\.481\.2$/, 'a radiotherapy dose, not a scan'],
  [/^1\.2\.840\.10008\.5\.1\.4\.1\.1\.104\.1$/, 'a PDF document stored as DICOM, not an image'],
  [/^1\.2\.840\.10008\.5\.1\.4\.1\.1\.11\./, 'display settings (a presentation state), not an image'],
  [/^1\.2\.840\.10008\.5\.1\.4\.1\.1\.66/, 'a registration or segmentation object, not an image'],
  [/^1\.2\.840\.10008\.5\.1\.4\.1\.1\.9\./, 'a waveform (ECG or similar), not an image'],
  [/^1\.2\.840\.10008\.5\.1\.4\.1\.1\.130$/, 'an enhanced PET object we do not read'],
];

/**
 * Storage classes of images (PS3.4 B.5): CT, Enhanced and Legacy Converted CT, MR, CR, DX, intra-oral,
 * secondary capture, PET, NM, ultrasound, XA. A file of one without image data lost its image (a
 * sequence item without its end marker swallowed it, in a review): a damaged slice, not a document.
 */
const IMAGE_CLASS =
  /^1\.2\.840\.10008\.5\.1\.4\.1\.1\.(1|1\.1|1\.1\.1|1\.1\.3|1\.1\.3\.1|2|2\.1|2\.2|4|4\.1|4\.4|6\.1|7|7\.[1-4]|12\.1|20|128|128\.1)$/;

/** Whether an Image Type names a localizer (a scout, the overview taken to plan a scan). */
export const isLocalizer = (imageType: string): boolean => /(^|\\)\s*LOCALIZER\s*(\\|$)/i.test(imageType);

/** Whether a file without image data says it is an image (its class): then it is damaged. */
export function imageWithoutPixels(h: DicomHeader, sopClassMeta: string): boolean {
  return !h.pixelData && (IMAGE_CLASS.test(h.sopClassUid) || IMAGE_CLASS.test(sopClassMeta));
}

/**
 * Why a DICOM file is not an image to use, or null when it is one.
 * `sopClassMeta` is the meta header's Media Storage SOP Class, which a DICOMDIR has instead of an SOP class.
 */
export function nonImageReason(
  h: DicomHeader,
  hasDirectoryRecords: boolean,
  sopClassMeta: string,
): string | null {
  if (
    sopClassMeta === DICOMDIR_SOP_CLASS ||
    hasDirectoryRecords ||
    basename(h.path).toUpperCase() === 'DICOMDIR'
  ) {
    // Said so that it fits both drops: the DICOMDIR alone (nothing read) and its folder (images read).
    return 'a DICOMDIR index: it lists the images of a disc but holds none; to read them, drop the folder that holds the DICOMDIR';
  }
  if (h.pixelData) return null;
  for (const [re, words] of NON_IMAGE_CLASSES) if (re.test(h.sopClassUid)) return words;
  return `DICOM without image data${h.modality ? ` (${h.modality})` : ''}`;
}

/** What a non-DICOM file is, from its name and first bytes, in a few plain words. */
export function nonDicomReason(name: string, head: Uint8Array, size: number): string {
  const base = basename(name);
  const lower = base.toLowerCase();
  if (size === 0) return 'an empty file';
  if (lower === 'thumbs.db') return 'a Windows thumbnail cache, not DICOM';
  if (lower === '.ds_store' || base.startsWith('._')) return 'macOS folder information, not DICOM';
  if (lower === 'desktop.ini') return 'Windows folder settings, not DICOM';
  const starts = (...bytes: number[]): boolean => bytes.every((b, i) => head[i] === b);
  if (starts(0xff, 0xd8, 0xff)) return 'a JPEG picture, not DICOM';
  if (starts(0x89, 0x50, 0x4e, 0x47)) return 'a PNG picture, not DICOM';
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'a GIF picture, not DICOM';
  if (starts(0x42, 0x4d)) return 'a bitmap picture, not DICOM';
  if (starts(0x49, 0x49, 0x2a, 0x00) || starts(0x4d, 0x4d, 0x00, 0x2a)) return 'a TIFF picture, not DICOM';
  if (starts(0x25, 0x50, 0x44, 0x46)) return 'a PDF document, not DICOM';
  if (starts(0x4d, 0x5a)) return 'a program (for example a disc viewer), not DICOM';
  if (starts(0x37, 0x7a, 0xbc, 0xaf) || starts(0x52, 0x61, 0x72, 0x21))
    return 'a 7-Zip or RAR archive, which scan2mesh cannot open (use zip)';
  if (isTar(head))
    return 'a tar archive, which scan2mesh does not read: drop the folder itself, or a zip of it';
  if (
    starts(0x42, 0x5a, 0x68) ||
    starts(0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00) ||
    starts(0x28, 0xb5, 0x2f, 0xfd)
  )
    return 'a bzip2, xz or zstd compressed file, which scan2mesh cannot open (use zip)';
  if (starts(0xd0, 0xcf, 0x11, 0xe0)) return 'an Office document, not DICOM';
  // Meshes are what the app makes, not what it reads in a drop: said by name, so the user knows where
  // they go (an ASCII STL or OBJ would otherwise read as "a text file").
  const mesh = /\.(stl|ply|obj|off|3mf|drc|glb|gltf)$/i.exec(lower);
  if (mesh) return `a 3D mesh (${mesh[1]!.toUpperCase()}), not a scan: open meshes in the Viewer`;
  if (/\.(html?|xml|txt|csv|json|inf|ini|log|md)$/i.test(lower) || looksLikeText(head))
    return 'a text file, not DICOM';
  return 'not a DICOM file (its content is not DICOM, whatever its name)';
}

/** POSIX and GNU tar put "ustar" at byte 257 of every member's header (a .tar.gz shows it once gunzipped). */
function isTar(head: Uint8Array): boolean {
  const USTAR = [0x75, 0x73, 0x74, 0x61, 0x72];
  return head.length >= 262 && USTAR.every((b, i) => head[257 + i] === b);
}

function looksLikeText(head: Uint8Array): boolean {
  if (head.length === 0) return false;
  let printable = 0;
  for (const b of head) if (b === 9 || b === 10 || b === 13 || (b >= 32 && b < 127) || b >= 0xc2) printable++;
  return printable / head.length > 0.95;
}

/** System errors in words; the errno itself is for the log only. */
const SYSTEM_WORDS: Record<string, string> = {
  ENOENT: 'it no longer exists',
  EACCES: 'you are not allowed to read it',
  EPERM: 'you are not allowed to read it',
  EISDIR: 'it is a folder',
  EIO: 'the disk could not read it',
  EBUSY: 'another program holds it',
  EMFILE: 'too many files are open at once',
  ENFILE: 'too many files are open at once',
  ELOOP: 'it is a loop of links',
  ENAMETOOLONG:
    "it sits in so many folders that its full path is longer than the system allows; move the scan's folder nearer the top of the disk",
};

/** Why a file could not be read, in words, from a system error. */
export function unreadableWords(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return (code && SYSTEM_WORDS[code]) ?? 'the system would not give its content';
}
