import { describe, expect, expectTypeOf, it } from 'vitest';
import type {
  A2AMethodRequest,
  AgentCard,
  JsonRpcRequest,
  Part,
  SecurityScheme,
  SendMessageResponse,
  StreamResponse,
  Task,
} from '../src/index.ts';
import { Role, TaskState, parseRequestParams } from '../src/index.ts';

// Compile-time checks: `tsc -b packages/protocol` type-checks this file too.
describe('§1 ProtoJSON shapes as TypeScript types', () => {
  it('oneofs allow exactly one member', () => {
    const text: Part = { text: 'hi', mediaType: 'text/plain' };
    const data: Part = { data: null };
    // @ts-expect-error two members of the Part oneof
    const both: Part = { text: 'a', url: 'https://x.example/' };
    const stream: StreamResponse = {
      statusUpdate: { taskId: 't', contextId: 'c', status: { state: TaskState.WORKING } },
    };
    // @ts-expect-error two members of the SendMessageResponse oneof
    const bad: SendMessageResponse = {
      task: {} as Task,
      message: { messageId: 'm', role: Role.AGENT, parts: [text] },
    };
    const scheme: SecurityScheme = { httpAuthSecurityScheme: { scheme: 'Bearer' } };
    expect([text, data, both, stream, bad, scheme]).toHaveLength(6);
  });

  it('narrows on the member name', () => {
    const part = { url: 'https://x.example/a.png' } as Part;
    if (part.url !== undefined) expectTypeOf(part.url).toEqualTypeOf<string>();
    if (part.text !== undefined) expectTypeOf(part.text).toEqualTypeOf<string>();
  });

  it('parseRequestParams returns the request type of the method', () => {
    expectTypeOf(parseRequestParams<'ListTasks'>).returns.toEqualTypeOf<A2AMethodRequest['ListTasks']>();
    const request: JsonRpcRequest<'GetTask'> = {
      jsonrpc: '2.0',
      id: 1,
      method: 'GetTask',
      params: { id: 't' },
    };
    expect(request.params?.id).toBe('t');
  });

  it('§10 the agent card example type-checks', () => {
    const card: AgentCard = {
      name: 'echo',
      description: 'echoes',
      supportedInterfaces: [
        { url: 'https://a.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
      version: '1.0.0',
      capabilities: { streaming: true },
      securitySchemes: {
        oauth: {
          oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://t', scopes: {} } } },
        },
      },
      securityRequirements: [{ schemes: { oauth: { list: ['read'] } } }],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    };
    expect(card.supportedInterfaces[0]?.protocolBinding).toBe('JSONRPC');
  });
});
