import { readFile } from 'node:fs/promises';
import { A2AClient } from '../client/a2a-client.ts';
import { agentCardUrl } from '../card/card-url.ts';
import type { SupportedBinding } from '../version.ts';
import type { CommandContext } from './command.ts';
import { UsageError } from './usage-error.ts';

const TRANSPORTS: Record<string, SupportedBinding> = {
  jsonrpc: 'JSONRPC',
  'json-rpc': 'JSONRPC',
  rest: 'HTTP+JSON',
  http: 'HTTP+JSON',
  'http+json': 'HTTP+JSON',
};

/** The A2A client for `<agent-url>`: its card, the chosen (or forced) transport, the API key. */
export async function connect(ctx: CommandContext, agentUrl: string): Promise<A2AClient> {
  let cardUrl: string;
  try {
    cardUrl = agentCardUrl(agentUrl);
  } catch {
    throw new UsageError(`not a URL: ${agentUrl}`);
  }
  const forced = ctx.values.transport;
  const transport = forced === undefined ? undefined : TRANSPORTS[forced.toLowerCase()];
  if (forced !== undefined && transport === undefined)
    throw new UsageError(`--transport must be jsonrpc or rest, not ${forced}`);
  const apiKey = ctx.values['api-key'] ?? ctx.env['SWITCHYARD_API_KEY'];
  return A2AClient.fromCardUrl(
    cardUrl,
    {
      ...(apiKey ? { apiKey } : {}),
      ...(transport ? { transport } : {}),
      headers: parseHeaders(ctx.values.header ?? []),
    },
    // Ctrl-C while the card is fetched ends the command at once, not after the fetch gives up.
    { signal: ctx.signal },
  );
}

/** `-H 'Name: value'`, repeatable. */
function parseHeaders(values: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(':');
    if (colon <= 0) throw new UsageError(`--header must look like "Name: value", not ${value}`);
    headers[value.slice(0, colon).trim()] = value.slice(colon + 1).trim();
  }
  return headers;
}

/** A whole, non-negative number from an option. */
/** The longest --timeout, in seconds: Node's longest timer (about 24.8 days); a longer one fires at once. */
export const MAX_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

export function intOption(
  value: string | undefined,
  name: string,
  { min = 0, max = Number.MAX_SAFE_INTEGER } = {},
): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, not ${value}`);
  }
  return Number(value);
}

/** JSON from an option: inline when it starts with `{` or `[`, otherwise read from that file. */
export async function jsonOption(value: string, name: string): Promise<unknown> {
  let text = value;
  if (!/^\s*[[{]/.test(value)) {
    try {
      text = await readFile(value, 'utf8');
    } catch (err) {
      throw new UsageError(`--${name}: cannot read ${value}: ${(err as Error).message}`);
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageError(`--${name} is not valid JSON: ${(err as Error).message}`);
  }
}
