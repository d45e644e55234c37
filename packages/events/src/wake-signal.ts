/**
 * Wakes a loop that polls as a fallback (the pusher's claim loop, a blocking wait). Notifications
 * coalesce, and one that arrives while the loop is busy is kept, not lost: any number of them make
 * the loop run once more, never queue up. `wakeAt` arms one timer for the earliest known due time
 * (a retry this process scheduled), so short backoffs are not stretched to the poll interval.
 */
export class WakeSignal {
  #pending = false;
  #resolve: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Infinity;

  notify(): void {
    const resolve = this.#resolve;
    if (resolve) {
      this.#resolve = undefined;
      resolve();
    } else {
      this.#pending = true;
    }
  }

  /** Resolves on the next notification (or at once if one arrived meanwhile), or after `ms`. */
  wait(ms: number): Promise<void> {
    if (this.#pending) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timeout = setTimeout(() => {
        this.#resolve = undefined;
        resolve();
      }, ms);
      this.#resolve = () => {
        clearTimeout(timeout);
        resolve();
      };
    });
  }

  wakeAt(at: Date): void {
    const when = at.getTime();
    if (when >= this.#timerAt) return;
    clearTimeout(this.#timer);
    this.#timerAt = when;
    this.#timer = setTimeout(
      () => {
        this.#timerAt = Infinity;
        this.#timer = undefined;
        this.notify();
      },
      Math.max(0, when - Date.now()),
    );
  }

  /** Clears the timer and releases a waiter. */
  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Infinity;
    this.notify();
  }
}
