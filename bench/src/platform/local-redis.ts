import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';

/**
 * The pid of the redis-server behind `url` when it runs on this machine (its INFO names a pid
 * whose /proc entry is a redis-server), else null: a remote or containerized Redis is not metered.
 * The bench shares that server with nothing else, so its CPU is the platform's Redis cost.
 */
export async function localRedisPid(url: string): Promise<number | null> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const info = await redis.info('server');
    const pid = Number(/^process_id:(\d+)/m.exec(info)?.[1]);
    if (!pid) return null;
    const comm = readFileSync(`/proc/${pid}/comm`, 'utf8');
    return comm.includes('redis') ? pid : null;
  } catch {
    return null;
  } finally {
    redis.disconnect();
  }
}
