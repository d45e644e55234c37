import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import {
  AgentCard,
  GetTaskRequest,
  Message,
  Task,
  TaskArtifactUpdateEvent,
  TaskStatusUpdateEvent,
} from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { findBundledAgent, type Agent } from '@switchyard/agents';
import { createSecretBox } from '@switchyard/store';
import { createUpstreamAgent, UPSTREAM_EXECUTOR } from '@switchyard/upstream';

/**
 * The worker's a2a-upstream agent for servers on this machine (loopback allowed, the harness's
 * secret), polling quickly; `findAgent` serves it beside the bundled agents.
 */
export function loopbackUpstreamAgent(timings?: { pollMinMs: number; pollMaxMs: number }) {
  const agent = createUpstreamAgent({
    secrets: createSecretBox('test-secret-key-0123456789'),
    policy: { allowCidrs: ['127.0.0.0/8'], allowHttp: true },
    requestTimeoutMs: 5_000,
    ...(timings ? { timings } : {}),
  });
  const findAgent = (executor: string): Agent | undefined =>
    executor === UPSTREAM_EXECUTOR ? agent : findBundledAgent(executor);
  return { agent, findAgent };
}

export interface UpstreamServerOptions {
  /** The protocol version its card declares; '0.3' serves through the SDK's 0.3 compat layer. */
  protocolVersion?: '1.0' | '0.3';
  streaming?: boolean;
  /** Pause between streamed chunks, ms. */
  chunkDelayMs?: number;
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  bearer?: string;
  /**
   * Runs before the SDK answers a SubscribeToTask, with a reader of the task as the SDK's store
   * holds it: a test makes a race happen there.
   */
  beforeResubscribe?: (taskId: string, readTask: () => Promise<Task>) => Promise<void>;
}

export interface UpstreamServer {
  url: string;
  cardUrl: string;
  /** Upstream task ids created, in order: one per Switchyard task is the promise. */
  tasksCreated: string[];
  /** Every messageId the upstream received. */
  messageIds: string[];
  /** Upstream task ids that were asked to cancel. */
  canceled: string[];
  stop(): Promise<void>;
}

/**
 * A real A2A agent served by the official SDK (@a2a-js/sdk: DefaultRequestHandler,
 * InMemoryTaskStore, the Express handlers), registered on Switchyard as an `a2a-upstream` agent.
 * Its behaviour follows the first word of the user's text:
 * - `chunks N`: streams N artifact chunks (append, the last one lastChunk), then completes;
 * - `ask`: asks a question (INPUT_REQUIRED); the answer completes it with an artifact;
 * - `hold`: works until canceled;
 * - `reply`: answers with a Message and no task;
 * - `fail`: ends FAILED.
 */
export async function startUpstreamServer(options: UpstreamServerOptions = {}): Promise<UpstreamServer> {
  const app = express();
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const version = options.protocolVersion ?? '1.0';
  const state = { tasksCreated: [] as string[], messageIds: [] as string[], canceled: [] as string[] };
  const holds = new Map<string, () => void>();
  const card = AgentCard.fromJSON({
    name: 'Upstream ledger agent',
    description: 'An A2A agent served by @a2a-js/sdk',
    version: '2.1.0',
    supportedInterfaces: [
      { url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: version },
      { url: `${url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: version },
    ],
    capabilities: { streaming: options.streaming ?? true, pushNotifications: false },
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'ledger', name: 'Ledger', description: 'Posts ledger entries', tags: ['finance'] }],
  });
  const executor = createExecutor(state, holds, options.chunkDelayMs ?? 50);
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const { beforeResubscribe } = options;
  if (beforeResubscribe) {
    const resubscribe = handler.resubscribe.bind(handler);
    handler.resubscribe = async function* (params, context) {
      await beforeResubscribe(params.id, () =>
        handler.getTask(GetTaskRequest.fromJSON({ id: params.id }), context),
      );
      yield* resubscribe(params, context);
    };
  }
  const legacyCompat = { enabled: version === '0.3' };
  if (options.bearer) {
    app.use((req, res, next) => {
      if (req.headers.authorization === `Bearer ${options.bearer}`) next();
      else res.status(401).json({ error: 'unauthorized' });
    });
  }
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler, legacyCompat }));
  app.use(
    '/a2a/jsonrpc',
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat }),
  );
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    url,
    cardUrl: `${url}/.well-known/agent-card.json`,
    ...state,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const release of holds.values()) release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function createExecutor(
  state: { tasksCreated: string[]; messageIds: string[]; canceled: string[] },
  holds: Map<string, () => void>,
  chunkDelayMs: number,
): AgentExecutor {
  return {
    async execute(ctx: RequestContext, bus: ExecutionEventBus) {
      state.messageIds.push(ctx.userMessage.messageId);
      const text = ctx.userMessage.parts
        .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
        .join('');
      const [command = '', arg = ''] = text.split(' ');
      const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
      if (command === 'reply') {
        bus.publish(
          AgentEvent.message(
            Message.fromJSON({
              messageId: `m-${ctx.taskId}`,
              role: 'ROLE_AGENT',
              contextId: ctx.contextId,
              parts: [{ text: `pong ${arg}`.trim() }],
            }),
          ),
        );
        bus.finished();
        return;
      }
      const continuing = ctx.task !== undefined;
      if (!continuing) state.tasksCreated.push(ctx.taskId);
      bus.publish(
        AgentEvent.task(
          ctx.task ?? Task.fromJSON({ ...ids, id: ctx.taskId, status: { state: 'TASK_STATE_SUBMITTED' } }),
        ),
      );
      const status = (s: string, said?: string) =>
        bus.publish(
          AgentEvent.statusUpdate(
            TaskStatusUpdateEvent.fromJSON({
              ...ids,
              status: {
                state: s,
                timestamp: new Date().toISOString(),
                ...(said
                  ? {
                      message: {
                        messageId: `s-${s}-${Date.now()}`,
                        role: 'ROLE_AGENT',
                        parts: [{ text: said }],
                        ...ids,
                      },
                    }
                  : {}),
              },
            }),
          ),
        );
      const chunk = (artifactId: string, part: string, append: boolean, lastChunk: boolean) =>
        bus.publish(
          AgentEvent.artifactUpdate(
            TaskArtifactUpdateEvent.fromJSON({
              ...ids,
              append,
              lastChunk,
              artifact: { artifactId, name: `${artifactId}.txt`, parts: [{ text: part }] },
            }),
          ),
        );
      if (continuing) {
        status('TASK_STATE_WORKING', 'thanks');
        chunk('answer', `answer: ${text}`, false, true);
        status('TASK_STATE_COMPLETED', 'posted');
      } else if (command === 'ask') {
        status('TASK_STATE_INPUT_REQUIRED', 'Which ledger?');
      } else if (command === 'fail') {
        status('TASK_STATE_FAILED', 'ledger closed');
      } else if (command === 'hold') {
        status('TASK_STATE_WORKING', 'holding');
        await new Promise<void>((resolve) => holds.set(ctx.taskId, resolve));
      } else {
        const n = Number(arg) || 3;
        status('TASK_STATE_WORKING', 'posting');
        for (let i = 0; i < n; i++) {
          chunk('entries', `entry ${i + 1};`, i > 0, i === n - 1);
          await new Promise((resolve) => setTimeout(resolve, chunkDelayMs));
        }
        status('TASK_STATE_COMPLETED', 'posted');
      }
      bus.finished();
    },
    async cancelTask(taskId: string, bus: ExecutionEventBus) {
      state.canceled.push(taskId);
      holds.get(taskId)?.();
      bus.publish(
        AgentEvent.statusUpdate(
          TaskStatusUpdateEvent.fromJSON({ taskId, contextId: '', status: { state: 'TASK_STATE_CANCELED' } }),
        ),
      );
      bus.finished();
    },
  };
}
