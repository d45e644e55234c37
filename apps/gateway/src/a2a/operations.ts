import {
  FAILURE_CODE_METADATA_KEY,
  type AgentRegistration,
  type OpenedStream,
  type TaskService,
  type TraceCarrier,
} from '@switchyard/engine';
import {
  A2AError,
  invalidAgentResponse,
  TaskState,
  type AgentCard,
  type CancelTaskRequest,
  type DeleteTaskPushNotificationConfigRequest,
  type GetTaskPushNotificationConfigRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsRequest,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksRequest,
  type ListTasksResponse,
  type SendMessageRequest,
  type SendMessageResponse,
  type SubscribeToTaskRequest,
  type Task,
  type TaskPushNotificationConfig,
} from '@switchyard/protocol';
import type { Caller } from '@switchyard/store';
import { withHeaderHops } from '@switchyard/upstream';
import type { CardBuilder } from '../cards/card-builder.ts';
import type { BlockingWaits } from './blocking-waits.ts';
import type { ListTaskSlots } from './list-slots.ts';

/** Who calls, through which agent, and when to give up (client gone or shutdown). */
export interface OperationContext {
  caller: Caller;
  agent: AgentRegistration;
  signal: AbortSignal;
  trace: TraceCarrier;
  /** The request's `Switchyard-Hop-Count`: hops an a2a-upstream chain has made (upstream-hops.ts). */
  hops?: number;
}

/**
 * The eleven A2A operations, binding-independent (digest §3, §7.9 rule 35: every binding offers
 * the same behaviour). Both bindings parse into these request messages and call this class.
 */
export class A2AOperations {
  readonly #service: TaskService;
  readonly #cards: CardBuilder;
  readonly #blockingWaits: BlockingWaits | undefined;
  readonly #listSlots: ListTaskSlots | undefined;

  constructor({
    service,
    cards,
    blockingWaits,
    listSlots,
  }: {
    service: TaskService;
    cards: CardBuilder;
    blockingWaits?: BlockingWaits;
    listSlots?: ListTaskSlots;
  }) {
    this.#service = service;
    this.#cards = cards;
    this.#blockingWaits = blockingWaits;
    this.#listSlots = listSlots;
  }

  /** Blocking unless `returnImmediately` (§7.2 rule 12); the wait ends early if the client leaves. */
  async send(ctx: OperationContext, request: SendMessageRequest): Promise<SendMessageResponse> {
    checkTenant(ctx, request.tenant);
    const blocking = request.configuration?.returnImmediately !== true;
    const release = blocking
      ? this.#blockingWaits?.take(ctx.caller.tenantId, ctx.caller.principal)
      : undefined;
    let response: SendMessageResponse;
    try {
      response = await this.#service.send(
        ctx.caller,
        ctx.agent,
        counted(ctx, request),
        ctx.trace,
        ctx.signal,
      );
    } finally {
      release?.();
    }
    // An upstream agent that did not speak A2A failed the task; the waiting client hears it as
    // InvalidAgentResponse (the task stays readable with GetTask, FAILED with a safe message).
    const task = 'task' in response ? response.task : undefined;
    const failure = task?.status.message?.metadata?.[FAILURE_CODE_METADATA_KEY];
    if (task?.status.state === TaskState.FAILED && failure === 'InvalidAgentResponse')
      throw invalidAgentResponse(`the agent answered with an invalid A2A response; task ${task.id} failed`);
    return response;
  }

  /** `afterSeq` (Last-Event-ID) resumes a retried send's stream after the last event the client saw. */
  stream(ctx: OperationContext, request: SendMessageRequest, afterSeq?: number): Promise<OpenedStream> {
    checkTenant(ctx, request.tenant);
    return this.#service.sendStreaming(
      ctx.caller,
      ctx.agent,
      counted(ctx, request),
      ctx.trace,
      ctx.signal,
      afterSeq,
    );
  }

  /** `afterSeq` comes from `Last-Event-ID`: resume after the last event the client saw. */
  subscribe(
    ctx: OperationContext,
    request: SubscribeToTaskRequest,
    afterSeq?: number,
  ): Promise<OpenedStream> {
    checkTenant(ctx, request.tenant);
    return this.#service.subscribe(ctx.caller, ctx.agent.id, request.id, afterSeq);
  }

  async getTask(ctx: OperationContext, request: GetTaskRequest): Promise<Task> {
    checkTenant(ctx, request.tenant);
    return this.#service.getTask(ctx.caller, ctx.agent.id, request.id, request.historyLength);
  }

  /** `nextPageToken`, `tasks`, `pageSize` and `totalSize` are always present (§1, §7.4 rule 22). */
  async listTasks(ctx: OperationContext, request: ListTasksRequest): Promise<ListTasksResponse> {
    checkTenant(ctx, request.tenant);
    const release = await this.#listSlots?.take(ctx.caller.tenantId, ctx.signal);
    let page;
    try {
      page = await this.#service.listTasks(ctx.caller, ctx.agent.id, request);
    } finally {
      release?.();
    }
    return {
      tasks: page.tasks ?? [],
      nextPageToken: page.nextPageToken ?? '',
      pageSize: page.pageSize ?? request.pageSize ?? 50,
      totalSize: page.totalSize ?? 0,
    };
  }

  async cancelTask(ctx: OperationContext, request: CancelTaskRequest): Promise<Task> {
    checkTenant(ctx, request.tenant);
    return this.#service.cancelTask(ctx.caller, ctx.agent.id, request.id);
  }

  async createPushConfig(
    ctx: OperationContext,
    request: TaskPushNotificationConfig,
  ): Promise<TaskPushNotificationConfig> {
    checkTenant(ctx, request.tenant);
    return this.#service.push.create(ctx.caller, ctx.agent.id, request);
  }

  async getPushConfig(
    ctx: OperationContext,
    request: GetTaskPushNotificationConfigRequest,
  ): Promise<TaskPushNotificationConfig> {
    checkTenant(ctx, request.tenant);
    return this.#service.push.get(ctx.caller, ctx.agent.id, request.taskId, request.id);
  }

  async listPushConfigs(
    ctx: OperationContext,
    request: ListTaskPushNotificationConfigsRequest,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    checkTenant(ctx, request.tenant);
    const page = await this.#service.push.list(ctx.caller, ctx.agent.id, request.taskId, request);
    return { configs: page.configs ?? [], nextPageToken: page.nextPageToken ?? '' };
  }

  /** Empty is `{}` in ProtoJSON (digest §12 #17). */
  async deletePushConfig(
    ctx: OperationContext,
    request: DeleteTaskPushNotificationConfigRequest,
  ): Promise<Record<string, never>> {
    checkTenant(ctx, request.tenant);
    await this.#service.push.delete(ctx.caller, ctx.agent.id, request.taskId, request.id);
    return {};
  }

  /** The extended card: capability always declared, always configured (§7.8). */
  extendedCard(ctx: OperationContext, tenant?: string): AgentCard {
    checkTenant(ctx, tenant);
    return this.#cards.extendedCard(ctx.agent).card;
  }
}

/**
 * The request with its message counting the hops its `Switchyard-Hop-Count` header says it made,
 * so the loop guard counts on from the header when an agent in the chain dropped the metadata.
 */
function counted(ctx: OperationContext, request: SendMessageRequest): SendMessageRequest {
  if (ctx.hops === undefined) return request;
  return { ...request, message: withHeaderHops(request.message, ctx.hops) };
}

/**
 * `tenant` is a routing value, not an authority (digest §2.6, §9 rule 5): when a request names one
 * it must be the caller's own, and any other reads as not found, revealing nothing.
 */
function checkTenant(ctx: OperationContext, tenant: string | undefined): void {
  if (tenant !== undefined && tenant !== ctx.caller.tenantId) {
    throw new A2AError('TaskNotFound', { message: 'Not found' });
  }
}
