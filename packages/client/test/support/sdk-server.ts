import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { AgentCard, Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';

export interface SdkServer {
  /** Base URL; the card is at `{url}/.well-known/agent-card.json`. */
  url: string;
  stop(): Promise<void>;
}

/**
 * An agent served by the official A2A JS SDK (@a2a-js/sdk 1.x: DefaultRequestHandler,
 * InMemoryTaskStore, the Express JSON-RPC and REST handlers), so the client is tested against a
 * server that is not ours. The executor: "reply" answers with a Message; "ask" asks a question
 * (INPUT_REQUIRED) and completes on the answer; anything else streams a two-chunk artifact.
 */
export async function startSdkServer(): Promise<SdkServer> {
  const app = express();
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card = AgentCard.fromJSON({
    name: 'SDK agent',
    description: 'An agent served by @a2a-js/sdk',
    version: '1.0.0',
    supportedInterfaces: [
      { url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      { id: 'chunks', name: 'Chunks', description: 'Streams an artifact in two chunks', tags: ['test'] },
    ],
  });
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use(
    '/a2a/jsonrpc',
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const executor: AgentExecutor = {
  async execute(ctx: RequestContext, bus: ExecutionEventBus) {
    const text = ctx.userMessage.parts
      .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
      .join('');
    const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
    if (text === 'reply') {
      bus.publish(
        AgentEvent.message(
          Message.fromJSON({
            messageId: `m-${ctx.taskId}`,
            role: 'ROLE_AGENT',
            contextId: ctx.contextId,
            parts: [{ text: 'pong' }],
          }),
        ),
      );
      return;
    }
    if (!ctx.task) {
      bus.publish(
        AgentEvent.task(
          Task.fromJSON({
            id: ctx.taskId,
            contextId: ctx.contextId,
            status: { state: 'TASK_STATE_SUBMITTED' },
          }),
        ),
      );
    } else {
      bus.publish(AgentEvent.task(ctx.task));
    }
    const status = (state: string, said?: string) =>
      bus.publish(
        AgentEvent.statusUpdate(
          TaskStatusUpdateEvent.fromJSON({
            ...ids,
            status: {
              state,
              timestamp: new Date().toISOString(),
              ...(said
                ? {
                    message: {
                      messageId: `s-${Date.now()}`,
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
    if (text === 'ask') {
      status('TASK_STATE_INPUT_REQUIRED', 'Which colour?');
      return;
    }
    status('TASK_STATE_WORKING', 'working');
    const chunk = (part: string, append: boolean, lastChunk: boolean) =>
      bus.publish(
        AgentEvent.artifactUpdate(
          TaskArtifactUpdateEvent.fromJSON({
            ...ids,
            append,
            lastChunk,
            artifact: { artifactId: 'out', name: 'out.txt', parts: [{ text: part }] },
          }),
        ),
      );
    chunk(`echo: ${text}`, false, false);
    // Long enough for a non-blocking caller to subscribe before the end.
    await new Promise((resolve) => setTimeout(resolve, 300));
    chunk(' (done)', true, true);
    status('TASK_STATE_COMPLETED', 'finished');
  },
  async cancelTask(taskId: string, bus: ExecutionEventBus) {
    bus.publish(
      AgentEvent.statusUpdate(
        TaskStatusUpdateEvent.fromJSON({ taskId, contextId: '', status: { state: 'TASK_STATE_CANCELED' } }),
      ),
    );
  },
};
