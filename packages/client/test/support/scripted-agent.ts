import type { AgentCard } from '@switchyard/protocol';
import type { SupportedBinding } from '../../src/index.ts';
import { recordingFetch, type FaultHook } from './recording-fetch.ts';

/** Where the scripted agent lives; nothing listens there, its fetch answers. */
export const AGENT_URL = 'http://agent.test';
export const CARD_URL = `${AGENT_URL}/.well-known/agent-card.json`;

/** A 1.0 card with one interface of `binding` (JSON-RPC at /rpc, HTTP+JSON at /rest). */
export function scriptedCard(binding: SupportedBinding = 'JSONRPC'): AgentCard {
  return {
    name: 'scripted',
    description: 'an agent played by the test fetch',
    version: '1',
    supportedInterfaces: [
      {
        url: `${AGENT_URL}/${binding === 'JSONRPC' ? 'rpc' : 'rest'}`,
        protocolBinding: binding,
        protocolVersion: '1.0',
      },
    ],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
}

/** The JSON-RPC success reply to `requestBody`, echoing its id. */
export function jsonRpcResult(requestBody: string | undefined, result: unknown): Response {
  const { id } = JSON.parse(requestBody ?? '{}') as { id?: unknown };
  return Response.json({ jsonrpc: '2.0', id, result });
}

/**
 * A recording fetch that plays an agent without a server: it serves the card at CARD_URL and
 * passes every other request to `answer`.
 */
export function scriptedAgentFetch(answer: FaultHook, card: AgentCard = scriptedCard()) {
  return recordingFetch((request, forward, index) =>
    request.url === CARD_URL ? Promise.resolve(Response.json(card)) : answer(request, forward, index),
  );
}
