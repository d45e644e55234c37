import type { Request } from 'express';

/**
 * A named route parameter. Express types params from the path string, and escaped literals such
 * as `:keyId\:rotate` confuse that inference, so read them through one untyped accessor.
 */
export function pathParam(req: Request, name: string): string {
  const params: Record<string, string | string[] | undefined> = req.params;
  const value = params[name];
  return typeof value === 'string' ? value : '';
}
