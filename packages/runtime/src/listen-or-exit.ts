import type { Logger } from '@switchyard/telemetry';

/** Why a listen failed, as Node reports it: the code and the port it asked for. */
interface ListenError {
  code?: unknown;
  port?: unknown;
}

const REASONS: Record<string, string> = {
  EADDRINUSE: 'is already in use (another process listens on it)',
  EACCES: 'may not be bound by this user (ports under 1024 need privileges)',
};

/**
 * Runs `listen`; when a port cannot be bound (taken, or privileged) the process ends with one
 * log line naming the port and the setting that chose it, instead of an uncaught exception's
 * stack. `ports` maps each setting to the port it gave (an ops port may be unset). Any other
 * failure is thrown on.
 */
export async function listenOrExit<T>(
  log: Logger,
  ports: Record<string, number | undefined>,
  listen: () => Promise<T>,
): Promise<T> {
  try {
    return await listen();
  } catch (err) {
    const { code, port } = err as ListenError;
    const reason = typeof code === 'string' ? REASONS[code] : undefined;
    if (reason === undefined) throw err;
    const settings = Object.keys(ports).filter((name) => ports[name] === port);
    // Two settings on one port: the second listen fails against the process's own first one.
    const message =
      code === 'EADDRINUSE' && settings.length > 1
        ? `cannot listen: port ${String(port)} is set by ${settings.join(' and ')} (or another process listens on it); give each its own port`
        : `cannot listen: port ${String(port)} ${reason}; ${settings.length ? `set ${settings.join(' or ')} to another port` : 'choose another port'}`;
    log.fatal({ code, port, setting: settings.join(',') || undefined }, message);
    process.exit(1);
  }
}
