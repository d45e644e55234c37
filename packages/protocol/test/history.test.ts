import { describe, expect, it } from 'vitest';
import { trimHistory, withTrimmedHistory, type Task } from '../src/index.ts';

const history = ['m1', 'm2', 'm3', 'm4'];

describe('§7.3 historyLength semantics', () => {
  it('unset returns the whole history (our default)', () => expect(trimHistory(history)).toEqual(history));
  it('0 returns no history: the field is omitted', () => expect(trimHistory(history, 0)).toBeUndefined());
  it('N > 0 returns the N most recent messages', () => expect(trimHistory(history, 2)).toEqual(['m3', 'm4']));
  it('N larger than the history returns all of it', () => expect(trimHistory(history, 10)).toEqual(history));
  it('N equal to the length returns all of it', () => expect(trimHistory(history, 4)).toEqual(history));
  it('an absent history stays absent', () => expect(trimHistory(undefined, 3)).toBeUndefined());
  it('an empty history stays empty', () => expect(trimHistory([], 3)).toEqual([]));
  it('returns a copy, never the stored array', () => {
    const out = trimHistory(history);
    expect(out).not.toBe(history);
  });
  it('negative values are a programming error (validation rejects them first)', () => {
    expect(() => trimHistory(history, -1)).toThrow(RangeError);
    expect(() => trimHistory(history, 1.5)).toThrow(RangeError);
  });

  it('withTrimmedHistory omits the history key for 0', () => {
    const task: Task = {
      id: 't',
      contextId: 'c',
      status: { state: 'TASK_STATE_WORKING' },
      history: [
        { messageId: 'a', role: 'ROLE_USER', parts: [{ text: 'x' }] },
        { messageId: 'b', role: 'ROLE_AGENT', parts: [{ text: 'y' }] },
      ],
    };
    expect('history' in withTrimmedHistory(task, 0)).toBe(false);
    expect(withTrimmedHistory(task, 1).history?.map((m) => m.messageId)).toEqual(['b']);
    expect(withTrimmedHistory(task).history).toHaveLength(2);
    expect(task.history).toHaveLength(2);
  });
});
