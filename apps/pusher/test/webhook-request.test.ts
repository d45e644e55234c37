import { TaskState } from '@switchyard/protocol';
import type { ClaimedDelivery } from '@switchyard/store';
import { describe, expect, it } from 'vitest';
import { buildWebhookRequest } from '../src/webhook-request.ts';

// A webhook body takes the shape, and the media type, of the version that registered its config.
const delivery = (wireVersion?: '0.3'): ClaimedDelivery => ({
  tenantId: 'acme',
  taskId: 't1',
  configId: 'c1',
  seq: 2,
  attempts: 1,
  deliveryId: 't1.c1.2',
  payload: {
    statusUpdate: { taskId: 't1', contextId: 'ctx', status: { state: TaskState.COMPLETED } },
  },
  config: { url: 'https://hooks.example/a2a', ...(wireVersion ? { wireVersion } : {}) },
  receiverHost: 'hooks.example',
  webhookSecret: `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`,
});

describe('buildWebhookRequest', () => {
  it('sends a 1.0 StreamResponse as application/a2a+json', () => {
    const request = buildWebhookRequest(delivery(), new Date());
    expect(request.headers['content-type']).toBe('application/a2a+json');
    expect(JSON.parse(request.body)).toHaveProperty('statusUpdate');
  });

  it('sends a 0.3 stream result as application/json to a config a 0.3 client registered', () => {
    const request = buildWebhookRequest(delivery('0.3'), new Date());
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body)).toMatchObject({ kind: 'status-update', final: true });
  });

  it('sends a 0.3 config the task it is given, as 0.3 shapes a Task', () => {
    const task = {
      id: 't1',
      contextId: 'ctx',
      status: { state: TaskState.COMPLETED },
      artifacts: [{ artifactId: 'a1', parts: [{ text: 'done' }] }],
    };
    const request = buildWebhookRequest(delivery('0.3'), new Date(), task);
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body)).toMatchObject({
      kind: 'task',
      id: 't1',
      status: { state: 'completed' },
      artifacts: [{ artifactId: 'a1', parts: [{ kind: 'text', text: 'done' }] }],
    });
  });

  it('sends a 1.0 config the event even when given the task', () => {
    const task = { id: 't1', contextId: 'ctx', status: { state: TaskState.COMPLETED } };
    expect(JSON.parse(buildWebhookRequest(delivery(), new Date(), task).body)).toHaveProperty('statusUpdate');
  });
});
