import { describe, expect, it } from 'vitest';
import { checkForm, EMPTY_FORM, fromTemplate } from './profile-form';

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
    expect(errors.authUrl).toMatch(/not a valid address/);
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
});
