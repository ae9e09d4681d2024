/**
 * What the user calls a scan given as a file: its name without the endings of the archives and DICOM
 * files intake reads, "patient7.zip" -> "patient7", "vol.dcm.gz" -> "vol", "x.tar.gz" -> "x".
 * Endings are taken off only as long as they are these, so "CT 2026.11.30.zip" keeps its dots.
 */
export function scanFileStem(fileName: string): string {
  return fileName.replace(/(\.(zip|gz|tgz|tar|dcm|dicom))+$/i, '');
}
