import { describe, expect, it } from 'vitest';
import { coalescedCalls, coalescedCallsByKey, coalescedStatements } from '../src/coalesced-calls.ts';

/** A batch runner whose batches finish only when the test says so. */
function gatedRunner(answer: (input: number) => number = (n) => n * 10) {
  const batches: number[][] = [];
  const gates: Array<{ open: () => void; fail: (err: Error) => void }> = [];
  const run = (inputs: number[]) =>
    new Promise<number[]>((resolve, reject) => {
      batches.push(inputs);
      gates.push({ open: () => resolve(inputs.map(answer)), fail: reject });
    });
  return { run, batches, gates };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('coalescedCalls', () => {
  it('runs a lone call at once, and the calls that arrive meanwhile as the next batch', async () => {
    const { run, batches, gates } = gatedRunner();
    const call = coalescedCalls(run, 100);
    const first = call(1);
    expect(batches).toEqual([[1]]);
    const rest = [call(2), call(3), call(4)];
    await turn();
    expect(batches).toEqual([[1]]);
    gates[0]!.open();
    expect(await first).toBe(10);
    await turn();
    expect(batches).toEqual([[1], [2, 3, 4]]);
    gates[1]!.open();
    expect(await Promise.all(rest)).toEqual([20, 30, 40]);
  });

  it('splits what piled up into batches of at most maxBatch', async () => {
    const { run, batches, gates } = gatedRunner();
    const call = coalescedCalls(run, 2);
    const calls = [1, 2, 3, 4, 5, 6].map((n) => call(n));
    for (let k = 0; k < 4; k += 1) {
      await turn();
      gates[k]!.open();
    }
    expect(await Promise.all(calls)).toEqual([10, 20, 30, 40, 50, 60]);
    expect(batches).toEqual([[1], [2, 3], [4, 5], [6]]);
  });

  it('a failed batch rejects its own callers only; the next batch still runs', async () => {
    const { run, batches, gates } = gatedRunner();
    const call = coalescedCalls(run, 100);
    const first = call(1);
    const second = call(2);
    gates[0]!.fail(new Error('connection lost'));
    await expect(first).rejects.toThrow('connection lost');
    await turn();
    gates[1]!.open();
    expect(await second).toBe(20);
    expect(batches).toEqual([[1], [2]]);
    // Idle again: a new call starts a batch of its own at once.
    const third = call(3);
    expect(batches).toHaveLength(3);
    gates[2]!.open();
    expect(await third).toBe(30);
  });
});

describe('coalescedCallsByKey', () => {
  const parity = (n: number) => (n % 2 === 0 ? 'even' : 'odd');

  it('batches calls of one key together, and runs different keys side by side', async () => {
    const { run, batches, gates } = gatedRunner();
    const call = coalescedCallsByKey(parity, run, 100);
    const calls = [1, 2, 3, 4, 5, 6].map((n) => call(n));
    // 1 and 2 start at once, each alone in its key; the rest pile up per key.
    expect(batches).toEqual([[1], [2]]);
    gates[0]!.open();
    gates[1]!.open();
    await turn();
    expect(batches).toEqual([[1], [2], [3, 5], [4, 6]]);
    gates[2]!.open();
    gates[3]!.open();
    expect(await Promise.all(calls)).toEqual([10, 20, 30, 40, 50, 60]);
  });

  it('starts afresh once a key runs dry, and a failure stays within its key', async () => {
    const { run, batches, gates } = gatedRunner();
    const call = coalescedCallsByKey(parity, run, 100);
    const odd = call(1);
    const even = call(2);
    gates[0]!.fail(new Error('odd failed'));
    await expect(odd).rejects.toThrow('odd failed');
    gates[1]!.open();
    expect(await even).toBe(20);
    await turn();
    const again = call(3);
    expect(batches).toEqual([[1], [2], [3]]);
    gates[2]!.open();
    expect(await again).toBe(30);
  });
});

describe('coalescedStatements', () => {
  it('gives each caller its own outcome: per-input errors, and each input alone when the batch fails', async () => {
    const alone: number[] = [];
    let failBatch = false;
    const call = coalescedStatements<number, number>(
      () => 'k',
      async (inputs) => {
        if (failBatch) throw new Error('statement refused');
        return inputs.map((n) => (n === 13 ? new Error('conflict 13') : n * 10));
      },
      async (n) => {
        alone.push(n);
        if (n === 7) throw new Error('7 refused alone');
        return n * 100;
      },
      100,
    );
    // A lone call runs alone; the three that pile up meanwhile go as one batch.
    const first = call(1);
    const rest = [call(2), call(13), call(4)].map((p) => p.catch((e: Error) => e.message));
    expect(await first).toBe(100);
    expect(await Promise.all(rest)).toEqual([20, 'conflict 13', 40]);
    failBatch = true;
    const lone = call(5);
    const batch = [call(6), call(7), call(8)].map((p) => p.catch((e: Error) => e.message));
    expect(await lone).toBe(500);
    expect(await Promise.all(batch)).toEqual([600, '7 refused alone', 800]);
    expect(alone).toEqual([1, 5, 6, 7, 8]);
  });

  it('a batch that never reached Postgres (no connection to be had) fails its callers at once, none run alone', async () => {
    const alone: number[] = [];
    let gate!: () => void;
    const call = coalescedStatements<number, number>(
      () => 'k',
      async () => {
        throw new Error('timeout exceeded when trying to connect');
      },
      async (n) => {
        alone.push(n);
        if (n === 1) await new Promise<void>((resolve) => (gate = resolve));
        return n * 100;
      },
      100,
    );
    const first = call(1);
    const batch = [call(2), call(3)].map((p) => p.catch((e: Error) => e.message));
    gate();
    expect(await first).toBe(100);
    expect(await Promise.all(batch)).toEqual([
      'timeout exceeded when trying to connect',
      'timeout exceeded when trying to connect',
    ]);
    expect(alone).toEqual([1]);
  });
});
