import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState } from '@switchyard/protocol';
import { waitFor } from '@switchyard/testing';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH, ensureChromium, skipReason } from './support/chromium.ts';
import { startConsoleHarness, type ConsoleHarness } from './support/console-harness.ts';

// Live pages in headless Chromium when their stream goes away: a dropped connection must not lose
// what happened meanwhile (the threads view), and an expired session sends the page to sign in
// again rather than leaving it "Live" or reconnecting into a refusal.
const available = ensureChromium();
if (!available) console.warn(skipReason());

const LIVE_TIMEOUT = 20_000;

let h: ConsoleHarness;
let context: BrowserContext;
let page: Page;
let profile: string;

/** Signs the browser in with a session cookie that expires `ms` from now (default: hours away). */
async function signIn(ms?: number): Promise<void> {
  const { signer, config } = h.console.services;
  const issuedAt = ms === undefined ? Date.now() : Date.now() - config.CONSOLE_SESSION_TTL_MS + ms;
  await context.clearCookies();
  await context.addCookies([
    {
      name: 'sy_console',
      value: signer.issue(issuedAt).value,
      url: h.baseUrl,
      httpOnly: true,
      sameSite: 'Strict',
    },
  ]);
}

describe.skipIf(!available)(
  'live pages in headless Chromium, when the stream goes away',
  { timeout: 90_000 },
  () => {
    beforeAll(async () => {
      h = await startConsoleHarness();
      h.startWorker();
      profile = mkdtempSync(join(tmpdir(), 'sy-console-chromium-'));
      context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM_PATH,
        headless: true,
        args: CHROMIUM_ARGS,
      });
      page = context.pages()[0] ?? (await context.newPage());
      page.setDefaultTimeout(LIVE_TIMEOUT);
    }, 120_000);

    afterAll(async () => {
      await context?.close();
      if (profile) rmSync(profile, { recursive: true, force: true });
      await h?.close();
    });

    it('shows in a column that arrived live what its task did while the stream was down', async () => {
      await signIn();
      const contextId = `reconnect-${crypto.randomUUID().slice(0, 8)}`;
      // While `down`, the browser's reconnects fail as if the network were gone.
      let down = false;
      await page.route('**/stream?*', (route) =>
        down ? route.abort('connectionrefused') : route.continue(),
      );
      await page.goto(`${h.baseUrl}/contexts/acme/${contextId}`);
      await page.locator('[data-live-status][data-state="live"]').waitFor();

      // The task joins after the page loaded: its column comes over the stream, not in the page.
      const task = await h.send('acme', 'gated', 'joins, then works while we are away', { contextId });
      const column = page.locator(`[data-columns] > article[data-task-id="${task.id}"]`);
      await column.locator('[data-task-header]').getByText('working').waitFor();
      const before = await waitFor(async () => {
        const r = await h.tasks.getTaskRecord('acme', task.id);
        return r?.state === TaskState.WORKING ? r : null;
      });

      down = true;
      h.console.services.streams.closeAll();
      await page.locator('[data-live-status][data-state="reconnecting"]').waitFor();
      h.gated.open(task.id); // a status and a chunk, written while the page cannot hear of them
      await waitFor(
        async () => ((await h.tasks.getTaskRecord('acme', task.id))?.version ?? 0) >= before.version + 2,
      );
      down = false;

      await page.locator('[data-live-status][data-state="live"]').waitFor();
      await column.locator('[data-timeline] > li.entry-artifact').waitFor();
      await column
        .locator('[data-timeline] > li.entry-status')
        .getByText('Step 1', { exact: true })
        .waitFor();
      expect(await page.locator(`[data-task-id="${task.id}"]`).count()).toBe(1); // replaced, not doubled
      h.gated.finish(task.id);
      await column.locator('[data-task-header]').getByText('completed').waitFor();
      await page.unroute('**/stream?*');
    });

    it('goes to the login page, with the way back, when the session expires on a live page', async () => {
      await signIn(5000);
      const task = await h.send('acme', 'gated', 'outlives the session');
      const path = `/tasks/acme/${task.id}`;
      await page.goto(`${h.baseUrl}${path}`);
      await page.locator('[data-live-status][data-state="live"]').waitFor();
      await page.waitForURL((url) => url.pathname === '/login');
      expect(new URL(page.url()).searchParams.get('next')).toBe(path);
      h.gated.finish(task.id);
    });
  },
);
