import type { AgentCardTemplate } from '../../agent.ts';

export const slowCard: AgentCardTemplate = {
  name: 'Slow',
  description:
    'Waits, then answers "done after N ms". Message-vs-Task rule: it answers with a Message when it ' +
    'finishes within its 300 ms quick-reply window; otherwise the platform turns the request into a ' +
    'Task in working state and the answer completes that task. With progress steps configured it ' +
    'streams them, which makes it a Task at once. Canceling stops it promptly.',
  version: '1.0.0',
  skills: [
    {
      id: 'wait',
      name: 'Wait and answer',
      description:
        'Waits settings.delayMs (default 1500) and answers; with settings.steps N it emits N progress ' +
        'events (chunks of the "progress" artifact by default) spread over the delay.',
      tags: ['test', 'demo', 'streaming', 'long-running', 'cancel'],
      examples: ['take your time', 'run the long demo'],
    },
  ],
  defaultInputModes: ['text/plain', 'application/json'],
  defaultOutputModes: ['text/plain'],
};
