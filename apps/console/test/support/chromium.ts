import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian's chromium: browser tests never download a browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** What script/test installs first: the browser, and fonts so screenshots have readable text. */
export const CHROMIUM_APT_PACKAGES = ['chromium', 'fonts-liberation'];

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * True when /usr/bin/chromium exists, installing it with apt-get first when it is missing and we
 * may (root, apt-get present). False only when it is absent and cannot be installed: the caller
 * skips the browser tests with `reason()`.
 */
export function ensureChromium(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root || !existsSync('/usr/bin/apt-get')) return false;
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update'], { stdio: 'ignore', env, timeout: 300_000 });
    execFileSync('apt-get', ['install', '-y', ...CHROMIUM_APT_PACKAGES], {
      stdio: 'ignore',
      env,
      timeout: 600_000,
    });
  } catch {
    return false;
  }
  return existsSync(CHROMIUM_PATH);
}

export function skipReason(): string {
  return (
    `headless Chromium is not at ${CHROMIUM_PATH} and could not be installed ` +
    `(as root: apt-get install -y ${CHROMIUM_APT_PACKAGES.join(' ')}); the console's browser tests are skipped`
  );
}
