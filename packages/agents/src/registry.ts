import type { Agent } from './agent.ts';
import { bookingAgent } from './agents/booking/booking-agent.ts';
import { conformanceAgent } from './agents/conformance/conformance-agent.ts';
import { echoAgent } from './agents/echo/echo-agent.ts';
import { invoiceReconcilerAgent } from './agents/invoice/invoice-agent.ts';
import { slowAgent } from './agents/slow/slow-agent.ts';

/**
 * The agents shipped with the platform, by executor name. The booking agent is its default
 * instance (rule-based routing); a composition root that has an LLM client registers
 * `createBookingAgent({ complete })` instead.
 */
export const bundledAgents: readonly Agent[] = Object.freeze([
  echoAgent,
  invoiceReconcilerAgent,
  bookingAgent,
  slowAgent,
  conformanceAgent,
]);

export function findBundledAgent(executor: string): Agent | undefined {
  return bundledAgents.find((agent) => agent.executor === executor);
}
