import { describe, expect, it } from 'vitest';
import { ConfigError } from '@switchyard/runtime';
import { loadGatewayConfig } from '../src/config.ts';

// The admin token is presented as `Authorization: Bearer <token>`, whose token ends at the first
// space: a token with whitespace inside would pass a length check and then refuse every call.
describe('SWITCHYARD_ADMIN_TOKEN', () => {
  it.each([
    ['a space', 'correct horse battery staple'],
    ['a tab', 'correct\thorse-battery-staple'],
    ['a newline', 'correct-horse\nbattery-staple'],
    ['a non-ASCII character', 'correct-horse-battery-stäple'],
  ])('with %s inside is refused at start, naming the setting', (_what, token) => {
    expect(() => loadGatewayConfig({ SWITCHYARD_ADMIN_TOKEN: token })).toThrow(ConfigError);
    expect(() => loadGatewayConfig({ SWITCHYARD_ADMIN_TOKEN: token })).toThrow(/SWITCHYARD_ADMIN_TOKEN/);
  });

  it('printable ASCII is taken, surrounding whitespace trimmed as before', () => {
    expect(
      loadGatewayConfig({ SWITCHYARD_ADMIN_TOKEN: '  s3cret!-token_~0123  ' }).SWITCHYARD_ADMIN_TOKEN,
    ).toBe('s3cret!-token_~0123');
  });
});
