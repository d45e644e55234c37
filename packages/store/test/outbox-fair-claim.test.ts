import type { TestDatabase } from '@switchyard/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db.ts';
import type { ClaimDeliveriesInput, ClaimedDelivery, PostgresOutboxStore } from '../src/outbox/index.ts';
import { createSecretBox } from '../src/secret-box.ts';
import {
  openOutboxDatabase,
  seedDeliveries,
  seedEvents,
  seedPushConfig,
  seedPushedTask,
  seedTask,
} from './outbox-fixtures.ts';

// Fairness of the claim: tenants take turns, each up to its share of the pusher's slots, and
// receivers at the pusher's per-host cap are left for later.
const secrets = createSecretBox('outbox-fair-claim-test-key');
let testDb: TestDatabase;
let db: Db;
let outbox: PostgresOutboxStore;

beforeAll(async () => {
  // Ids sort in this order: the round robin visits tenants by id.
  ({ testDb, db, outbox } = await openOutboxDatabase(secrets, ['aa-backlog', 'bb-single', 'cc-third']));
});
afterEach(async () => {
  await db.deleteFrom('push_deliveries').execute();
});
afterAll(async () => {
  await testDb.drop();
});

const claim = (input: Partial<ClaimDeliveriesInput> = {}) =>
  outbox.claimDueDeliveries({ workerId: 'w1', limit: 4, lockMs: 30_000, ...input });
const tenants = (ds: ClaimedDelivery[]) => ds.map((d) => d.tenantId);
const noShares = {
  perTenant: 4,
  inFlightByTenant: new Map<string, number>(),
  perHost: 4,
  inFlightByHost: new Map<string, number>(),
};

/** `count` tasks of `tenantId`, one delivery each, due since `dueAgoMs`. */
async function backlog(tenantId: string, count: number, dueAgoMs: number, url?: string): Promise<void> {
  for (let i = 0; i < count; i++) {
    const taskId = await seedTask(db, { tenantId });
    await seedEvents(db, tenantId, taskId, [1]);
    const configId = await seedPushConfig(db, secrets, { tenantId, taskId, ...(url ? { url } : {}) });
    await seedDeliveries(db, {
      tenantId,
      taskId,
      configId,
      seqs: [1],
      nextAttemptAt: new Date(Date.now() - dueAgoMs),
    });
  }
}

describe('fair claims', () => {
  it('a tenant’s older backlog delays another tenant’s delivery by one claim at most', async () => {
    await backlog('aa-backlog', 12, 3_600_000);
    await backlog('bb-single', 1, 1000);

    // No per-tenant cap: the first claim is the backlog's (it comes first), the next starts after it.
    const first = await claim();
    expect(tenants(first)).toEqual(['aa-backlog', 'aa-backlog', 'aa-backlog', 'aa-backlog']);
    const second = await claim({ afterTenant: first.at(-1)!.tenantId });
    expect(tenants(second)[0]).toBe('bb-single');
  });

  it('takes at most a tenant’s share per claim, so one claim serves several tenants', async () => {
    await backlog('aa-backlog', 12, 3_600_000);
    await backlog('bb-single', 1, 1000);
    await backlog('cc-third', 3, 1000);

    const batch = await claim({ shares: { ...noShares, perTenant: 2 } });
    expect(tenants(batch)).toEqual(['aa-backlog', 'aa-backlog', 'bb-single', 'cc-third']);
  });

  it('leaves out a tenant at its share and gives a tenant near it only the rest', async () => {
    await backlog('aa-backlog', 6, 3_600_000);
    await backlog('bb-single', 3, 1000);

    const inFlight = (aa: number) => ({
      ...noShares,
      perTenant: 3,
      inFlightByTenant: new Map([['aa-backlog', aa]]),
    });
    expect(tenants(await claim({ shares: inFlight(3) }))).toEqual(['bb-single', 'bb-single', 'bb-single']);
    await db.deleteFrom('push_deliveries').where('tenant_id', '=', 'bb-single').execute();
    expect(tenants(await claim({ shares: inFlight(2) }))).toEqual(['aa-backlog']);
  });

  it('visits tenants in id order from the one after `afterTenant`, wrapping round; rows come in that order', async () => {
    for (const tenantId of ['aa-backlog', 'bb-single', 'cc-third']) await backlog(tenantId, 1, 1000);
    expect(tenants(await claim({ afterTenant: 'bb-single' }))).toEqual([
      'cc-third',
      'aa-backlog',
      'bb-single',
    ]);
  });

  it('skips receivers at the caller’s cap; a receiver is the URL’s host and port, lowercased, without user info', async () => {
    await backlog('aa-backlog', 3, 3_600_000, 'https://user:secret@Slow.Example.com:8443/hook?x=1');
    await backlog('aa-backlog', 1, 1000, 'https://fast.example.com/hook');

    const all = await claim();
    expect(new Set(all.map((d) => d.receiverHost))).toEqual(
      new Set(['slow.example.com:8443', 'fast.example.com']),
    );
    await db
      .updateTable('push_deliveries')
      .set({ locked_until: new Date(Date.now() - 1000) })
      .execute();

    const full = new Map([['slow.example.com:8443', 4]]);
    const capped = await claim({ shares: { ...noShares, inFlightByHost: full } });
    expect(capped.map((d) => d.receiverHost)).toEqual(['fast.example.com']);
  });

  it('tenants sharing a receiver take turns at its room, and a claim takes no more than the room', async () => {
    const hook = 'https://shared.example.com/hook';
    for (const tenantId of ['aa-backlog', 'bb-single', 'cc-third']) await backlog(tenantId, 3, 1000, hook);
    const oneFree = new Map([['shared.example.com', 3]]);
    const taken: string[] = [];
    let afterTenant = '';
    for (let k = 0; k < 4; k++) {
      // One slot free at the receiver: one delivery a claim, from the next tenant in turn.
      const batch = await claim({ afterTenant, shares: { ...noShares, inFlightByHost: oneFree } });
      expect(batch).toHaveLength(1);
      taken.push(batch[0]!.tenantId);
      afterTenant = batch[0]!.tenantId;
    }
    expect(taken).toEqual(['aa-backlog', 'bb-single', 'cc-third', 'aa-backlog']);
    // Nothing past the room was stamped: the other deliveries were never claimed.
    const claimed = await db.selectFrom('push_deliveries').where('attempts', '>', 0).select('seq').execute();
    expect(claimed).toHaveLength(4);
  });

  it('keeps per-task order: a task’s next event waits for the one in flight, whatever the shares', async () => {
    const { taskId } = await seedPushedTask(db, secrets, 'aa-backlog', [1, 2, 3]);
    expect((await claim({ shares: noShares })).map((d) => d.seq)).toEqual([1]);
    expect(await claim({ shares: noShares, afterTenant: 'aa-backlog' })).toEqual([]);
    expect((await outbox.listDeliveries('aa-backlog', taskId)).map((r) => r.attempts)).toEqual([1, 0, 0]);
  });

  it('leaves a disabled tenant’s deliveries waiting, unclaimed, until it is enabled again', async () => {
    await backlog('aa-backlog', 2, 3_600_000);
    await backlog('bb-single', 1, 1000);
    const setDisabled = (disabled: boolean) =>
      db
        .updateTable('tenants')
        .set({ disabled_at: disabled ? new Date() : null })
        .where('id', '=', 'aa-backlog')
        .execute();
    await setDisabled(true);
    try {
      expect(tenants(await claim())).toEqual(['bb-single']);
      // From any place in the turn order, and never stamped: no attempt is spent on them.
      expect(await claim({ afterTenant: 'bb-single' })).toEqual([]);
      const stamped = await db
        .selectFrom('push_deliveries')
        .where('tenant_id', '=', 'aa-backlog')
        .where('attempts', '>', 0)
        .select('seq')
        .execute();
      expect(stamped).toEqual([]);
    } finally {
      await setDisabled(false);
    }
    expect(tenants(await claim())).toEqual(['aa-backlog', 'aa-backlog']);
  });
});

describe('releaseDeliveries', () => {
  it('hands claims back unsent: unlocked, due at once, the attempt not counted', async () => {
    const { taskId, configId } = await seedPushedTask(db, secrets, 'bb-single', [1]);
    const [claimed] = await claim();
    expect(claimed?.attempts).toBe(1);

    expect(await outbox.releaseDeliveries('w1', [claimed!])).toBe(1);
    const [row] = await outbox.listDeliveries('bb-single', taskId);
    expect(row).toMatchObject({ status: 'pending', attempts: 0, lockedBy: null, lockedUntil: null });
    const [again] = await claim();
    expect(again).toMatchObject({ taskId, configId, seq: 1, attempts: 1 });
  });

  it('leaves alone a claim that is not the caller’s', async () => {
    const { taskId } = await seedPushedTask(db, secrets, 'bb-single', [1]);
    const [claimed] = await claim();
    expect(await outbox.releaseDeliveries('w2', [claimed!])).toBe(0);
    const [row] = await outbox.listDeliveries('bb-single', taskId);
    expect(row).toMatchObject({ attempts: 1, lockedBy: 'w1' });
  });
});
