import { A2AError, type AgentCard } from '@switchyard/protocol';
import { parseJson, record } from '../errors/decode-error.ts';
import { A2AResponseError } from '../errors/response-error.ts';
import type { HttpClient } from '../http/http-client.ts';
import { readText } from '../http/read-body.ts';

/**
 * GETs a public agent card (retried like any read) and checks it is a 1.0 card: v0.3 cards have a
 * top-level `url` instead of `supportedInterfaces` (digest §13.4) and are refused with a message
 * that says so.
 */
export async function fetchAgentCard(
  http: HttpClient,
  url: string,
  signal?: AbortSignal,
): Promise<AgentCard> {
  return http.retrying(async () => {
    const response = await http.fetch({ method: 'GET', url, accept: 'application/json', signal });
    const card = record(parseJson(await readText(response, signal)));
    if (!card) throw cardError(`the agent card at ${url} is not a JSON object`, response.status);
    if (!Array.isArray(card['supportedInterfaces'])) {
      const hint = typeof card['url'] === 'string' ? ' (it looks like an A2A 0.3 card)' : '';
      throw cardError(
        `the agent card at ${url} has no supportedInterfaces${hint}; this client speaks A2A 1.0`,
        response.status,
      );
    }
    return card as unknown as AgentCard;
  }, signal);
}

function cardError(message: string, status: number): A2AResponseError {
  return new A2AResponseError(new A2AError('VersionNotSupported', { message }), status);
}
