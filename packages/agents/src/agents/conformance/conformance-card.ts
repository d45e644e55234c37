import type { AgentCardTemplate } from '../../agent.ts';

export const conformanceCard: AgentCardTemplate = {
  name: 'Conformance',
  description:
    'Behaves as the A2A TCK expects of its system under test: the messageId prefix of each message ' +
    'picks the scenario (tck-complete-task, tck-input-required, tck-artifact-text, tck-message-response, ' +
    'tck-reject-task, tck-stream-…). Message-vs-Task rule: a messageId starting tck-message-response is ' +
    'answered with a single Message; every other message with a Task. A message matching no scenario ' +
    'completes its task with a status message naming its id.',
  version: '1.0.0',
  skills: [
    {
      id: 'tck',
      name: 'TCK conformance',
      description: 'Answers the A2A TCK conformance scenarios, chosen by messageId prefix.',
      tags: ['tck', 'conformance', 'test'],
      examples: ['a message with messageId "tck-complete-task-1"'],
      inputModes: ['text/plain'],
      outputModes: ['text/plain', 'application/json'],
    },
  ],
  defaultInputModes: ['text/plain', 'application/json'],
  defaultOutputModes: ['text/plain', 'application/json'],
};
