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
});
