export { encodeHint, decodeHint, MAX_INLINE_PAYLOAD_BYTES, type TaskHint } from './task-hint.ts';
export { HintPublisher } from './hint-publisher.ts';
export { SubscriptionHub, type HintListener } from './subscription-hub.ts';
export { taskEventFeed, type TaskEventFeedOptions } from './task-event-feed.ts';
export {
  TaskEventFollower,
  type FeedEvent,
  type FeedSink,
  type FollowOptions,
  type HintWatcher,
  type ReadEvents,
} from './task-event-follower.ts';
export {
  VersionSweep,
  type ReadVersions,
  type TaskVersion,
  type VersionSweepOptions,
} from './version-sweep.ts';
export { WakeSignal } from './wake-signal.ts';
export {
  publishRevocations,
  RevocationChannel,
  type Announced,
  type Revocation,
  type RevocationChannelOptions,
} from './revocation-channel.ts';
