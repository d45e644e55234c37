import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './repo-files.ts';

/** Where Debian's prometheus package is unpacked when no promtool is installed. */
const UNPACKED = join(REPO_ROOT, 'node_modules', '.cache', 'switchyard-promtool');
const UNPACKED_PROMTOOL = join(UNPACKED, 'usr', 'bin', 'promtool');

/**
 * Prometheus's own `promtool`: $PROMTOOL, an installed one, or Debian's `prometheus` package
 * downloaded and unpacked under node_modules/.cache (`apt-get download` + `dpkg-deb -x`: nothing
 * is installed and no Prometheus server is started). Undefined when none can be had: the caller
 * skips its checks with `promtoolSkipReason`.
 */
export function findPromtool(): string | undefined {
  const candidates = [
    process.env.PROMTOOL,
    '/usr/bin/promtool',
    '/usr/local/bin/promtool',
    UNPACKED_PROMTOOL,
  ];
  const found = candidates.find((path) => path !== undefined && existsSync(path));
  if (found) return found;
  if (!existsSync('/usr/bin/apt-get') || !existsSync('/usr/bin/dpkg-deb')) return undefined;
  try {
    rmSync(UNPACKED, { recursive: true, force: true });
    mkdirSync(UNPACKED, { recursive: true });
    execFileSync('apt-get', ['download', 'prometheus'], { cwd: UNPACKED, stdio: 'ignore', timeout: 180_000 });
    const deb = readdirSync(UNPACKED).find((f) => f.endsWith('.deb'));
    if (!deb) return undefined;
    execFileSync('dpkg-deb', ['-x', deb, '.'], { cwd: UNPACKED, stdio: 'ignore', timeout: 120_000 });
    rmSync(join(UNPACKED, deb));
  } catch {
    return undefined;
  }
  return existsSync(UNPACKED_PROMTOOL) ? UNPACKED_PROMTOOL : undefined;
}

export const promtoolSkipReason =
  "promtool is not installed and Debian's prometheus package could not be downloaded (set PROMTOOL); " +
  "the rules' promtool checks are skipped (the PromQL grammar checks still run)";
