import { describe, expect, it } from 'vitest';
import { mayCarryToken, parseTransportUrl, requestTarget } from './url-policy.js';

const may = (url: string, base: string): boolean => mayCarryToken(new URL(url), new URL(base));

describe('mayCarryToken: where the bearer token may go', () => {
  it('goes to the service itself, under its own or another loopback name or port', () => {
    expect(
      may('https://eu.virtualpatientengine.com/24.06/notify/1', 'https://eu.virtualpatientengine.com/24.06'),
    ).toBe(true);
    expect(may('http://localhost:8123/v/notify', 'http://127.0.0.1:8123/v')).toBe(true);
    expect(may('http://[::1]:8123/v/notify', 'http://127.0.0.1:8123/v')).toBe(true);
    // This computer's service on another port (a review's own service took notifications so).
    expect(may('http://127.0.0.2:8124/v/notify', 'http://127.0.0.1:8123/v')).toBe(true);
    expect(may('https://127.0.0.1:8124/v/notify', 'http://127.0.0.1:8123/v')).toBe(false);
  });

  it("goes over https to another host of the service's registrable domain", () => {
    expect(may('https://api.virtualpatientengine.com/n', 'https://eu.virtualpatientengine.com/24.06')).toBe(
      true,
    );
    expect(may('https://virtualpatientengine.com/n', 'https://eu.virtualpatientengine.com/24.06')).toBe(true);
    expect(may('https://api.service.co.uk/n', 'https://eu.service.co.uk/v')).toBe(true);
  });

  // A review: a notify address on another port of the service's own https host (given as an IP)
  // was refused, and the job the service had made was left without its scan.
  it("goes over https to the service's own host on another port, by name or by IP", () => {
    expect(may('https://192.0.2.2:8443/notify', 'https://192.0.2.2/v')).toBe(true);
    expect(
      may('https://eu.virtualpatientengine.com:8443/n', 'https://eu.virtualpatientengine.com/24.06'),
    ).toBe(true);
    expect(may('http://192.0.2.2:8080/notify', 'https://192.0.2.2/v')).toBe(false);
    expect(may('https://192.0.2.3:8443/notify', 'https://192.0.2.2/v')).toBe(false);
  });

  it('never goes to another site, a shared public or cloud suffix, plain http or another port', () => {
    expect(may('https://evil.example/n', 'https://eu.virtualpatientengine.com/24.06')).toBe(false);
    expect(may('https://other.co.uk/n', 'https://eu.service.co.uk/v')).toBe(false);
    // s3.amazonaws.com is a suffix in the list's private section: two buckets are two sites.
    expect(may('https://bucket-b.s3.amazonaws.com/n', 'https://bucket-a.s3.amazonaws.com/v')).toBe(false);
    expect(may('http://api.virtualpatientengine.com/n', 'https://eu.virtualpatientengine.com/24.06')).toBe(
      false,
    );
    expect(
      may('https://api.virtualpatientengine.com:8443/n', 'https://eu.virtualpatientengine.com/24.06'),
    ).toBe(false);
    expect(may('https://10.0.0.5/n', 'https://10.0.0.4/v')).toBe(false);
  });
});

describe('requestTarget: the path and query sent for an address', () => {
  const sent = (raw: string): string => requestTarget(parseTransportUrl(raw, 'The address'));

  it("is the service's own spelling when a request line can carry it", () => {
    expect(sent("https://s3.example.com/b/k%2Fx?sig=a'b&c=%7E#part")).toBe("/b/k%2Fx?sig=a'b&c=%7E");
    expect(sent('https://s3.example.com?sig=1')).toBe('/?sig=1');
    expect(sent('https://s3.example.com/a?next=/../b')).toBe('/a?next=/../b');
  });

  it("is the URL parser's otherwise: spaces, a stray %, dot segments, other characters", () => {
    expect(sent('https://s3.example.com/a b?x=1')).toBe('/a%20b?x=1');
    expect(sent('https://s3.example.com/a?x=%zz')).toBe('/a?x=%zz');
    expect(sent('https://s3.example.com/a/../b?x=1')).toBe('/b?x=1');
    expect(sent('https://s3.example.com/a/.')).toBe('/a/');
    expect(sent('https://s3.example.com/ü?x="')).toBe('/%C3%BC?x=%22');
    // A backslash ends the host for the parser: what follows is the path it reads (a review's upload
    // went to another key), and credentials are dropped, never sent as Basic authorization.
    expect(sent('http://127.0.0.1:8\\bucket/in/x?sig=1')).toBe('/bucket/in/x?sig=1');
    const withUser = parseTransportUrl("https://u:p@s3.example.com/a?s='", 'The address');
    expect([withUser.username, withUser.password, requestTarget(withUser)]).toEqual(['', '', '/a?s=%27']);
    // An address made here (not read by parseTransportUrl) is written by the parser.
    expect(requestTarget(new URL("https://s3.example.com/a?x='"))).toBe('/a?x=%27');
  });
});
