import { NetworkError } from '../errors/network-error.ts';

/** The reply body as text; a body cut mid-way is a NetworkError (transient), an abort the caller's reason. */
export async function readText(response: Response, signal: AbortSignal | undefined): Promise<string> {
  try {
    return await response.text();
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    throw new NetworkError('reply body interrupted', { cause: err });
  }
}
