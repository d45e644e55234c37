import type { AgentCardTemplate } from '../../agent.ts';

export const bookingCard: AgentCardTemplate = {
  name: 'Travel booking',
  description:
    'Books flights and hotels. Message-vs-Task rule: greetings, thanks, "what can you do?" and ' +
    'anything that is not a booking get a single Message (no task); "book a flight to X" or "book a ' +
    'hotel in X" becomes a Task, which asks "How many travellers?" (input-required) unless the ' +
    'request says, and completes with a "booking" artifact.',
  version: '1.0.0',
  skills: [
    {
      id: 'book-flight',
      name: 'Book a flight',
      description: 'Books a flight to a destination for a number of travellers; returns a confirmation.',
      tags: ['travel', 'flight', 'booking', 'multi-turn'],
      examples: ['book a flight to Lisbon', 'book a flight to Tokyo for 2 travellers'],
      outputModes: ['application/json', 'text/plain'],
    },
    {
      id: 'book-hotel',
      name: 'Book a hotel',
      description: 'Books a hotel in a city for a number of travellers; returns a confirmation.',
      tags: ['travel', 'hotel', 'booking', 'multi-turn'],
      examples: ['book a hotel in Rome', 'book a hotel in Oslo for 3 people'],
      outputModes: ['application/json', 'text/plain'],
    },
    {
      id: 'chat',
      name: 'Small talk and help',
      description:
        'Answers greetings, thanks and questions about what the agent can do with a single Message.',
      tags: ['chat', 'help', 'message'],
      examples: ['hello', 'what can you do?', 'thanks'],
      outputModes: ['text/plain'],
    },
  ],
  defaultInputModes: ['text/plain', 'application/json'],
  defaultOutputModes: ['text/plain', 'application/json'],
};
