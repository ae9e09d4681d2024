import { describe, expect, it } from 'vitest';
import { trustSystemCertificates } from './system-trust.js';

describe('trustSystemCertificates', () => {
  it("adds the system's authorities to Node's own, once each", () => {
    let set: string[] | undefined;
    const done = trustSystemCertificates({
      getCACertificates: (type) => (type === 'default' ? ['A', 'B'] : ['B', 'C']),
      setDefaultCACertificates: (certs) => (set = certs),
    });
    expect(done).toBe(true);
    expect(set).toEqual(['A', 'B', 'C']);
  });

  it('leaves trust as it is where node:tls cannot list or set authorities', () => {
    expect(trustSystemCertificates({})).toBe(false);
    expect(
      trustSystemCertificates({
        getCACertificates: () => {
          throw new Error('no system store');
        },
        setDefaultCACertificates: () => undefined,
      }),
    ).toBe(false);
  });
});
