import type { Agent, AgentContext } from '../../agent.ts';
import { choiceSetting } from '../shared/settings.ts';
import { isFollowUp, textOf } from '../shared/message-text.ts';
import { bookingCard } from './booking-card.ts';
import type { BookingIntent, BookingRouter } from './booking-router.ts';
import {
  CHAT_REPLIES,
  TRAVELLERS_QUESTION,
  bookingArtifact,
  bookingConfirmedMessage,
  confirmationCode,
  type Booking,
} from './booking-result.ts';
import { ModelBackedRouter, type CompleteFn } from './model-backed-router.ts';
import { RuleBasedRouter } from './rule-based-router.ts';

export interface BookingAgentOptions {
  /**
   * Any LLM client's completion function. Enables `settings.router: 'model'`; without it that
   * setting falls back to the rules (with a warning), so a registration cannot break the agent.
   */
  complete?: CompleteFn;
  /** A router to use for every message, whatever the settings (tests, custom routing). */
  router?: BookingRouter;
}

const rules = new RuleBasedRouter();

/**
 * The booking agent. Message-vs-Task rule: a task's first message that is not a booking
 * (greeting, thanks, capability question, anything unrecognised) gets ctx.reply, a Message and no
 * task; a booking becomes a Task. All task state comes from the task's own history, so two
 * bookings in flight in one context never see each other, and a re-run after a crash redoes the
 * same decision (the confirmation code is derived from the task id).
 *
 * Settings: `router`: 'rules' (default) | 'model'.
 */
export function createBookingAgent(options: BookingAgentOptions = {}): Agent {
  return {
    executor: 'booking',
    card: bookingCard,
    async execute(ctx) {
      const router = options.router ?? selectRouter(ctx, options.complete);
      const current = ctx.task.history.findIndex((message) => message.messageId === ctx.message.messageId);
      const earlier = current < 0 ? ctx.task.history : ctx.task.history.slice(0, current);
      const intent = await router.route(textOf(ctx.message), earlier);
      if (isFollowUp(ctx.task.history)) await answerTravellers(ctx, intent);
      else await firstMessage(ctx, intent);
    },
  };
}

/** The default instance: rule-based routing (no model client is injected). */
export const bookingAgent: Agent = createBookingAgent();

async function firstMessage(ctx: AgentContext, intent: BookingIntent): Promise<void> {
  if (intent.kind !== 'book') {
    await ctx.reply(CHAT_REPLIES[intent.kind]);
    return;
  }
  if (intent.travellers === undefined) {
    await ctx.requestInput(TRAVELLERS_QUESTION);
    return;
  }
  await confirm(ctx, { type: intent.type, destination: intent.destination, travellers: intent.travellers });
}

/** The task asked one thing, the number of travellers; anything that does not give it asks again. */
async function answerTravellers(ctx: AgentContext, intent: BookingIntent): Promise<void> {
  if (intent.kind !== 'book' || intent.travellers === undefined) {
    await ctx.requestInput(`Please answer with a number. ${TRAVELLERS_QUESTION}`);
    return;
  }
  await confirm(ctx, { type: intent.type, destination: intent.destination, travellers: intent.travellers });
}

async function confirm(ctx: AgentContext, booking: Booking): Promise<void> {
  const confirmation = confirmationCode(ctx.task.id, booking);
  await ctx.emitArtifact(bookingArtifact(booking, confirmation));
  await ctx.complete(bookingConfirmedMessage(booking, confirmation));
}

function selectRouter(ctx: AgentContext, complete: CompleteFn | undefined): BookingRouter {
  const choice = choiceSetting(ctx.settings, 'router', ['rules', 'model'], 'rules', (problem) =>
    ctx.log.warn(problem, 'invalid booking router setting'),
  );
  if (choice === 'rules') return rules;
  if (complete === undefined) {
    ctx.log.warn({ router: choice }, 'router "model" needs a completion function; using the rules');
    return rules;
  }
  return new ModelBackedRouter({
    complete,
    fallback: rules,
    onFallback: (reason, detail) =>
      // The model's raw output can be long or echo user data: log its length, not its text.
      ctx.log.warn(
        { reason, error: detail.error, outputLength: detail.output?.length },
        'booking router fell back to the rules',
      ),
  });
}
