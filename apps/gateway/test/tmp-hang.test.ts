import { it } from 'vitest';
import { waitFor } from '@switchyard/testing';
import { A2ATestClient } from './support/a2a-client.ts';
import { startHarness } from './support/harness.ts';
import { taskOf, userMessage } from './support/messages.ts';

it('probe', async () => {
  const h = await startHarness();
  const c = new A2ATestClient('rest', `${h.url}/agents/acme/sleepy`, h.fixtures.keys.alice);
  const s = await c.call('SendMessage', { message: userMessage('z'), configuration: { returnImmediately: true } });
  if (!s.ok) throw new Error('x');
  const id = taskOf(s.value).id;
  await waitFor(async () => { const r = await c.call('GetTask', { id }); return r.ok && r.value.status.state === 'TASK_STATE_WORKING'; });
  const w = h.worker!;
  const t = performance.now();
  const timer = setInterval(() => console.log('state', w.state, w.runner.activeCount, Math.round(performance.now() - t)), 2000);
  await w.stop();
  clearInterval(timer);
  console.log('stopped', performance.now() - t);
}, 60000);
