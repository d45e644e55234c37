import { describe, expect, it } from 'vitest';
import { readTaskView } from '../src/tasks/read-task-view.ts';
import type { Caller } from '../src/task-store.ts';
import { sizedTask, text } from './sized-tasks.ts';
import { tenant, useTaskTestEnv } from './task-fixtures.ts';

// A task's history has no size limit (each turn adds a message of up to the request limit), so
// one task's view is held to the budget of a ListTasks page (4 MiB by default): its history keeps
// the newest messages that fit beside its row and its artifacts, which are never cut. The server
// may return fewer messages than all, or than historyLength (digest §7.3).

const env = useTaskTestEnv();
const alice = (tenantId: string): Caller => ({ tenantId, principal: 'alice', admin: false });
const marks = (history: Array<{ parts: Array<{ text?: string }> }> | undefined) =>
  history?.map((m) => m.parts[0]?.text?.slice(0, 2));

describe('one task view within a byte budget', () => {
  it('GetTask (and every view of one task) of a history past 4 MiB gives the newest messages that fit', async () => {
    const t = tenant();
    const history = ['m1', 'm2', 'm3', 'm4', 'm5', 'm6'].map((mark) => text(1_000_000, mark));
    const id = await sizedTask(env, t, { history });
    expect(marks((await env.store.getTask(alice(t), id))?.history)).toEqual(['m3', 'm4', 'm5', 'm6']);
    expect(marks((await env.store.loadTaskView(t, id))?.history)).toEqual(['m3', 'm4', 'm5', 'm6']);
    // The answer to a send or a cancel, built from a row already read.
    const record = await env.store.getTaskRecord(t, id);
    expect(marks((await env.store.viewOf(record!))?.history)).toEqual(['m3', 'm4', 'm5', 'm6']);
    const two = await env.store.getTask(alice(t), id, { historyLength: 2 });
    expect(marks(two?.history)).toEqual(['m5', 'm6']);
  });

  it('counts the artifacts first and never cuts them', async () => {
    const t = tenant();
    const history = ['h1', 'h2', 'h3'].map((mark) => text(60_000, mark));
    const id = await sizedTask(env, t, { history, artifacts: [text(100_000, 'a0')] });
    const view = (options: { includeArtifacts?: boolean }) =>
      readTaskView(env.db, t, id, { caller: alice(t), maxViewBytes: 250_000, ...options });
    const withArtifacts = await view({});
    expect(marks(withArtifacts?.history)).toEqual(['h2', 'h3']);
    expect(withArtifacts?.artifacts?.[0]?.parts[0]?.text).toBe(text(100_000, 'a0'));
    expect(marks((await view({ includeArtifacts: false }))?.history)).toEqual(['h1', 'h2', 'h3']);

    const huge = await sizedTask(env, t, { history: ['hi'], artifacts: [text(300_000, 'a0')] });
    const alone = await readTaskView(env.db, t, huge, { caller: alice(t), maxViewBytes: 250_000 });
    expect(alone?.artifacts?.[0]?.parts[0]?.text).toBe(text(300_000, 'a0'));
    expect(alone).not.toHaveProperty('history');
  });
});
