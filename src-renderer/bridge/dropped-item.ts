/** A file the user dropped or picked, with its path inside a dropped folder (web mode needs it to rebuild folders). */
export interface DroppedItem {
  file: File;
  relativePath?: string;
  /**
   * Which of the things dropped together it came from (a drop's folders and files, in order): two
   * dropped folders of one name are two things, whose files web mode must not copy into one folder.
   * Unset for picked files, which come from one folder.
   */
  root?: number;
}
