/** A file the user dropped or picked, with its path inside a dropped folder (web mode needs it to rebuild folders). */
export interface DroppedItem {
  file: File;
  relativePath?: string;
}
