import { describe, expect, it } from 'vitest';
import type { ProfileView } from '../../src-shared/contract';
import { checkForm, EMPTY_FORM, fromProfile, fromTemplate } from './profile-form';

describe('connection form', () => {
  it('accepts the Relu template once the client id and secret are typed', () => {
    const v = { ...fromTemplate(), clientId: 'abc', clientSecret: 's3cret' };
    const { input, errors } = checkForm(v, false);
    expect(errors).toEqual({});
    expect(input).toMatchObject({
      name: 'Relu EU 24.06',
      baseUrl: 'https://eu.virtualpatientengine.com/24.06',
    });
  });

  it('says per field what is wrong', () => {
    const { input, errors } = checkForm({ ...EMPTY_FORM, baseUrl: 'http://example.com/24.06' }, false);
    expect(input).toBeNull();
    expect(errors.name).toBe('Give the connection a name.');
    expect(errors.baseUrl).toMatch(/plain http to another computer/);
    // Each field's example is an address of its own kind.
    expect(errors.authUrl).toBe(
      'The sign-in address is not a valid address. Write it in full, e.g. https://vpengine.eu.auth0.com',
    );
    expect(errors.clientId).toMatch(/client id is required/);
    expect(errors.clientSecret).toMatch(/client secret is required/);
  });

  it('keeps a stored secret when none is typed, and catches a pasted space', () => {
    const v = { ...fromTemplate(), clientId: 'abc' };
    expect(checkForm(v, true).errors).toEqual({});
    expect(checkForm({ ...v, clientSecret: ' abc' }, true).errors.clientSecret).toMatch(/space/);
  });

  it('wants the version segment at the end of the service address', () => {
    const v = {
      ...fromTemplate(),
      clientId: 'a',
      clientSecret: 'b',
      baseUrl: 'https://eu.virtualpatientengine.com',
    };
    expect(checkForm(v, false).errors.baseUrl).toMatch(/version segment/);
  });

  it('asks for the secret again when the address, audience or client id of a stored profile changes', () => {
    const stored: ProfileView = {
      ...fromTemplate(),
      id: 'p1',
      kind: 'remote',
      clientId: 'abc',
      secretStored: true,
      active: false,
    };
    const v = fromProfile(stored);
    // A new name, or an address written with a trailing slash, keeps the secret where it belongs.
    expect(checkForm({ ...v, name: 'Relu', baseUrl: `${v.baseUrl}/` }, true, stored).errors).toEqual({});
    for (const change of [
      { authUrl: 'https://attacker.example' },
      { baseUrl: 'https://us.virtualpatientengine.com/24.06' },
      { audience: 'other' },
      { clientId: 'xyz' },
    ]) {
      const { input, errors } = checkForm({ ...v, ...change }, true, stored);
      expect(input, JSON.stringify(change)).toBeNull();
      expect(errors.clientSecret).toMatch(/type the client secret again/);
      expect(checkForm({ ...v, ...change, clientSecret: 'new' }, true, stored).errors).toEqual({});
    }
  });
});
