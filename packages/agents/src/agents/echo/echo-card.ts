import type { AgentCardTemplate } from '../../agent.ts';

export const echoCard: AgentCardTemplate = {
  name: 'Echo',
  description:
    'Echoes the text of your message back. Message-vs-Task rule: a message whose text is exactly ' +
    '"reply" is answered with a single Message echoing it; every other message is answered with a ' +
    'Task that completes at once with an "echo" artifact holding your text parts. A message without ' +
    'text parts is rejected.',
  version: '1.0.0',
  skills: [
    {
      id: 'echo',
      name: 'Echo',
      description: 'Returns the text parts of the message as an artifact named "echo" on a completed task.',
      tags: ['echo', 'test', 'task'],
      examples: ['hello world', 'ping'],
      inputModes: ['text/plain'],
      outputModes: ['text/plain'],
    },
    {
      id: 'echo-reply',
      name: 'Echo as a Message',
      description: 'Send exactly "reply" to get the echo as a single Message, with no task.',
      tags: ['echo', 'test', 'message'],
      examples: ['reply'],
      inputModes: ['text/plain'],
      outputModes: ['text/plain'],
    },
  ],
  defaultInputModes: ['text/plain', 'application/json'],
  defaultOutputModes: ['text/plain'],
};
