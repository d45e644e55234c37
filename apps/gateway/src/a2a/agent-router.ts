import { Router } from 'express';
import { methodNotAllowed } from '../http/edge-error.ts';
import { stateOf } from '../http/request-state.ts';
import { readIdOfEarlyRefusal } from '../jsonrpc/early-refusal-id.ts';
import { jsonRpcHandler } from '../jsonrpc/jsonrpc-handler.ts';
import { restHandler } from '../rest/rest-handler.ts';
import { a2aGuard, type A2AGuardDeps } from './a2a-guard.ts';
import { framingGuard } from './framing-guard.ts';
import type { BindingDeps } from './binding-deps.ts';
import { noteJsonRpcVersion } from './service-params.ts';

/**
 * One agent's interfaces, mounted at `/agents/:tenantId/:agentId` (its card is served by the card
 * routes): the JSON-RPC endpoint `/rpc` and the HTTP+JSON routes under `/rest`. Framing is checked
 * before credentials (framing-guard.ts), credentials before anything that reads the store or the
 * body; a JSON-RPC request refused on the way reads its body afterwards, for its id only.
 */
export function agentRouter(guard: A2AGuardDeps, deps: BindingDeps): Router {
  const router = Router({ mergeParams: true });
  router.post(
    '/rpc',
    noteJsonRpcVersion(),
    framingGuard('jsonrpc'),
    a2aGuard('jsonrpc', guard),
    jsonRpcHandler(deps),
    readIdOfEarlyRefusal(deps.bodyLimitBytes),
  );
  router.all('/rpc', (req) => {
    stateOf(req).binding = 'jsonrpc';
    throw methodNotAllowed(req.method, ['POST']);
  });
  router.use('/rest', framingGuard('rest'), a2aGuard('rest', guard), restHandler(deps));
  return router;
}
