import { describe, expect, it } from 'vitest';
import { walkDrop } from './drop-collect';

/**
 * Node has no browser file-system entries and a synthetic drop in a browser cannot carry a folder, so
 * the folder walk is checked against small stand-ins that follow the entry API's contract, including
 * its habit of handing out a directory in batches until an empty one.
 */
type Node = { name: string; children?: Node[] };

function entry(node: Node, parent: string): FileSystemEntry {
  const fullPath = `${parent}/${node.name}`;
  if (!node.children)
    return {
      isFile: true,
      isDirectory: false,
      name: node.name,
      fullPath,
      file: (ok: (f: File) => void) => ok(new File([fullPath], node.name)),
    } as unknown as FileSystemEntry;
  const children = node.children;
  return {
    isFile: false,
    isDirectory: true,
    name: node.name,
    fullPath,
    createReader: () => {
      let next = 0;
      return {
        readEntries: (ok: (e: FileSystemEntry[]) => void) => {
          const batch = children.slice(next, next + 2).map((c) => entry(c, fullPath));
          next += 2;
          setTimeout(() => ok(batch), 0);
        },
      };
    },
  } as unknown as FileSystemEntry;
}

describe('walkDrop', () => {
  it('walks dropped folders in every batch and keeps paths relative to the drop', async () => {
    const folder: Node = {
      name: 'ct-head',
      children: [
        { name: 'I10' },
        { name: 'I20' },
        { name: 'I30' },
        { name: 'sub', children: [{ name: 'I40' }] },
        { name: 'I50' },
      ],
    };
    const items = await walkDrop({
      entries: [entry(folder, ''), entry({ name: 'scan.dcm' }, '')],
      loose: [],
    });
    expect(items.map((i) => i.relativePath)).toEqual([
      'ct-head/I10',
      'ct-head/I20',
      'ct-head/I30',
      'ct-head/sub/I40',
      'ct-head/I50',
      'scan.dcm',
    ]);
    expect(await items[3]!.file.text()).toBe('/ct-head/sub/I40');
    // Which dropped thing each file came from: web mode copies two of one name apart.
    expect(items.map((i) => i.root)).toEqual([0, 0, 0, 0, 0, 1]);
  });

  it('keeps files that came without an entry, by their own name', async () => {
    const items = await walkDrop({
      entries: [entry({ name: 'scan.dcm' }, '')],
      loose: [new File(['x'], 'notes.txt'), new File(['y'], 'notes.txt')],
    });
    expect(items.slice(1)).toEqual([
      { file: expect.any(File), root: 1 },
      { file: expect.any(File), root: 2 },
    ]);
    expect(items[1]!.file.name).toBe('notes.txt');
  });
});
