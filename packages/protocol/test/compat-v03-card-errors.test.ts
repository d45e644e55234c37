import { describe, expect, it } from 'vitest';
import {
  A2AError,
  fromV03AgentCard,
  fromV03JsonRpcError,
  fromV03SecurityRequirement,
  fromV03SecurityScheme,
  parseV03JsonRpcRequest,
  toV03AgentCard,
  toV03JsonRpcError,
  toV03SecurityRequirement,
  toV03SecurityScheme,
  type AgentCard,
  type AgentCardV03,
  type SecurityScheme,
  type SecuritySchemeV03,
} from '../src/index.ts';

// Digest §13.4 (agent card, security schemes) and §13.3 (error data, the 0.3 envelope), both
// directions where both exist.

describe('§13.4 agent card', () => {
  const v1Card: AgentCard = {
    name: 'Echo',
    description: 'echoes',
    supportedInterfaces: [
      { url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'https://a.example/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: 'https://a.example/grpc', protocolBinding: 'GRPC', protocolVersion: '0.3' },
    ],
    provider: { url: 'https://example.com', organization: 'Ex' },
    version: '1.2.3',
    documentationUrl: 'https://a.example/docs',
    capabilities: {
      streaming: true,
      pushNotifications: true,
      extendedAgentCard: true,
      extensions: [{ uri: 'urn:e' }],
    },
    securitySchemes: { apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } } },
    securityRequirements: [{ schemes: { apiKey: { list: [] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['application/json'],
    skills: [
      {
        id: 's',
        name: 'S',
        description: 'd',
        tags: ['t'],
        examples: ['e'],
        securityRequirements: [{ schemes: { apiKey: { list: ['read'] } } }],
      },
    ],
    signatures: [{ protected: 'p', signature: 's' }],
    iconUrl: 'https://a.example/icon.png',
  };
  const v03Card: AgentCardV03 = {
    protocolVersion: '0.3.0',
    name: 'Echo',
    description: 'echoes',
    url: 'https://a.example/rpc',
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [{ url: 'https://a.example/grpc', transport: 'GRPC' }],
    iconUrl: 'https://a.example/icon.png',
    provider: { url: 'https://example.com', organization: 'Ex' },
    version: '1.2.3',
    documentationUrl: 'https://a.example/docs',
    capabilities: { streaming: true, pushNotifications: true, extensions: [{ uri: 'urn:e' }] },
    securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
    security: [{ apiKey: [] }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['application/json'],
    skills: [
      {
        id: 's',
        name: 'S',
        description: 'd',
        tags: ['t'],
        examples: ['e'],
        security: [{ apiKey: ['read'] }],
      },
    ],
    supportsAuthenticatedExtendedCard: true,
    signatures: [{ protected: 'p', signature: 's' }],
  };

  it('1.0 → 0.3: the 0.3 interfaces become url/preferredTransport/additionalInterfaces', () => {
    expect(toV03AgentCard(v1Card)).toEqual(v03Card);
    const superset = toV03AgentCard(v1Card, { embedV1Interfaces: true });
    expect(superset.supportedInterfaces).toEqual(v1Card.supportedInterfaces);
    expect(superset.capabilities.extendedAgentCard).toBe(v1Card.capabilities.extendedAgentCard);
    expect(superset.supportsAuthenticatedExtendedCard).toBe(v1Card.capabilities.extendedAgentCard);
  });

  it('0.3 → 1.0: interfaces stamped with the card version (Major.Minor), stateTransitionHistory dropped', () => {
    const back = fromV03AgentCard({
      ...v03Card,
      capabilities: { ...v03Card.capabilities, stateTransitionHistory: true },
    });
    expect(back).toEqual({
      ...v1Card,
      supportedInterfaces: [
        { url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
        { url: 'https://a.example/grpc', protocolBinding: 'GRPC', protocolVersion: '0.3' },
      ],
    });
  });

  it('a card without a 0.3 interface cannot be shown to a 0.3 client', () => {
    expect(() =>
      toV03AgentCard({ ...v1Card, supportedInterfaces: v1Card.supportedInterfaces.slice(0, 2) }),
    ).toThrow(A2AError);
  });

  const schemes: Array<[string, SecuritySchemeV03, SecurityScheme]> = [
    [
      'apiKey (in ↔ location)',
      { type: 'apiKey', in: 'query', name: 'key', description: 'd' },
      { apiKeySecurityScheme: { location: 'query', name: 'key', description: 'd' } },
    ],
    [
      'http',
      { type: 'http', scheme: 'Bearer', bearerFormat: 'JWT' },
      { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
    ],
    [
      'oauth2 (one flow)',
      {
        type: 'oauth2',
        flows: { clientCredentials: { tokenUrl: 'https://t.example', scopes: { read: 'r' } } },
        oauth2MetadataUrl: 'https://m.example',
      },
      {
        oauth2SecurityScheme: {
          flows: { clientCredentials: { tokenUrl: 'https://t.example', scopes: { read: 'r' } } },
          oauth2MetadataUrl: 'https://m.example',
        },
      },
    ],
    [
      'openIdConnect',
      { type: 'openIdConnect', openIdConnectUrl: 'https://o.example' },
      { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://o.example' } },
    ],
    ['mutualTLS', { type: 'mutualTLS', description: 'm' }, { mtlsSecurityScheme: { description: 'm' } }],
  ];
  it.each(schemes)('security scheme %s', (_name, v03, v1) => {
    expect(toV03SecurityScheme(v1)).toEqual(v03);
    expect(fromV03SecurityScheme(v03)).toEqual(v1);
  });

  it('oauth2 flows: 0.3 may list several, 1.0 keeps one; pkceRequired and deviceCode have no 0.3 form', () => {
    const several: SecuritySchemeV03 = {
      type: 'oauth2',
      flows: {
        implicit: { authorizationUrl: 'https://a.example', scopes: {} },
        authorizationCode: {
          authorizationUrl: 'https://a.example',
          tokenUrl: 'https://t.example',
          scopes: {},
        },
      },
    };
    expect(fromV03SecurityScheme(several)).toEqual({
      oauth2SecurityScheme: {
        flows: {
          authorizationCode: {
            authorizationUrl: 'https://a.example',
            tokenUrl: 'https://t.example',
            scopes: {},
          },
        },
      },
    });
    expect(
      toV03SecurityScheme({
        oauth2SecurityScheme: {
          flows: {
            authorizationCode: {
              authorizationUrl: 'https://a',
              tokenUrl: 'https://t',
              scopes: {},
              pkceRequired: true,
            },
          },
        },
      }),
    ).toEqual({
      type: 'oauth2',
      flows: { authorizationCode: { authorizationUrl: 'https://a', tokenUrl: 'https://t', scopes: {} } },
    });
    expect(
      toV03SecurityScheme({
        oauth2SecurityScheme: {
          flows: { deviceCode: { deviceAuthorizationUrl: 'd', tokenUrl: 't', scopes: {} } },
        },
      }),
    ).toEqual({ type: 'oauth2', flows: {} });
  });

  it('security requirement: {name: scopes} ↔ {schemes: {name: {list: scopes}}}', () => {
    expect(toV03SecurityRequirement({ schemes: { g: { list: ['openid'] } } })).toEqual({ g: ['openid'] });
    expect(fromV03SecurityRequirement({ g: ['openid'] })).toEqual({ schemes: { g: { list: ['openid'] } } });
  });
});

describe('§13.3 error data and the 0.3 envelope', () => {
  it('0.3 errors keep the code; data is one free-form object with reason, metadata and field violations', () => {
    const error = new A2AError('InvalidParams', {
      message: 'bad',
      metadata: { taskId: 't1' },
      fieldViolations: [{ field: 'message.parts', description: 'required' }],
    });
    const v03 = toV03JsonRpcError(error);
    expect(v03).toEqual({
      code: -32602,
      message: 'bad',
      data: {
        reason: 'INVALID_PARAMS',
        metadata: { taskId: 't1' },
        fieldViolations: [{ field: 'message.parts', description: 'required' }],
      },
    });
    const back = fromV03JsonRpcError(v03);
    expect(back.kind).toBe('InvalidParams');
    expect(back.metadata).toEqual({ taskId: 't1' });
    expect(back.fieldViolations).toEqual([{ field: 'message.parts', description: 'required' }]);
  });

  it.each([
    [-32001, 'TaskNotFound'],
    [-32002, 'TaskNotCancelable'],
    [-32003, 'PushNotificationNotSupported'],
    [-32004, 'UnsupportedOperation'],
    [-32005, 'ContentTypeNotSupported'],
    [-32006, 'InvalidAgentResponse'],
    [-32007, 'ExtendedAgentCardNotConfigured'],
  ] as const)('0.3 code %i (free-form or no data) reads as %s', (code, kind) => {
    expect(fromV03JsonRpcError({ code, message: 'x' }).kind).toBe(kind);
    expect(toV03JsonRpcError(new A2AError(kind)).code).toBe(code);
  });

  it('errors without a JSON-RPC code are -32000, told apart by data.reason', () => {
    const v03 = toV03JsonRpcError(new A2AError('Unauthenticated'));
    expect(v03).toMatchObject({ code: -32000, data: { reason: 'UNAUTHENTICATED' } });
    expect(fromV03JsonRpcError(v03).kind).toBe('Unauthenticated');
    expect(fromV03JsonRpcError({ code: -31999, message: 'odd' }).kind).toBe('Internal');
  });

  it('the 0.3 envelope takes 0.3 names; a 1.0 name is MethodNotFound that names the missing header', () => {
    expect(
      parseV03JsonRpcRequest({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 't' } }),
    ).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'tasks/get',
      params: { id: 't' },
    });
    expect(() => parseV03JsonRpcRequest({ jsonrpc: '2.0', id: 1, method: 'GetTask' })).toThrow(
      /A2A-Version: 1\.0/,
    );
    expect(() => parseV03JsonRpcRequest({ jsonrpc: '2.0', id: 1, method: 'tasks/list' })).toThrow(A2AError);
    expect(() => parseV03JsonRpcRequest({ jsonrpc: '1.0', id: 1, method: 'tasks/get' })).toThrow(A2AError);
  });
});
