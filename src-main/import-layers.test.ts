// The layering of architecture.md, kept by a test that walks every import (type imports included):
// a lower floor never imports a higher one, engine/ and service/ never import each other, and no
// import circle exists anywhere. A failure names the file and the import that broke the rule.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Floors from the bottom; folders on one floor may import each other unless listed as apart below. */
const FLOORS: string[][] = [
  ['src-shared'],
  ['src-main/logging', 'src-main/settings', 'src-main/secrets', 'src-main/platform'],
  ['src-main/scans'],
  ['src-main/engine', 'src-main/service'],
  ['src-main/connections'],
  ['src-main/jobs'],
  ['src-main/app'],
  ['src-main/transport'],
  ['src-main/cli'],
  ['src-main/electron'],
];
/** Side by side on one floor, neither may import the other: the engine is a service, not a client. */
const APART = [['src-main/engine', 'src-main/service']];

function isShipped(file: string): boolean {
  return !/\.test\.tsx?$|\.test-support\.tsx?$|\.d\.ts$/.test(file);
}

function sourceFiles(dir: string, out: string[] = [], kind = /\.tsx?$/): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) sourceFiles(p, out, kind);
    else if (kind.test(e.name)) out.push(p);
  }
  return out;
}

const files = ['src-shared', 'src-main', 'src-renderer'].flatMap((d) => sourceFiles(join(ROOT, d)));
const known = new Set(files);
const rel = (f: string): string => relative(ROOT, f).split(sep).join('/');

function resolveImport(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec);
  const stem = base.replace(/\.(c|m)?js$/, '');
  return [base, `${stem}.ts`, `${stem}.tsx`, join(base, 'index.ts')].find((c) => known.has(c));
}

/** Every relative import, re-export and dynamic import of a file, resolved to a source file. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((i) => resolveImport(file, i.fileName)).filter((f): f is string => !!f);
}

const graph = new Map(files.map((f) => [f, importsOf(f)]));

function placeOf(file: string): { floor: number; room: string } | undefined {
  const r = rel(file);
  for (const [floor, rooms] of FLOORS.entries())
    for (const room of rooms) if (r === room || r.startsWith(`${room}/`)) return { floor, room };
  return undefined;
}

describe('import layers', () => {
  it('places every src-main folder on a floor', () => {
    const unplaced = files.filter((f) => rel(f).startsWith('src-main/') && rel(f).split('/').length > 2);
    expect(unplaced.filter((f) => !placeOf(f)).map(rel)).toEqual([]);
  });

  it('never imports from a higher floor, nor between engine and service', () => {
    const broken: string[] = [];
    for (const [file, deps] of graph) {
      if (!isShipped(file)) continue;
      const from = placeOf(file);
      if (!from) continue;
      for (const dep of deps) {
        const to = placeOf(dep);
        if (!to) continue;
        const apart = APART.some(
          (pair) => pair.includes(from.room) && pair.includes(to.room) && from.room !== to.room,
        );
        if (to.floor > from.floor || apart) broken.push(`${rel(file)} -> ${rel(dep)}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('keeps the renderer and the main process apart (only types and src-shared cross)', () => {
    const crossing: string[] = [];
    for (const [file, deps] of graph) {
      const side = rel(file).split('/')[0];
      for (const dep of deps) {
        const other = rel(dep).split('/')[0];
        if (side !== other && other !== 'src-shared' && isShipped(file))
          crossing.push(`${rel(file)} -> ${rel(dep)}`);
      }
    }
    expect(crossing).toEqual([]);
  });

  it('has no import circle', () => {
    // Tarjan's strongly connected components: any component of more than one file is a circle.
    let index = 0;
    const stack: string[] = [];
    const onStack = new Set<string>();
    const indexOf = new Map<string, number>();
    const low = new Map<string, number>();
    const circles: string[][] = [];
    const visit = (v: string): void => {
      indexOf.set(v, index);
      low.set(v, index++);
      stack.push(v);
      onStack.add(v);
      for (const w of graph.get(v) ?? []) {
        if (!indexOf.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
      }
      if (low.get(v) === indexOf.get(v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(rel(w));
        } while (w !== v);
        if (component.length > 1 || (graph.get(v) ?? []).includes(v)) circles.push(component.sort());
      }
    };
    for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
    expect(circles).toEqual([]);
  });

  it('keeps every shipped source file (styles too) under 400 lines', () => {
    const styles = sourceFiles(join(ROOT, 'src-renderer'), [], /\.css$/);
    const long = [...files, ...styles]
      .filter(isShipped)
      .filter((f) => readFileSync(f, 'utf8').split('\n').length > 400)
      .map(rel);
    expect(long).toEqual([]);
  });
});
