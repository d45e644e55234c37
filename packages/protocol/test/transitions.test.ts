import { describe, expect, it } from 'vitest';
import {
  IllegalTransitionError,
  INTERRUPTED_STATES,
  TASK_STATES,
  TERMINAL_STATES,
  TaskState,
  allowedFrom,
  allowedInto,
  assertTransition,
  canTransition,
  isInterrupted,
  isTaskState,
  isTerminal,
} from '../src/index.ts';

const S = TaskState;

// The expected table, written out independently of src/transitions.ts.
const EXPECTED: ReadonlyArray<readonly [TaskState, TaskState]> = [
  [S.SUBMITTED, S.WORKING],
  [S.SUBMITTED, S.FAILED],
  [S.SUBMITTED, S.CANCELED],
  [S.SUBMITTED, S.REJECTED],
  [S.WORKING, S.WORKING],
  [S.WORKING, S.INPUT_REQUIRED],
  [S.WORKING, S.AUTH_REQUIRED],
  [S.WORKING, S.COMPLETED],
  [S.WORKING, S.FAILED],
  [S.WORKING, S.CANCELED],
  [S.WORKING, S.REJECTED],
  [S.INPUT_REQUIRED, S.WORKING],
  [S.INPUT_REQUIRED, S.CANCELED],
  [S.INPUT_REQUIRED, S.FAILED],
  [S.AUTH_REQUIRED, S.WORKING],
  [S.AUTH_REQUIRED, S.CANCELED],
  [S.AUTH_REQUIRED, S.FAILED],
];
const allowed = new Set(EXPECTED.map(([from, to]) => `${from}>${to}`));
const allPairs = TASK_STATES.flatMap((from) => TASK_STATES.map((to) => [from, to] as const));

describe('§2.1 TaskState classes', () => {
  it('has the 9 proto values', () => {
    expect(TASK_STATES).toHaveLength(9);
    expect(new Set(TASK_STATES).size).toBe(9);
  });

  it('terminal = COMPLETED, FAILED, CANCELED, REJECTED', () => {
    expect([...TERMINAL_STATES].sort()).toEqual([S.CANCELED, S.COMPLETED, S.FAILED, S.REJECTED].sort());
    for (const s of TASK_STATES) expect(isTerminal(s)).toBe(TERMINAL_STATES.includes(s));
  });

  it('interrupted = INPUT_REQUIRED, AUTH_REQUIRED', () => {
    expect([...INTERRUPTED_STATES].sort()).toEqual([S.AUTH_REQUIRED, S.INPUT_REQUIRED].sort());
    for (const s of TASK_STATES) expect(isInterrupted(s)).toBe(INTERRUPTED_STATES.includes(s));
  });

  it('isTaskState accepts only enum names', () => {
    expect(isTaskState('TASK_STATE_WORKING')).toBe(true);
    expect(isTaskState('working')).toBe(false);
    expect(isTaskState(2)).toBe(false);
  });
});

describe('transition table: all 81 pairs', () => {
  it.each(allPairs)('%s → %s matches the table', (from, to) => {
    const expected = allowed.has(`${from}>${to}`);
    expect(canTransition(from, to)).toBe(expected);
    if (expected) expect(() => assertTransition(from, to)).not.toThrow();
    else expect(() => assertTransition(from, to)).toThrow(IllegalTransitionError);
  });

  it('allowedFrom lists exactly the table edges', () => {
    for (const from of TASK_STATES) {
      const expected = EXPECTED.filter(([f]) => f === from).map(([, t]) => t);
      expect([...allowedFrom(from)].sort()).toEqual(expected.sort());
    }
  });

  it('allowedInto is the inverse of allowedFrom (the CAS guard set)', () => {
    expect([...allowedInto(S.WORKING)].sort()).toEqual(
      [S.SUBMITTED, S.WORKING, S.INPUT_REQUIRED, S.AUTH_REQUIRED].sort(),
    );
    expect([...allowedInto(S.COMPLETED)]).toEqual([S.WORKING]);
  });
});

describe('§7.1 rule 8: terminal tasks are immutable', () => {
  for (const from of TERMINAL_STATES) {
    for (const to of TASK_STATES) {
      it(`${from} → ${to} is rejected`, () => {
        expect(canTransition(from, to)).toBe(false);
        expect(() => assertTransition(from, to)).toThrow(IllegalTransitionError);
      });
    }
    it(`${from} has no outgoing edge`, () => expect(allowedFrom(from)).toEqual([]));
  }
});

describe('§2.1 TASK_STATE_UNSPECIFIED is never a real state', () => {
  it.each(TASK_STATES)('UNSPECIFIED → %s is rejected', (to) =>
    expect(canTransition(S.UNSPECIFIED, to)).toBe(false),
  );
  it.each(TASK_STATES)('%s → UNSPECIFIED is rejected', (from) =>
    expect(canTransition(from, S.UNSPECIFIED)).toBe(false),
  );
});

describe('IllegalTransitionError', () => {
  it('carries from and to', () => {
    try {
      assertTransition(S.COMPLETED, S.WORKING);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(IllegalTransitionError);
      const e = error as IllegalTransitionError;
      expect(e.name).toBe('IllegalTransitionError');
      expect(e.from).toBe(S.COMPLETED);
      expect(e.to).toBe(S.WORKING);
    }
  });
});
