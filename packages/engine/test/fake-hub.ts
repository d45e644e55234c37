import type { HintListener } from '@switchyard/events';

/**
 * A subscription hub as an in-memory port for one watcher: `hub` goes where a HintWatcher is
 * expected, `emit` delivers a hint to whoever watches now, when the test says so, and `watchers`
 * says whether anyone does.
 */
export function fakeHub() {
  let listener: HintListener | undefined;
  return {
    hub: {
      watch: (_tenantId: string, _taskId: string, l: HintListener) => {
        listener = l;
        return () => {
          if (listener === l) listener = undefined;
        };
      },
    },
    emit: (hint: Parameters<HintListener>[0]) => listener?.(hint),
    watchers: () => (listener ? 1 : 0),
  };
}
