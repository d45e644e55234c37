import { describe, expect, it } from 'vitest';
import { negotiateVersion, parseExtensionsHeader } from '../src/index.ts';

describe('§6 A2A-Version negotiation', () => {
  it('1.0 is supported', () => expect(negotiateVersion('1.0')).toEqual({ ok: true, version: '1.0' }));
  it('the patch number is ignored: 1.0.1 is 1.0', () =>
    expect(negotiateVersion('1.0.1')).toEqual({ ok: true, version: '1.0' }));
  it('surrounding whitespace is ignored', () =>
    expect(negotiateVersion(' 1.0 ')).toEqual({ ok: true, version: '1.0' }));
  it('a missing header means 0.3', () =>
    expect(negotiateVersion(undefined)).toEqual({ ok: false, requested: '0.3' }));
  it('an empty header means 0.3', () =>
    expect(negotiateVersion('')).toEqual({ ok: false, requested: '0.3' }));
  it('0.3 is served when the server supports it', () => {
    expect(negotiateVersion(undefined, ['1.0', '0.3'])).toEqual({ ok: true, version: '0.3' });
    expect(negotiateVersion('0.3', ['1.0', '0.3'])).toEqual({ ok: true, version: '0.3' });
  });
  it('an unsupported version is reported as requested', () => {
    expect(negotiateVersion('2.0')).toEqual({ ok: false, requested: '2.0' });
    expect(negotiateVersion('1.1.7')).toEqual({ ok: false, requested: '1.1' });
  });
  it('garbage is not supported and echoed trimmed', () =>
    expect(negotiateVersion(' v1 ')).toEqual({ ok: false, requested: 'v1' }));
  it('a bare major is not a version', () =>
    expect(negotiateVersion('1')).toEqual({ ok: false, requested: '1' }));
});

describe('§6 A2A-Extensions header', () => {
  it('splits on commas, trims, drops empties, dedupes in order', () => {
    expect(parseExtensionsHeader(' urn:a , urn:b,,urn:a ,https://ext.example/v1 ')).toEqual([
      'urn:a',
      'urn:b',
      'https://ext.example/v1',
    ]);
  });
  it('missing or empty is no extension', () => {
    expect(parseExtensionsHeader(undefined)).toEqual([]);
    expect(parseExtensionsHeader('')).toEqual([]);
  });
  it('repeated headers given as an array are merged', () => {
    expect(parseExtensionsHeader(['urn:a, urn:b', 'urn:b, urn:c'])).toEqual(['urn:a', 'urn:b', 'urn:c']);
  });
});
