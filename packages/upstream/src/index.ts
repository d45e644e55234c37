// @switchyard/upstream: the `a2a-upstream` executor. A tenant registers an existing A2A agent by
// its card URL; workers call it as an A2A client (the official @a2a-js/sdk, 1.0 or 0.3) and map
// its events into the durable task.
export {
  createUpstreamAgent,
  INVALID_RESPONSE_MESSAGE,
  REFUSED_MESSAGE,
  UNAVAILABLE_MESSAGE,
  type UpstreamAgentOptions,
} from './upstream-agent.ts';
export { readUpstreamCard, type UpstreamCardFacts } from './upstream-card.ts';
export { CardProblem, MAX_CARD_BYTES } from './upstream-card-check.ts';
export { DEFAULT_MAX_REPLY_BYTES, MAX_ERROR_BODY_BYTES } from './upstream-fetch.ts';
export {
  HOP_COUNT_HEADER,
  HOPS_METADATA_KEY,
  hopsOf,
  LOOP_MESSAGE,
  MAX_HOPS,
  readHopCountHeader,
  TOO_MANY_HOPS_MESSAGE,
  withHeaderHops,
} from './upstream-hops.ts';
export { upstreamMessageId } from './upstream-link.ts';
export {
  sealUpstreamSettings,
  UPSTREAM_EXECUTOR,
  upstreamRegistrationSchema,
  type UpstreamRegistration,
} from './upstream-settings.ts';
