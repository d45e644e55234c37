import type { RequestHandler } from 'express';
import { versionNotSupported } from '@switchyard/protocol';
import { unsupportedMediaType } from '../http/edge-error.ts';
import { hasBody, isJsonMediaType } from '../http/read-json-body.ts';
import { stateOf, type Binding } from '../http/request-state.ts';
import { BINDING_VERSIONS, negotiatedVersion } from './service-params.ts';

/**
 * The checks that need neither a credential nor the body, run before authentication: a body that
 * is not JSON (415, ContentTypeNotSupported) and, on HTTP+JSON, an `A2A-Version` the binding does
 * not serve (VersionNotSupported). They say nothing about tenants, agents or tasks, so a client
 * learns what is wrong with its framing even without a key (the TCK's raw checks send none). A
 * JSON-RPC version is checked after the body is read, so its error can echo the request's id.
 */
export function framingGuard(binding: Binding): RequestHandler {
  return (req, _res, next) => {
    stateOf(req).binding = binding;
    if (hasBody(req) && !isJsonMediaType(req.headers['content-type'])) throw unsupportedMediaType();
    if (binding === 'rest') {
      const negotiated = negotiatedVersion(req, 'rest');
      if (!negotiated.ok) throw versionNotSupported(negotiated.requested, BINDING_VERSIONS.rest);
    }
    next();
  };
}
