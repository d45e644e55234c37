import type { Request, Response } from 'express';
import { A2AError } from '@switchyard/protocol';

/** Each request's reservation, so a stream can let go of it once started (releaseBody). */
const releases = new WeakMap<object, () => void>();

/**
 * Bytes of request bodies one gateway process holds at once (BODY_BYTES_IN_FLIGHT_MAX). A body
 * costs the gateway several times its size while its request runs (the bytes, the text, the
 * parsed value, its JSON again for Postgres): forty 3 MB sends at once took a gateway from 160 to
 * 730 MB, far past a pod's memory limit. Bytes are taken as they arrive, so a client that sends
 * slowly holds only what it sent, not what it declared; a chunk that does not fit beside what
 * other requests hold refuses its request (Unavailable, Retry-After), which changes nothing. The
 * budget is never smaller than BODY_LIMIT_BYTES, so a body of the largest size always passes alone.
 *
 * One owner (a tenant) holds at most half of it, or one largest body where the budget is smaller
 * than two: a tenant that opens a few large sends and trickles their bytes would otherwise hold
 * all of it, and every other tenant's requests would be refused. An owner's only body in flight
 * is judged by the whole budget alone, so a body of the largest size still passes.
 */
export class BodyBudget {
  readonly maxBytes: number;
  readonly maxBytesPerOwner: number;
  #held = 0;
  readonly #heldBy = new Map<string, number>();

  constructor(maxBytes: number, bodyLimitBytes: number) {
    this.maxBytes = maxBytes;
    this.maxBytesPerOwner = Math.max(Math.floor(maxBytes / 2), Math.min(bodyLimitBytes, maxBytes));
  }

  /**
   * A request's share, held until its response finishes or closes, or its stream starts
   * (releaseBody). `take` adds a chunk's bytes, or throws Unavailable when they do not fit.
   */
  open(req: Request, res: Response, owner: string): { take(bytes: number): void } {
    let mine = 0;
    const release = () => {
      this.#held -= mine;
      this.#add(owner, -mine);
      mine = 0;
    };
    releases.set(req, release);
    res.once('close', release);
    res.once('finish', release);
    return {
      take: (bytes) => {
        if (this.#held - mine > 0 && this.#held + bytes > this.maxBytes) {
          throw new A2AError('Unavailable', {
            retryAfterSeconds: 1,
            message: `the gateway holds its limit of ${this.maxBytes} bytes of request bodies in flight; retry shortly`,
          });
        }
        const ownerHeld = this.#heldBy.get(owner) ?? 0;
        if (ownerHeld - mine > 0 && ownerHeld + bytes > this.maxBytesPerOwner) {
          throw new A2AError('Unavailable', {
            retryAfterSeconds: 1,
            message: `this tenant's requests hold their limit of ${this.maxBytesPerOwner} bytes of request bodies in flight on this gateway; retry shortly`,
          });
        }
        this.#held += bytes;
        this.#add(owner, bytes);
        mine += bytes;
      },
    };
  }

  /** Bytes held for `owner` now (tests and diagnostics). */
  heldBy(owner: string): number {
    return this.#heldBy.get(owner) ?? 0;
  }

  #add(owner: string, bytes: number): void {
    const next = (this.#heldBy.get(owner) ?? 0) + bytes;
    if (next <= 0) this.#heldBy.delete(owner);
    else this.#heldBy.set(owner, next);
  }
}

/** Gives back the request's body reservation: a started stream holds no body any more. */
export function releaseBody(req: object): void {
  releases.get(req)?.();
}
