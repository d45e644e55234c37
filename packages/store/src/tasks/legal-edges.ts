import { allowedInto } from '@switchyard/protocol';
import type { ChangeTaskInput } from '../task-store.ts';

/**
 * The change with its state guard narrowed to the states that may move into the patch's state
 * (the transition table, @switchyard/protocol transitions.ts), so the store itself refuses an
 * illegal edge, whatever guard the caller chose: a versioned change without `fromStates` gets
 * every legal source as its guard, and a `fromStates` that names an illegal source loses it. An
 * illegal edge then matches no row and is a ConflictError, like any guard that does not hold.
 * Without a state in the patch the change does not move the state, and is returned as it is.
 */
export function withLegalEdges(input: ChangeTaskInput): ChangeTaskInput {
  const to = input.patch.state;
  if (to === undefined) return input;
  const legal = allowedInto(to);
  const fromStates = input.fromStates ? input.fromStates.filter((s) => legal.includes(s)) : legal;
  return fromStates.length === input.fromStates?.length ? input : { ...input, fromStates };
}
