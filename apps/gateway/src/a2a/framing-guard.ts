import type { RequestHandler } from 'express';
import { versionNotSupported } from '@switchyard/protocol';
import { unsupportedMediaType } from '../http/edge-error.ts';
import { hasBody, isJsonMediaType } from '../http/read-json-body.ts';
import { stateOf } from '../http/request-state.ts';
import { BINDING_VERSIONS, negotiatedVersion } from './service-params.ts';

/**
 * The checks that need neither a credential nor the body, run before authentication: a body that
 * is not JSON (415, ContentTypeNotSupported) and an `A2A-Version` the binding does not serve
 * (VersionNotSupported). They say nothing about tenants, agents or tasks, so a client learns what
 * is wrong with its framing even without a key (the TCK's raw checks send none), the same on both
 * bindings. A JSON-RPC refusal still echoes the request's id (jsonrpc/early-refusal-id.ts).
 */
export function framingGuard(binding: 'jsonrpc' | 'rest'): RequestHandler {
  return (req, _res, next) => {
    stateOf(req).binding = binding;
    if (hasBody(req) && !isJsonMediaType(req.headers['content-type'])) throw unsupportedMediaType();
    const negotiated = negotiatedVersion(req, binding);
    if (!negotiated.ok) throw versionNotSupported(negotiated.requested, BINDING_VERSIONS[binding]);
    next();
  };
}
