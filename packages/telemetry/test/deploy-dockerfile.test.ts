// The production image's Dockerfile, checked structurally without a Docker engine (issue 6:
// multi-stage, non-root, one image for all processes), plus the build context it sees.
import { describe, expect, it } from 'vitest';
import { execForm, parseDockerfile, type Stage } from './deploy-support/dockerfile.ts';
import { readRepoFile, repoFileExists } from './deploy-support/repo-files.ts';

const dockerfile = parseDockerfile(readRepoFile('deploy/Dockerfile'));
const final = dockerfile.stages.at(-1)!;
const build = dockerfile.stages.find((s) =>
  s.instructions.some((i) => i.keyword === 'RUN' && i.args.includes('pnpm install')),
);
const all = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword);
const rootPackage = JSON.parse(readRepoFile('package.json')) as { packageManager: string };

describe('deploy/Dockerfile', () => {
  it('is multi-stage on a slim Node 24 base, every stage named', () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of dockerfile.stages) {
      expect(stage.from).toMatch(/^node:24(\.\d+)*-(bookworm-)?slim$/);
      expect(stage.name).toMatch(/^[a-z][a-z0-9-]*$/);
    }
  });

  it('installs production dependencies with the pinned pnpm from the frozen lockfile', () => {
    expect(build).toBeDefined();
    const runs = all(build!, 'RUN')
      .map((i) => i.args)
      .join('\n');
    expect(runs).toMatch(/pnpm install[^\n]*--frozen-lockfile/);
    expect(runs).toMatch(/pnpm install[^\n]*--prod/);
    // Every process's dependencies, and no devDependencies (no test tooling in the image).
    for (const app of ['gateway', 'worker', 'pusher', 'console'])
      expect(runs).toContain(`--filter-prod '@switchyard/${app}...'`);
    const pinned = all(build!, 'ARG')
      .find((i) => i.args.startsWith('PNPM_VERSION='))
      ?.args.split('=')[1];
    expect(`pnpm@${pinned}`).toBe(rootPackage.packageManager);
    const copies = all(build!, 'COPY').map((i) => i.args);
    for (const dir of ['apps', 'packages', 'migrations']) expect(copies).toContain(`${dir} ./${dir}`);
  });

  it('runs as a numeric non-root user in the final stage', () => {
    const users = all(final, 'USER');
    expect(users).toHaveLength(1);
    const [uid, gid] = users[0]!.args.split(':').map(Number);
    expect(uid).toBe(10001);
    expect(gid).toBe(10001);
    // Nothing after USER switches back or installs anything.
    const after = final.instructions.slice(final.instructions.indexOf(users[0]!) + 1);
    expect(after.map((i) => i.keyword).filter((k) => k === 'RUN' || k === 'USER')).toEqual([]);
  });

  it('runs in production mode, under tini, with the gateway as the default process', () => {
    expect(
      all(final, 'ENV')
        .map((i) => i.args)
        .join(' '),
    ).toMatch(/NODE_ENV=production/);
    expect(execForm(all(final, 'ENTRYPOINT').at(-1)?.args ?? '')).toEqual(['/usr/bin/tini', '--']);
    expect(execForm(all(final, 'CMD').at(-1)?.args ?? '')).toEqual(['node', 'apps/gateway/src/main.ts']);
    expect(
      all(final, 'RUN')
        .map((i) => i.args)
        .join(' '),
    ).toContain('tini');
  });

  it('copies the built workspace from an earlier stage, not from the build context', () => {
    const copies = all(final, 'COPY');
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) expect(copy.args).toMatch(new RegExp(`^--from=${build!.name} `));
  });

  it('has no ADD, no shell-form entry point and no secrets baked in', () => {
    for (const stage of dockerfile.stages) {
      expect(all(stage, 'ADD')).toEqual([]);
      for (const i of [...all(stage, 'ENV'), ...all(stage, 'ARG')])
        expect(i.args).not.toMatch(/SECRET|TOKEN|PASSWORD|DATABASE_URL/i);
    }
    for (const i of [...all(final, 'CMD'), ...all(final, 'ENTRYPOINT')])
      expect(execForm(i.args)).toBeDefined();
  });

  it('ships the entry points every process is started with', () => {
    for (const entry of [
      'apps/gateway/src/main.ts',
      'apps/worker/src/main.ts',
      'apps/pusher/src/main.ts',
      'packages/store/src/bin/migrate.ts',
      'apps/gateway/src/bin/seed-demo.ts',
    ]) {
      expect(repoFileExists(entry), entry).toBe(true);
    }
  });
});

describe('.dockerignore', () => {
  const patterns = readRepoFile('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));

  it('keeps host dependencies, VCS data and local secrets out of the build context', () => {
    for (const p of ['**/node_modules', '.git', '**/.env', '.tools']) expect(patterns).toContain(p);
  });

  it('keeps everything the image needs in it', () => {
    for (const needed of [
      'apps',
      'packages',
      'migrations',
      'package.json',
      'pnpm-lock.yaml',
      'pnpm-workspace.yaml',
      // Workspace members whose manifests the frozen lockfile expects (the manifests stage).
      'bench',
      'chaos',
    ]) {
      expect(
        patterns.filter((p) => p === needed || p === `${needed}/` || p === `/${needed}`),
        needed,
      ).toEqual([]);
    }
  });
});
