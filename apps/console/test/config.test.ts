import { ConfigError } from '@switchyard/runtime';
import { describe, expect, it } from 'vitest';
import { DEV_ADMIN_TOKEN, loadConsoleConfig } from '../src/config.ts';

describe('loadConsoleConfig', () => {
  it('fills the defaults and marks the development admin token', () => {
    const config = loadConsoleConfig({});
    expect(config.CONSOLE_PORT).toBe(8090);
    expect(config.SWITCHYARD_ADMIN_TOKEN).toBe(DEV_ADMIN_TOKEN);
    expect(config.adminTokenIsDefault).toBe(true);
    expect(config.TRACE_UI_URL).toBe('http://localhost:16686');
    expect(config.TRACE_SERVICE_NAME).toBe('switchyard-gateway');
    expect(config.GATEWAY_PUBLIC_URL).toBe('http://localhost:8080');
    expect(config.CONSOLE_SECURE_COOKIE).toBe(false);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('takes the admin token, trims trailing slashes off URLs', () => {
    const config = loadConsoleConfig({
      SWITCHYARD_ADMIN_TOKEN: 'a-long-enough-admin-token',
      TRACE_UI_URL: 'https://jaeger.example.com/',
      GATEWAY_PUBLIC_URL: 'https://a2a.example.com//',
      CONSOLE_PORT: '9000',
    });
    expect(config.adminTokenIsDefault).toBe(false);
    expect(config.TRACE_UI_URL).toBe('https://jaeger.example.com');
    expect(config.GATEWAY_PUBLIC_URL).toBe('https://a2a.example.com');
    expect(config.CONSOLE_PORT).toBe(9000);
  });

  it('requires an admin token in production and makes the cookie Secure there', () => {
    const production = { NODE_ENV: 'production', SWITCHYARD_SECRET_KEY: 'a-secret-key-of-our-own' };
    expect(() => loadConsoleConfig(production)).toThrow(/SWITCHYARD_ADMIN_TOKEN: required/);
    const config = loadConsoleConfig({ ...production, SWITCHYARD_ADMIN_TOKEN: 'a-long-enough-admin-token' });
    expect(config.CONSOLE_SECURE_COOKIE).toBe(true);
    expect(
      loadConsoleConfig({
        ...production,
        SWITCHYARD_ADMIN_TOKEN: 'a-long-enough-admin-token',
        CONSOLE_SECURE_COOKIE: 'false',
      }).CONSOLE_SECURE_COOKIE,
    ).toBe(false);
  });

  it('names every bad variable and never echoes a secret', () => {
    try {
      loadConsoleConfig({ SWITCHYARD_ADMIN_TOKEN: 'short', CONSOLE_PORT: 'eighty', TRACE_UI_URL: 'ftp://x' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const message = (err as Error).message;
      expect(message).toContain('CONSOLE_PORT');
      expect(message).toContain('TRACE_UI_URL');
    }
    expect(() => loadConsoleConfig({ SWITCHYARD_ADMIN_TOKEN: 'short-token' })).toThrow(
      /at least 16 characters/,
    );
  });
});
