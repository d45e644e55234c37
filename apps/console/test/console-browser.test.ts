import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState } from '@switchyard/protocol';
import { REPO_ROOT, waitFor } from '@switchyard/testing';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH, ensureChromium, skipReason } from './support/chromium.ts';
import { ADMIN_TOKEN, startConsoleHarness, type ConsoleHarness } from './support/console-harness.ts';

// End to end in headless Chromium (Debian's, driven by playwright-core): log in, filter, watch a
// task's timeline grow live while a real worker runs it, cancel from the UI, the threads view,
// the queues view and the tenants view. Screenshots go to test-results/console/ as artifacts.
const available = ensureChromium();
if (!available) console.warn(skipReason());

const SHOTS = join(REPO_ROOT, 'test-results', 'console');
const LIVE_TIMEOUT = 20_000;

let h: ConsoleHarness;
let context: BrowserContext;
let page: Page;
let profile: string;
/** The confirmations the pages asked for (each accepted). */
const dialogs: string[] = [];

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

async function stateOf(tenantId: string, taskId: string) {
  return (await h.tasks.getTaskRecord(tenantId, taskId))?.state;
}

// Browser steps wait up to LIVE_TIMEOUT each; a busy 2-core machine needs the room.
describe.skipIf(!available)('console in headless Chromium', { timeout: 90_000 }, () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    h = await startConsoleHarness();
    h.startWorker();
    profile = mkdtempSync(join(tmpdir(), 'sy-console-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1360, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(LIVE_TIMEOUT);
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await h?.close();
  });

  it('logs in with the admin token', async () => {
    await page.goto(`${h.baseUrl}/tasks?tenant=acme`);
    await expect.poll(() => new URL(page.url()).pathname, { timeout: LIVE_TIMEOUT }).toBe('/login');
    await shot('01-login');
    await page.getByLabel('Admin token').fill('wrong-token-for-sure');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That is not the admin token.').waitFor();
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tasks', level: 1 }).waitFor();
    expect(new URL(page.url()).search).toBe('?tenant=acme');
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'sy_console')).toMatchObject({
      httpOnly: true,
      sameSite: 'Strict',
    });
  });

  it('filters the task list by agent and state', async () => {
    const echo = await h.send('acme', 'echo', 'filter me');
    const booking = await h.send('acme', 'booking', 'hello there');
    await waitFor(async () => (await stateOf('acme', echo.id)) === TaskState.COMPLETED);
    await page.goto(`${h.baseUrl}/tasks?tenant=acme`);
    await page.locator(`tr[data-task-id="${booking.id}"]`).waitFor();
    await shot('02-tasks');
    await page.getByLabel('Agent').selectOption('echo');
    await page.getByLabel('State').selectOption(TaskState.COMPLETED);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/agent=echo/);
    await page.locator(`tr[data-task-id="${echo.id}"]`).waitFor();
    expect(await page.locator(`tr[data-task-id="${booking.id}"]`).count()).toBe(0);
    const agents = await page.locator('table.tasks tbody tr td:nth-child(3)').allTextContents();
    expect(agents.length).toBeGreaterThan(0);
    expect(agents.every((a) => a.trim() === 'echo')).toBe(true);
    await expect
      .poll(() => page.getByTestId('task-count').textContent(), { timeout: LIVE_TIMEOUT })
      .toMatch(/^\d+ tasks? match/);
    await shot('03-tasks-filtered');
  });

  it('shows a running task live: new timeline entries appear without a reload', async () => {
    const task = await h.send('acme', 'gated', 'report your progress');
    await page.goto(`${h.baseUrl}/tasks/acme/${task.id}`);
    await page.locator('[data-live-status][data-state="live"]').waitFor();
    await page.getByTestId('task-state').getByText('working').waitFor();
    // A marker that a reload would wipe: everything below must arrive over the live stream.
    await page.evaluate(() => {
      (globalThis as Record<string, unknown>).__noReload = true;
    });
    const chunks = page.locator('[data-timeline] > li.entry-artifact');
    expect(await chunks.count()).toBe(0);
    for (let step = 1; step <= 3; step++) {
      h.gated.open(task.id);
      await expect.poll(() => chunks.count(), { timeout: LIVE_TIMEOUT }).toBe(step);
      await page
        .locator('[data-timeline] > li.entry-status')
        .getByText(`Step ${step}`, { exact: true })
        .waitFor();
      if (step === 2) await shot('04-task-live-running');
    }
    h.gated.finish(task.id);
    await page.getByTestId('task-state').getByText('completed').waitFor();
    await page.locator('[data-live-status][data-state="ended"]').waitFor();
    await page.getByText('done after 3 steps').waitFor();
    expect(await page.evaluate(() => (globalThis as Record<string, unknown>).__noReload)).toBe(true);
    expect(await chunks.count()).toBe(3);
    // The page's entries are exactly the task's log and history: none lost, none repeated.
    const keys = await page
      .locator('[data-timeline] > li')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-key')));
    const record = await h.tasks.getTaskRecord('acme', task.id);
    const expected = [...Array.from({ length: record?.version ?? 0 }, (_, i) => `e${i + 1}`), 'm0'];
    expect([...keys].sort()).toEqual(expected.sort());
    expect(await page.getByRole('button', { name: 'Cancel task' }).count()).toBe(0);
    const trace = await page.getByRole('link', { name: /Open trace/ }).getAttribute('href');
    expect(trace).toBe(
      `http://jaeger.test:16686/search?service=switchyard-gateway&tags=%7B%22switchyard.task_id%22%3A%22${task.id}%22%7D`,
    );
    await shot('05-task-live-completed');
  });

  it('cancels a running task from the UI', async () => {
    const task = await h.send('acme', 'slow-long', 'run for a minute');
    await page.goto(`${h.baseUrl}/tasks/acme/${task.id}`);
    await page.getByTestId('task-state').getByText('working').waitFor();
    await page.getByRole('button', { name: 'Cancel task' }).click(); // confirm() is accepted
    await page.getByText('Task canceled.').waitFor();
    await page.getByTestId('task-state').getByText('canceled').waitFor();
    expect(await stateOf('acme', task.id)).toBe(TaskState.CANCELED);
    expect(await page.getByRole('button', { name: 'Cancel task' }).count()).toBe(0);
    await shot('06-task-canceled');
  });

  it('shows the tasks of one context side by side, live', async () => {
    const contextId = `trip-${crypto.randomUUID().slice(0, 8)}`;
    const first = await h.send('acme', 'echo', 'first of the thread', { contextId });
    const second = await h.send('acme', 'gated', 'second of the thread', { contextId });
    await waitFor(async () => (await stateOf('acme', first.id)) === TaskState.COMPLETED);
    await page.goto(`${h.baseUrl}/contexts/acme/${contextId}`);
    await page.locator('[data-live-status][data-state="live"]').waitFor();
    const columns = page.locator('[data-columns] > article.column');
    expect(await columns.count()).toBe(2);
    expect(await columns.nth(0).getAttribute('data-task-id')).toBe(first.id);
    expect(await columns.nth(1).getAttribute('data-task-id')).toBe(second.id);
    const secondChunks = page.locator(`[data-task-id="${second.id}"] [data-timeline] > li.entry-artifact`);
    for (let step = 1; step <= 2; step++) {
      h.gated.open(second.id);
      await expect.poll(() => secondChunks.count(), { timeout: LIVE_TIMEOUT }).toBe(step);
    }
    // A task joining the conversation gets its own column without a reload.
    const third = await h.send('acme', 'echo', 'third joins later', { contextId });
    await page.locator(`[data-columns] > article[data-task-id="${third.id}"]`).waitFor();
    await page.locator(`[data-task-id="${third.id}"] [data-task-header]`).getByText('completed').waitFor();
    h.gated.finish(second.id);
    await page.locator(`[data-task-id="${second.id}"] [data-task-header]`).getByText('completed').waitFor();
    await shot('07-context-threads');
  });

  it('shows queue depth and replays a dead letter from the queues view', async () => {
    const task = await h.send('globex', 'echo', 'push me', { pushUrl: 'http://127.0.0.1:9/hook' });
    const claimed = await waitFor(async () => {
      const c = await h.outbox.claimDueDeliveries({ workerId: 'browser-test', limit: 50, lockMs: 60_000 });
      return c.length > 0 ? c : null;
    });
    for (const d of claimed) {
      await h.outbox.markFailed({
        ...d,
        workerId: 'browser-test',
        error: 'receiver answered 503',
        status: 503,
        dead: true,
      });
    }
    await page.goto(`${h.baseUrl}/queues?tenant=globex`);
    await page.getByRole('heading', { name: 'Task dispatch queue' }).waitFor();
    await page.getByTestId('dispatch-queue').locator('[data-metric="waiting"]').waitFor();
    const deadRow = page.getByTestId('dead-letter-counts').locator('tr[data-tenant="globex"]');
    expect(
      Number((await deadRow.locator('td.num').textContent())?.replace(/\D/g, '')),
    ).toBeGreaterThanOrEqual(1);
    const row = page.locator(`tr[data-delivery^="${task.id}."]`).first();
    await row.getByText('receiver answered 503').waitFor();
    await shot('08-queues');
    await row.getByRole('button', { name: 'Retry' }).click();
    await page.getByText('Delivery queued for another attempt.').waitFor();
    const deliveries = await h.outbox.listDeliveries('globex', task.id);
    expect(deliveries.some((d) => d.status === 'pending' && d.attempts === 0)).toBe(true);
  });

  it("sets a tenant's run cap from the tenants view", async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Tenants' }).click();
    await page.getByRole('heading', { name: 'Tenants' }).waitFor();
    const row = page.getByTestId('tenants').locator('tr[data-tenant="acme"]');
    const cap = row.getByLabel('Run cap of acme');
    expect(await cap.inputValue()).toBe('default');
    await cap.fill('3');
    await row.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Run cap saved.').waitFor();
    await page
      .getByTestId('tenants')
      .locator('tr[data-tenant="acme"]')
      .getByText('at most 3 runs at once')
      .waitFor();
    expect((await h.admin.getTenant('acme'))?.maxRunning).toBe(3);
    await shot('09-tenants');
  });

  it('disables a tenant after a confirmation, and enables it again', async () => {
    const row = () => page.getByTestId('tenants').locator('tr[data-tenant="globex"]');
    const asked = dialogs.length;
    await row().getByRole('button', { name: 'Disable' }).click();
    await page.getByText('Tenant disabled:').waitFor();
    expect(dialogs.slice(asked)).toEqual([
      'Disable globex? Its API keys are refused at once and its tasks wait until it is enabled.',
    ]);
    await row().locator('[data-status="disabled"]').waitFor();
    expect((await h.admin.getTenant('globex'))?.disabledAt).toBeInstanceOf(Date);
    await shot('10-tenant-disabled');
    await row().getByRole('button', { name: 'Enable' }).click();
    await page.getByText('Tenant enabled:').waitFor();
    expect((await h.admin.getTenant('globex'))?.disabledAt).toBeNull();
  });
});
