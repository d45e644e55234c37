import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@switchyard/testing';
import { createDb, createSecretBox, PostgresAdminStore, resealSecrets, type Db } from '../src/index.ts';

// Found in review of key rotation: rows kept the old key until written again, and nothing could
// tell when none were left, so SWITCHYARD_SECRET_KEY_PREVIOUS could never be dropped safely.
const OLD = 'the-old-secret-key-0123456789';
const NEW = 'the-new-secret-key-9876543210';
let testDb: TestDatabase;
let db: Db;
beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDb(testDb.pool);
});
afterAll(async () => {
  await testDb?.drop();
});

describe('resealSecrets', () => {
  it('seals every secret at rest with the current key, after which the old key is not needed', async () => {
    const old = createSecretBox(OLD);
    const { webhookSecret } = await new PostgresAdminStore({ db, secrets: old }).createTenant({
      id: 'acme',
      name: 'Acme',
    });
    const taskId = randomUUID();
    await testDb.pool.query(
      `INSERT INTO push_configs (tenant_id, task_id, id, url, token_enc, auth_scheme, auth_credentials_enc)
       VALUES ('acme', $1, 'hook', 'https://hooks.example', $2, 'Bearer', $3)`,
      [taskId, old.seal('push-token'), old.seal('push-credentials')],
    );
    await testDb.pool.query(
      `INSERT INTO agents (tenant_id, id, card, executor, settings) VALUES ('acme', 'up', '{}', 'a2a-upstream', $1)`,
      [
        {
          cardUrl: 'https://agent.example',
          sealedCredentials: old.seal('{"bearer":"b"}').toString('base64'),
        },
      ],
    );
    // A secret sealed with a key nobody listed: counted, left alone.
    await testDb.pool.query(
      `INSERT INTO push_configs (tenant_id, task_id, id, url, token_enc) VALUES ('acme', $1, 'lost', 'https://x.example', $2)`,
      [taskId, createSecretBox('a-key-nobody-kept-0123456').seal('lost')],
    );

    const rotated = createSecretBox(NEW, [OLD]);
    expect(await resealSecrets(db, rotated)).toEqual({ resealed: 4, current: 0, unreadable: 1 });
    expect(await resealSecrets(db, rotated)).toEqual({ resealed: 0, current: 4, unreadable: 1 });

    const fresh = createSecretBox(NEW);
    expect(await new PostgresAdminStore({ db, secrets: fresh }).getWebhookSecret('acme')).toBe(webhookSecret);
    const config = await testDb.pool.query<{ token_enc: Buffer; auth_credentials_enc: Buffer }>(
      `SELECT token_enc, auth_credentials_enc FROM push_configs WHERE id = 'hook'`,
    );
    expect(fresh.open(config.rows[0]!.token_enc)).toBe('push-token');
    expect(fresh.open(config.rows[0]!.auth_credentials_enc)).toBe('push-credentials');
    const agent = await testDb.pool.query<{ sealed: string }>(
      `SELECT settings->>'sealedCredentials' AS sealed FROM agents WHERE id = 'up'`,
    );
    expect(fresh.open(Buffer.from(agent.rows[0]!.sealed, 'base64'))).toBe('{"bearer":"b"}');
  });
});
