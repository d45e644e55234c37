import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '@switchyard/telemetry';

const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;
/** The slowest reading a large reply is allowed before its connection is cut: 32 KB a second. */
const MIN_DRAIN_BYTES_PER_SECOND = 32 * 1024;

/**
 * How long a client may take to read what is buffered after a write of `bytes`: the drain timeout,
 * or longer for a large one (a task with MBs of artifacts), which a client reading steadily over a
 * slow link needs more time for: 16 MB at 32 KB/s is about 8.5 minutes.
 */
export function drainTimeoutFor(
  bytes: number,
  drainTimeoutMs = DEFAULT_DRAIN_TIMEOUT_MS,
  minBytesPerSecond = MIN_DRAIN_BYTES_PER_SECOND,
): number {
  return Math.max(drainTimeoutMs, Math.ceil((bytes / minBytesPerSecond) * 1000));
}

export interface DrainDeadline {
  /** The least time a client gets to read an ended reply's unsent bytes, ms. */
  drainTimeoutMs?: number;
  /** The slowest reading allowed a large reply, bytes a second. */
  minBytesPerSecond?: number;
}

/**
 * Cuts the connection of a client that does not read its reply. Node keeps an ended reply's unsent
 * bytes in memory until the socket takes them, and no server timeout covers a socket that stops
 * reading once its request is in: a client that asks for a task with MBs of artifacts and never
 * reads would hold them for as long as it keeps the connection, and a few hundred such clients
 * would hold the gateway's memory. Once the reply has ended, the client gets `drainTimeoutFor`
 * its unsent bytes to read them; then the socket is destroyed.
 */
export function replyDrainDeadline(
  logOf: (req: Request) => Logger,
  deadline: DrainDeadline = {},
): RequestHandler {
  return (req, res, next) => {
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.end = ((...args: unknown[]) => {
      const result = end(...args);
      if (!res.writableFinished) watchDrain(res, logOf(req), deadline);
      return result;
    }) as Response['end'];
    next();
  };
}

function watchDrain(res: Response, log: Logger, deadline: DrainDeadline): void {
  const unsent = res.writableLength;
  const timer = setTimeout(
    () => {
      if (res.writableFinished || res.destroyed) return;
      log.warn({ unsentBytes: res.writableLength }, 'client did not read its reply; closing its connection');
      res.destroy();
    },
    drainTimeoutFor(unsent, deadline.drainTimeoutMs, deadline.minBytesPerSecond),
  ).unref();
  const done = (): void => clearTimeout(timer);
  res.once('finish', done);
  res.once('close', done);
}
