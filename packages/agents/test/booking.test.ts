import { TaskState, type Part } from '@switchyard/protocol';
import { describe, expect, it } from 'vitest';
import {
  AgentHarness,
  TRAVELLERS_QUESTION,
  bookingAgent,
  createBookingAgent,
  runAgentForTest,
} from '../src/index.ts';

const textOf = (parts: Part[] | undefined): string => parts?.[0]?.text ?? '';

describe('booking agent', () => {
  it.each(['hello', 'thanks!', 'what can you do?', 'sing me a song'])(
    'answers %j with a Message and no task',
    async (text) => {
      const result = await runAgentForTest(bookingAgent, text);
      expect(result.outcome).toBe('message');
      expect(result.task.visible).toBe(false);
      expect(result.calls.map((call) => call.kind)).toEqual(['reply']);
    },
  );

  it('describes its skills when asked what it can do', async () => {
    const result = await runAgentForTest(bookingAgent, 'what can you do?');
    expect(textOf(result.reply?.parts)).toContain('book flights and hotels');
  });

  it('makes a booking a Task that asks "How many travellers?"', async () => {
    const result = await runAgentForTest(bookingAgent, 'book a flight to Lisbon');
    expect(result.outcome).toBe('task');
    expect(result.task.state).toBe(TaskState.INPUT_REQUIRED);
    expect(textOf(result.task.statusMessage?.parts)).toBe(TRAVELLERS_QUESTION);
  });

  it('completes with a booking artifact and a status message on the answer', async () => {
    const harness = new AgentHarness(bookingAgent);
    const asked = await harness.send('book a hotel in New York');
    const done = await harness.continueTask(asked.taskId, '3');
    expect(done.task.state).toBe(TaskState.COMPLETED);
    const [artifact] = done.task.artifacts;
    expect(artifact?.artifactId).toBe('booking');
    expect(artifact?.parts[0]?.data).toEqual({
      type: 'hotel',
      destination: 'New York',
      travellers: 3,
      confirmation: expect.stringMatching(/^SY-[0-9A-F]{8}$/),
    });
    expect(textOf(done.task.statusMessage?.parts)).toMatch(
      /^Booked a hotel in New York for 3 travellers\. Confirmation SY-/,
    );
  });

  it('does not ask when the request already gives the number of travellers', async () => {
    const result = await runAgentForTest(bookingAgent, 'Please book a flight to Tokyo for two people.');
    expect(result.task.state).toBe(TaskState.COMPLETED);
    expect(result.task.artifacts[0]?.parts[0]?.data).toMatchObject({
      type: 'flight',
      destination: 'Tokyo',
      travellers: 2,
    });
    expect(result.calls.some((call) => call.kind === 'requestInput')).toBe(false);
  });

  it('asks again when the answer is not a number of travellers', async () => {
    const harness = new AgentHarness(bookingAgent);
    const asked = await harness.send('book a flight to Oslo');
    const again = await harness.continueTask(asked.taskId, 'hmm, not sure');
    expect(again.task.state).toBe(TaskState.INPUT_REQUIRED);
    expect(textOf(again.task.statusMessage?.parts)).toContain(TRAVELLERS_QUESTION);
    const done = await harness.continueTask(asked.taskId, 'just me');
    expect(done.task.artifacts[0]?.parts[0]?.data).toMatchObject({ destination: 'Oslo', travellers: 1 });
  });

  it('keeps two bookings in flight in one context apart by task', async () => {
    // Agent messages in history too: the agent must not depend on the engine's choice there.
    const harness = new AgentHarness(bookingAgent, { contextId: 'trip', agentMessagesInHistory: true });
    const flight = await harness.send('book a flight to Paris');
    const hotel = await harness.send('book a hotel in Rome');
    expect([flight.contextId, hotel.contextId]).toEqual(['trip', 'trip']);

    // Answered in the opposite order, each with its own number.
    const hotelDone = await harness.continueTask(hotel.taskId, '4');
    const flightDone = await harness.continueTask(flight.taskId, '2');
    expect(flightDone.task.artifacts[0]?.parts[0]?.data).toMatchObject({
      type: 'flight',
      destination: 'Paris',
      travellers: 2,
    });
    expect(hotelDone.task.artifacts[0]?.parts[0]?.data).toMatchObject({
      type: 'hotel',
      destination: 'Rome',
      travellers: 4,
    });
  });

  it('confirms the same booking with the same code when re-run after a crash', async () => {
    const harness = new AgentHarness(bookingAgent);
    const crashed = await harness.start('book a hotel in Kyoto for 2 guests', {
      onCall: (call, run) => call.kind === 'emitArtifact' && run.loseLease(),
    }).result;
    const rerun = await harness.rerun(crashed.taskId);
    expect(rerun.calls.map((call) => [call.kind, call.status])).toEqual([
      ['emitArtifact', 'skipped'],
      ['complete', 'applied'],
    ]);
    expect(textOf(rerun.task.statusMessage?.parts)).toContain(
      String((crashed.task.artifacts[0]?.parts[0]?.data as { confirmation: string }).confirmation),
    );
  });

  describe('router selection', () => {
    const modelSays = (answer: string) => {
      const prompts: string[] = [];
      const complete = (prompt: string): Promise<string> => {
        prompts.push(prompt);
        return Promise.resolve(answer);
      };
      return { prompts, complete };
    };

    it('uses the model router when settings say "model" and a completion function is injected', async () => {
      const model = modelSays('{"kind":"book","type":"hotel","destination":"Reykjavik","travellers":5}');
      const agent = createBookingAgent({ complete: model.complete });
      const result = await runAgentForTest(agent, 'somewhere cold for the five of us', {
        settings: { router: 'model' },
      });
      expect(model.prompts).toHaveLength(1);
      expect(model.prompts[0]).toContain('New message: somewhere cold for the five of us');
      expect(result.task.artifacts[0]?.parts[0]?.data).toMatchObject({
        destination: 'Reykjavik',
        travellers: 5,
      });
    });

    it('falls back to the rules, with a warning, when the model answers something malformed', async () => {
      const model = modelSays('Sure! You want to travel.');
      const agent = createBookingAgent({ complete: model.complete });
      const result = await runAgentForTest(agent, 'book a flight to Rome', { settings: { router: 'model' } });
      expect(result.task.state).toBe(TaskState.INPUT_REQUIRED);
      expect(result.logs).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          obj: expect.objectContaining({ reason: 'malformed-output' }),
        }),
      );
    });

    it('ignores the model unless settings ask for it', async () => {
      const model = modelSays('{"kind":"greeting"}');
      const result = await runAgentForTest(
        createBookingAgent({ complete: model.complete }),
        'book a flight to Rome',
      );
      expect(model.prompts).toHaveLength(0);
      expect(result.outcome).toBe('task');
    });

    it('uses the rules when settings say "model" but no completion function was injected', async () => {
      const result = await runAgentForTest(bookingAgent, 'hello', { settings: { router: 'model' } });
      expect(result.outcome).toBe('message');
      expect(result.logs.map((entry) => entry.level)).toEqual(['warn']);
    });
  });
});
