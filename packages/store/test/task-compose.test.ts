import { TaskState } from '@switchyard/protocol';
import { describe, expect, it } from 'vitest';
import { composeArtifacts, type ArtifactChunkRow } from '../src/tasks/compose-artifacts.ts';
import { composeTaskView } from '../src/tasks/compose-task-view.ts';
import type { TaskRecord } from '../src/task-store.ts';

const chunk = (
  seq: number,
  artifactId: string,
  append: boolean,
  text: string,
  extra: Partial<ArtifactChunkRow> = {},
): ArtifactChunkRow => ({
  seq,
  artifact_id: artifactId,
  append,
  name: null,
  description: null,
  parts: [{ text }],
  metadata: null,
  extensions: null,
  ...extra,
});

describe('composeArtifacts (digest §2.3 append/lastChunk)', () => {
  it('concatenates appended chunks and keeps artifacts in first-seen order', () => {
    const out = composeArtifacts([
      chunk(2, 'b', false, 'b1'),
      chunk(3, 'a', false, 'a1', { name: 'first' }),
      chunk(4, 'b', true, 'b2'),
      chunk(5, 'a', true, 'a2', { description: 'desc', metadata: { m: 1 }, extensions: ['urn:x'] }),
      chunk(6, 'a', true, 'a3', { name: 'renamed' }),
    ]);
    expect(out).toEqual([
      { artifactId: 'b', parts: [{ text: 'b1' }, { text: 'b2' }] },
      {
        artifactId: 'a',
        name: 'renamed',
        description: 'desc',
        metadata: { m: 1 },
        extensions: ['urn:x'],
        parts: [{ text: 'a1' }, { text: 'a2' }, { text: 'a3' }],
      },
    ]);
  });

  it('a chunk with append=false starts the artifact over', () => {
    const out = composeArtifacts([
      chunk(2, 'a', false, 'old'),
      chunk(3, 'a', true, 'old2'),
      chunk(4, 'a', false, 'new'),
      chunk(5, 'a', true, 'new2'),
    ]);
    expect(out).toEqual([{ artifactId: 'a', parts: [{ text: 'new' }, { text: 'new2' }] }]);
  });

  it('omits empty optional fields (ProtoJSON, digest §1)', () => {
    const [a] = composeArtifacts([chunk(2, 'a', false, 'x', { extensions: [], name: '' })]);
    expect(a).toEqual({ artifactId: 'a', parts: [{ text: 'x' }] });
  });
});

describe('composeTaskView (digest §2.1)', () => {
  const record: TaskRecord = {
    tenantId: 't',
    id: 'id-1',
    contextId: 'ctx',
    agentId: 'echo',
    owner: 'alice',
    visibility: 'task',
    state: TaskState.WORKING,
    version: 2,
    statusMessage: null,
    statusTimestamp: new Date('2026-01-02T03:04:05.678Z'),
    metadata: null,
    reply: null,
    leaseOwner: null,
    leaseExpiresAt: null,
    attempts: 0,
    runAfter: new Date(),
    lastError: null,
    acceptedOutputModes: null,
    createdAt: new Date(),
    updatedAt: new Date(),
  };

  it('has no null and no empty keys', () => {
    expect(composeTaskView(record, { history: [] })).toEqual({
      id: 'id-1',
      contextId: 'ctx',
      status: { state: TaskState.WORKING, timestamp: '2026-01-02T03:04:05.678Z' },
    });
  });

  it('shows status message, metadata, artifacts (even empty when asked) and history', () => {
    const msg = { messageId: 'm', role: 'ROLE_AGENT' as const, parts: [{ text: 'hi' }] };
    const view = composeTaskView(
      { ...record, statusMessage: msg, metadata: { k: 'v' } },
      { history: [msg], artifacts: [] },
    );
    expect(view).toEqual({
      id: 'id-1',
      contextId: 'ctx',
      status: { state: TaskState.WORKING, message: msg, timestamp: '2026-01-02T03:04:05.678Z' },
      artifacts: [],
      history: [msg],
      metadata: { k: 'v' },
    });
  });
});
