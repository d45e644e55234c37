import { it } from 'vitest';
import { A2AClient, userMessage } from '../src/index.ts';
import { startPlatform } from './support/platform.ts';

it('stop with a running task', async () => {
  const platform = await startPlatform();
  const c = await A2AClient.fromCardUrl(platform.cardUrl('sleepy'), { apiKey: platform.apiKey });
  await c.sendMessage({ message: userMessage('zzz'), configuration: { returnImmediately: true } });
  await new Promise((r) => setTimeout(r, 1000));
  const t0 = Date.now();
  const w = platform.worker;
  console.log('active', w.runner.activeCount);
  const t = Date.now();
  await Promise.race([w.runner.stopAll('shutdown').then(() => console.log('stopAll done', Date.now() - t)), new Promise((r) => setTimeout(r, 5000))]);
  console.log('active after', w.runner.activeCount, Date.now() - t);
  await Promise.race([w.queue.close().then(() => console.log('queue closed', Date.now() - t)), new Promise((r) => setTimeout(r, 5000))]);
  await platform.stop().catch((e) => console.log('stop err', e));
  console.log('all stopped', Date.now() - t0);
}, 120_000);
