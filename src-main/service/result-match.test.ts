import { describe, expect, it } from 'vitest';
import type { MeshResult } from '../../src-shared/job-spec.js';
import { matchResults, notListed, OUTPUT_LISTED_TWICE } from './result-match.js';

const rec = (structures: string[], extension = '.stl', url = structures.join('+')): MeshResult => ({
  status: 'Available',
  extension,
  structures,
  url,
});

describe('which result record is which requested mesh', () => {
  it('goes by names, never by place: records in another order, the teeth listed as the teeth', () => {
    // A review's service: skull.stl and all_teeth.stl were both the skull's file, matched by position.
    const teeth = rec(['tooth11', 'tooth12', 'tooth21']);
    const skull = rec(['skull']);
    const found = matchResults(
      [
        { extension: '.stl', structures: ['skull'] },
        { extension: '.stl', structures: ['all_teeth'] },
      ],
      [teeth, skull],
    );
    expect(found).toEqual([skull, teeth]);
  });

  it('takes no record for a request whose names it does not list, and says what it lists', () => {
    const mandible = rec(['mandible']);
    const want = { extension: '.stl', structures: ['skull'] };
    expect(matchResults([want], [mandible])).toEqual([undefined]);
    // Nor one of another extension, nor teeth for nerves.
    expect(matchResults([want], [rec(['skull'], '.ply')])).toEqual([undefined]);
    expect(matchResults([{ extension: '.stl', structures: ['all_nerves'] }], [rec(['tooth11'])])).toEqual([
      undefined,
    ]);
    expect(notListed(want, [mandible])).toMatchObject({
      status: 'Not listed',
      structures: ['skull'],
      message: expect.stringContaining('it lists: mandible.stl') as string,
    });
  });

  it('uses each record once: two alike requests take two alike records, in order', () => {
    const a = rec(['skull'], '.stl', 'a');
    const b = rec(['skull'], '.stl', 'b');
    const want = { extension: '.stl', structures: ['skull'] };
    expect(matchResults([want, want], [a, b])).toEqual([a, b]);
    expect(matchResults([want, want], [a])).toEqual([a, undefined]);
  });

  it('reads names as a service may echo them, and the shorthands the notes list', () => {
    const skin = rec(['Soft tissue'], '.STL');
    const nerves = rec(['right_nerve', 'left_nerve']);
    const merged = rec(['maxillary', 'mandible']);
    const found = matchResults(
      [
        { extension: '.stl', structures: ['mandible', 'maxillary'] },
        { extension: '.stl', structures: ['all_nerves'] },
        { extension: '.stl', structures: ['soft_tissue'] },
      ],
      [skin, nerves, merged],
    );
    expect(found).toEqual([merged, nerves, skin]);
    // The extension echoed without its dot; the shorthand echoed for the names it stands for.
    const dotless = rec(['skull'], 'stl');
    const both = rec(['all_nerves']);
    expect(
      matchResults(
        [
          { extension: '.stl', structures: ['skull'] },
          { extension: '.stl', structures: ['left_nerve', 'right_nerve'] },
        ],
        [both, dotless],
      ),
    ).toEqual([dotless, both]);
    // A merged request is not answered by one of its parts.
    expect(
      matchResults([{ extension: '.stl', structures: ['mandible', 'maxillary'] }], [rec(['mandible'])]),
    ).toEqual([undefined]);
  });
  it('takes the same file listed twice, but refuses to pick between two different ones for one mesh', () => {
    const want = { extension: '.stl', structures: ['skull'] };
    const signed = (sig: string, path = 'skull'): MeshResult =>
      rec(['skull'], '.stl', `https://store.example/out/${path}.stl?X-Amz-Signature=${sig}`);
    // One file, signed afresh for each record: harmless.
    expect(matchResults([want], [signed('a'), signed('b')])).toEqual([signed('a')]);
    const same = rec(['skull']);
    expect(matchResults([want], [same, { ...same }])).toEqual([same]);
    // Two files, or two statuses, for one mesh: which is the skull cannot be told.
    const two = matchResults([want], [signed('a'), signed('b', 'other')])[0];
    expect(two).toMatchObject({
      status: OUTPUT_LISTED_TWICE,
      structures: ['skull'],
      message: expect.stringContaining('2 different records') as string,
    });
    expect(two?.url).toBeUndefined();
    const failedToo = { ...rec(['skull']), status: 'Failed' };
    expect(matchResults([want], [rec(['skull']), failedToo])[0]?.status).toBe(OUTPUT_LISTED_TWICE);
    // Several files that each stand for the teeth asked for as one mesh: none is taken for all of them.
    const teeth = matchResults(
      [{ extension: '.stl', structures: ['all_teeth'] }],
      [rec(['tooth11']), rec(['tooth21'])],
    );
    expect(teeth[0]?.status).toBe(OUTPUT_LISTED_TWICE);
    // Two alike requests still take two alike records, and the other meshes are untouched.
    const a = rec(['skull'], '.stl', 'a');
    const b = rec(['skull'], '.stl', 'b');
    const mandible = rec(['mandible']);
    expect(
      matchResults([want, want, { extension: '.stl', structures: ['mandible'] }], [a, mandible, b]),
    ).toEqual([a, b, mandible]);
  });
  it('tells files apart by what names them, not by how they are signed (a review)', () => {
    const want = { extension: '.stl', structures: ['skull'] };
    const at = (url: string, status = 'Available'): MeshResult => ({
      ...rec(['skull'], '.stl', url),
      status,
    });
    // A service that names the file in the query: two files.
    const v1 = at('https://svc.example/download?jobId=J&file=skull_v1.stl&X-Amz-Signature=a');
    const v2 = at('https://svc.example/download?jobId=J&file=skull_v2.stl&X-Amz-Signature=b');
    expect(matchResults([want], [v1, v2])[0]?.status).toBe(OUTPUT_LISTED_TWICE);
    // One file: signed twice (in another order, or as a relative address), or its status in capitals.
    const s1 = at('https://svc.example/download?file=skull.stl&X-Amz-Date=1&X-Amz-Signature=a');
    const s2 = at('https://svc.example/download?X-Amz-Signature=b&X-Amz-Date=2&file=skull.stl', 'AVAILABLE');
    expect(matchResults([want], [s1, s2])).toEqual([s1]);
    const r1 = at('/storage/J/skull.stl?X-Signature=a&X-Expires=1');
    const r2 = at('/storage/J/skull.stl?X-Signature=b&X-Expires=2');
    expect(matchResults([want], [r1, r2])).toEqual([r1]);
    // Two alike requests, and the first one's file listed again: each request has its own file.
    const f0 = at('https://svc.example/out/0.stl');
    const f1 = at('https://svc.example/out/1.stl');
    expect(matchResults([want, want], [f0, f1, { ...f0 }])).toEqual([f0, f1]);
  });

  it('takes the record of the very names asked for, whatever else a shorthand could stand for', () => {
    const teeth = rec(['all_teeth']);
    const nerves = rec(['all_nerves']);
    const found = matchResults(
      [
        { extension: '.stl', structures: ['all_teeth'] },
        { extension: '.stl', structures: ['all_nerves'] },
      ],
      [rec(['tooth11']), teeth, rec(['tooth21']), rec(['left_nerve']), nerves, rec(['right_nerve'])],
    );
    expect(found).toEqual([teeth, nerves]);
  });
});
