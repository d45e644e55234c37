import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleHarness, type ConsoleHarness } from './support/console-harness.ts';
import { getJson } from './support/http-client.ts';

// An upstream agent's credentials are stored sealed in its settings; operators see `********`
// (README, "Hosting an existing A2A agent"), in the console as in the gateway's admin API.
let h: ConsoleHarness;
beforeAll(async () => {
  h = await startConsoleHarness();
});
afterAll(async () => {
  await h.close();
});

describe('GET /api/tenants/:tenantId/agents', () => {
  it("masks an upstream agent's sealed credentials and leaves other settings as they are", async () => {
    const sealed = Buffer.from('not really sealed, but a secret all the same').toString('base64');
    await h.admin.upsertAgent({
      tenantId: 'acme',
      id: 'ledger',
      card: { name: 'Ledger', description: 'upstream', version: '1.0.0', skills: [] },
      executor: 'a2a-upstream',
      settings: { cardUrl: 'https://ledger.example/.well-known/agent-card.json', sealedCredentials: sealed },
    });
    const { status, body } = await getJson<{
      agents: Array<{ id: string; settings: Record<string, unknown> }>;
    }>(`${h.baseUrl}/api/tenants/acme/agents`);
    expect(status).toBe(200);
    expect(JSON.stringify(body)).not.toContain(sealed);
    const ledger = body.agents.find((a) => a.id === 'ledger');
    expect(ledger?.settings).toEqual({
      cardUrl: 'https://ledger.example/.well-known/agent-card.json',
      credentials: '********',
    });
    expect(body.agents.find((a) => a.id === 'slow-long')?.settings).toEqual({
      delayMs: 60_000,
      steps: 60,
      progress: 'status',
    });
  });
});
