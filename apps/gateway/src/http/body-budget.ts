import type { Request, Response } from 'express';
import { A2AError } from '@switchyard/protocol';

/** Each request's reservation, so a stream can let go of it once started (releaseBody). */
const releases = new WeakMap<object, () => void>();

/**
 * Bytes of request bodies one gateway process holds at once (BODY_BYTES_IN_FLIGHT_MAX). A body
 * costs the gateway several times its size while its request runs (the bytes, the text, the
 * parsed value, its JSON again for Postgres): forty 3 MB sends at once took a gateway from 160 to
 * 730 MB, far past a pod's memory limit. A body that does not fit is refused before it is read,
 * with Unavailable and Retry-After, and changes nothing. The budget is never smaller than
 * BODY_LIMIT_BYTES, and a body is refused only while others are held, so one of the largest size
 * always passes alone.
 */
export class BodyBudget {
  readonly maxBytes: number;
  #held = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  get heldBytes(): number {
    return this.#held;
  }

  /**
   * Holds `bytes` for the request until its response finishes or closes, or its stream starts
   * (releaseBody). Throws Unavailable when they do not fit. `resize` keeps only what a body
   * read without a declared length turned out to take.
   */
  reserve(req: Request, res: Response, bytes: number): { resize(actual: number): void } {
    if (this.#held > 0 && this.#held + bytes > this.maxBytes) {
      throw new A2AError('Unavailable', {
        retryAfterSeconds: 1,
        message: `the gateway holds its limit of ${this.maxBytes} bytes of request bodies in flight; retry shortly`,
      });
    }
    this.#held += bytes;
    let held = bytes;
    const release = () => {
      this.#held -= held;
      held = 0;
    };
    releases.set(req, release);
    res.once('close', release);
    res.once('finish', release);
    return {
      resize: (actual) => {
        if (held === 0) return;
        this.#held += actual - held;
        held = actual;
      },
    };
  }
}

/** Gives back the request's body reservation: a started stream holds no body any more. */
export function releaseBody(req: object): void {
  releases.get(req)?.();
}
