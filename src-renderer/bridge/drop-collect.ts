import type { DroppedItem } from './dropped-item';

/**
 * Turns what the user dropped into files with their paths inside dropped folders. The entries must be
 * taken from the DataTransfer while the drop event is being handled (the browser empties it
 * afterwards), so this is split in a synchronous grab and an asynchronous walk.
 */
interface GrabbedDrop {
  entries: FileSystemEntry[];
  /** Files that came without a file-system entry (e.g. a DataTransfer built by a page). */
  loose: File[];
}

export function grabDrop(dt: DataTransfer): GrabbedDrop {
  const entries: FileSystemEntry[] = [];
  const loose: File[] = [];
  const items = [...dt.items].filter((i) => i.kind === 'file');
  if (items.length === 0) return { entries, loose: [...dt.files] };
  for (const item of items) {
    const entry = typeof item.webkitGetAsEntry === 'function' ? item.webkitGetAsEntry() : null;
    if (entry) entries.push(entry);
    else {
      const f = item.getAsFile();
      if (f) loose.push(f);
    }
  }
  return { entries, loose };
}

function readBatch(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((ok, fail) => reader.readEntries(ok, fail));
}

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((ok, fail) => entry.file(ok, fail));
}

async function walk(entry: FileSystemEntry, root: number, out: DroppedItem[]): Promise<void> {
  if (entry.isFile) {
    const file = await fileOf(entry as FileSystemFileEntry);
    out.push({ file, relativePath: entry.fullPath.replace(/^\/+/, ''), root });
    return;
  }
  if (entry.isDirectory) {
    const reader = (entry as FileSystemDirectoryEntry).createReader();
    // readEntries hands out a directory in batches (100 in Chromium) until it returns an empty one.
    for (;;) {
      const batch = await readBatch(reader);
      if (batch.length === 0) break;
      for (const child of batch) await walk(child, root, out);
    }
  }
}

export async function walkDrop(grabbed: GrabbedDrop): Promise<DroppedItem[]> {
  const out: DroppedItem[] = [];
  const { entries, loose } = grabbed;
  for (let k = 0; k < entries.length; k++) await walk(entries[k]!, k, out);
  loose.forEach((file, k) => out.push({ ...itemFromPicked(file), root: entries.length + k }));
  return out;
}

/** A file from a file input; from a folder input it carries its path inside the chosen folder. */
export function itemFromPicked(file: File): DroppedItem {
  return file.webkitRelativePath ? { file, relativePath: file.webkitRelativePath } : { file };
}

/** Whether a drag carries files (and not text or a link being dragged around the page). */
export function dragHasFiles(dt: DataTransfer | null): boolean {
  return !!dt && [...dt.types].includes('Files');
}
