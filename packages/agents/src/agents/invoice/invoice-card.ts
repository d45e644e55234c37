import type { AgentCardTemplate } from '../../agent.ts';

export const invoiceCard: AgentCardTemplate = {
  name: 'Invoice reconciler',
  description:
    'Matches payments to invoices and streams the result as matches.json. Message-vs-Task rule: ' +
    'always a Task (reconciliation is work to track). It may stop in input-required to ask whether ' +
    'unmatched invoices under 50 EUR count as rounding differences; the answer is remembered for ' +
    'later tasks in the same context.',
  version: '1.0.0',
  skills: [
    {
      id: 'reconcile-invoices',
      name: 'Reconcile invoices',
      description:
        'Send a data part {invoices:[{id,amount,currency}], payments:[{id,invoiceId?,amount}]} (or the same ' +
        'JSON as text; any other text uses a built-in sample). Payments that reference an invoice match it; ' +
        'others match an open invoice with the same amount. Returns the artifact matches.json in three chunks.',
      tags: ['finance', 'invoices', 'reconciliation', 'streaming', 'multi-turn'],
      examples: [
        'reconcile the sample data',
        '{"invoices":[{"id":"INV-1","amount":100,"currency":"EUR"}],"payments":[{"id":"P-1","amount":100}]}',
      ],
      inputModes: ['application/json', 'text/plain'],
      outputModes: ['application/json', 'text/plain'],
    },
  ],
  defaultInputModes: ['text/plain', 'application/json'],
  defaultOutputModes: ['application/json', 'text/plain'],
};
