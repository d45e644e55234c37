// Checks that Postgres and Redis answer at DATABASE_URL / REDIS_URL, and says clearly what is
// missing otherwise. Plain JS on purpose: it runs before dependencies are installed.
// With --containers-ok (script/test, neither URL set): services that are not there but a Docker
// engine that is exit 3, since the test fixtures then start both in containers (testcontainers).
import net from 'node:net';
import { execSync } from 'node:child_process';

function reachable(url, port) {
  let u;
  try {
    u = new URL(url);
  } catch {
    return Promise.resolve(false); // said below, without the URL's text
  }
  return new Promise((resolve) => {
    const s = net.connect({ host: u.hostname || '127.0.0.1', port: Number(u.port || port) });
    s.setTimeout(2000);
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('timeout', () => (s.destroy(), resolve(false)));
    s.once('error', () => resolve(false));
  });
}

function hasDocker() {
  try {
    execSync('docker info', { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * Where the URL points, nothing more: this message lands in CI logs, and a password with an
 * unencoded '@' or '/' would show through any attempt to mask it in place.
 */
function printable(url) {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.hostname}${u.port ? `:${u.port}` : ''}`;
  } catch {
    return 'not a valid URL';
  }
}

const pg = await reachable(process.env.DATABASE_URL, 5432);
const redis = await reachable(process.env.REDIS_URL, 6379);
if (pg && redis) process.exit(0);
const missing = [
  !pg && `Postgres (${printable(process.env.DATABASE_URL)})`,
  !redis && `Redis (${printable(process.env.REDIS_URL)})`,
].filter(Boolean);
// Publishes both on the loopback ports the defaults name, with the defaults' trust login.
const dockerRun =
  'docker run -d -p 127.0.0.1:5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust postgres:16-alpine && ' +
  'docker run -d -p 127.0.0.1:6379:6379 redis:7-alpine';
if (hasDocker()) {
  if (process.argv.includes('--containers-ok')) {
    console.error(
      `not reachable: ${missing.join(', ')}; the tests start them in containers (testcontainers)`,
    );
    process.exit(3);
  }
  console.error(
    `not reachable: ${missing.join(', ')}; a Docker engine is running, so start them with: ${dockerRun}`,
  );
} else {
  console.error(
    `not reachable: ${missing.join(', ')}.\n` +
      'Set DATABASE_URL / REDIS_URL, or run Postgres on 127.0.0.1:5432 and Redis on 127.0.0.1:6379 ' +
      `(with a Docker engine: ${dockerRun}).`,
  );
}
process.exit(1);
