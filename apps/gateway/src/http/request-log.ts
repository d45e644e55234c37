import { randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { bindToActiveContext, type Logger, type RequestMetrics } from '@switchyard/telemetry';
import { initState } from './request-state.ts';

/**
 * randomUUID() builds its text by concatenation: a tree of 17 cons strings, about 500 bytes, which
 * an SSE request keeps for as long as it is open. Converting it to a number makes V8 flatten it in
 * place (the tree becomes garbage); the NaN is discarded.
 */
function flatten(text: string): string {
  void Number(text);
  return text;
}

/**
 * Gives each request its state and a child logger, and writes one structured line when the reply
 * is done: tenant, agent, A2A method and task, never credentials or bodies.
 */
export function requestLog(log: Logger, metrics?: RequestMetrics): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const requestId = flatten(randomUUID());
    const state = initState(req, log, { requestId });
    // In the request's own context (its server span): the line carries its trace ids.
    res.once(
      'close',
      bindToActiveContext(() => {
        const { identity, agent, method, taskId } = state;
        metrics?.observe(
          {
            method: method ?? (state.binding === 'admin' ? 'admin' : 'none'),
            binding: state.binding === 'jsonrpc' || state.binding === 'rest' ? state.binding : 'http',
            outcome: state.outcome ?? outcomeOf(res),
          },
          (performance.now() - started) / 1000,
        );
        // The line is built only when it will be written (the bench and busy sites run at warn).
        if (!log.isLevelEnabled('info')) return;
        // The A2A guard has put tenant, principal and agent on the request's logger already; other
        // routes (admin) may not have: each is added here only where the logger lacks it.
        state.log.info(
          {
            http: { method: req.method, path: req.originalUrl.split('?')[0], status: res.statusCode },
            durationMs: Math.round(performance.now() - started),
            ...state.notLogged({
              ...(identity
                ? { tenantId: identity.caller.tenantId, principal: identity.caller.principal }
                : {}),
              ...(agent ? { agentId: agent.id } : {}),
              ...(method ? { a2aMethod: method } : {}),
              ...(taskId ? { taskId } : {}),
            }),
            ...(res.writableFinished ? {} : { aborted: true }),
          },
          'request',
        );
      }),
    );
    next();
  };
}

/**
 * A request's outcome by its response alone: `aborted` when the client left before any answer
 * (it was counted `ok`: a status of 200 is only the default), else by its status.
 */
function outcomeOf(res: Response): string {
  if (!res.headersSent) return 'aborted';
  return res.statusCode < 400 ? 'ok' : `http_${res.statusCode}`;
}
