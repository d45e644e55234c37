import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@switchyard/testing';

// script/server seeds the demo key kept in a file when SWITCHYARD_DEMO_API_KEY is not set, so a
// restart seeds the same key and an exported KEY keeps working. The helper it calls, run as script/server runs it.
const run = promisify(execFile);
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sy-demo-key-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true });
});

const keyFrom = async (file: string, env: NodeJS.ProcessEnv = process.env) =>
  (
    await run('bash', ['-c', `source script/lib.sh && demo_api_key_from_file "$1"`, 'demo-key', file], {
      cwd: REPO_ROOT,
      env,
    })
  ).stdout;

describe('demo_api_key_from_file (script/lib.sh)', () => {
  it('makes a key once, readable only by its owner, and gives the same one after', async () => {
    const file = join(dir, 'nested', 'demo-api-key');
    const first = await keyFrom(file);
    expect(first).toMatch(/^sy_demo_[A-Za-z0-9_-]{32}$/);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await keyFrom(file)).toBe(first);
  });

  it('makes a new key once the file is deleted', async () => {
    const file = join(dir, 'demo-api-key');
    const first = await keyFrom(file);
    await rm(file);
    expect(await keyFrom(file)).not.toBe(first);
  });

  it('fails, keeping no empty file, when no key can be made', async () => {
    const file = join(dir, 'failing', 'demo-api-key');
    // Node refuses to start with an unknown option: the key's maker fails as a broken node would.
    await expect(keyFrom(file, { ...process.env, NODE_OPTIONS: '--no-such-option' })).rejects.toMatchObject({
      stderr: expect.stringContaining(`cannot make a demo key in ${file}`),
    });
    await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await keyFrom(file)).toMatch(/^sy_demo_/);
  });
});
