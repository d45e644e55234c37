import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2ATestClient, type BindingName, type Failure } from '../support/a2a-client.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { userMessage, taskOf } from '../support/messages.ts';
import { snapshotStore } from './store-snapshot.ts';

// Issue 8, security suite: webhook SSRF attempts through push-config creation on the gateway
// (digest §8, ARCHITECTURE.md §7: loopback, private, link-local and metadata addresses refused
// at registration unless the operator allow-list names them). Redirects at delivery time are in
// webhook-redirects.test.ts.
let h: Harness;
let taskIds: Record<BindingName, string>;

beforeAll(async () => {
  // No allow-list here: the production default.
  h = await startHarness({ worker: false, env: { BLOCKING_TIMEOUT_MS: '0' } });
  const start = async (binding: BindingName) => {
    const sent = await client(binding).call('SendMessage', {
      message: userMessage('ssrf target'),
      configuration: { returnImmediately: true },
    });
    if (!sent.ok) throw new Error(sent.reason);
    return taskOf(sent.value).id;
  };
  taskIds = { jsonrpc: await start('jsonrpc'), rest: await start('rest') };
});
afterAll(async () => {
  await h?.stop();
});

const client = (binding: BindingName) =>
  new A2ATestClient(binding, `${h.url}/agents/acme/echo`, h.fixtures.keys.alice);

/** Addresses a webhook must never reach, in every spelling a URL parser accepts. */
const FORBIDDEN = [
  // 10/8, 172.16/12, 192.168/16
  'http://10.0.0.1/hook',
  'http://10.255.255.254/hook',
  'http://172.16.0.1/hook',
  'http://172.31.255.254/hook',
  'http://192.168.0.1/hook',
  // 127/8, unspecified
  'http://127.0.0.1/hook',
  'http://127.1.2.3:8080/hook',
  'http://127.1/hook',
  'http://0.0.0.0/hook',
  'http://0/hook',
  // 169.254/16 (cloud metadata), CGNAT, multicast, broadcast
  'http://169.254.169.254/latest/meta-data/',
  'http://169.254.0.1/hook',
  'http://100.64.0.1/hook',
  'http://224.0.0.1/hook',
  'http://255.255.255.255/hook',
  // decimal, hex and octal spellings of 127.0.0.1 and 169.254.169.254
  'http://2130706433/hook',
  'http://0x7f000001/hook',
  'http://0x7f.0x0.0x0.0x1/hook',
  'http://0177.0.0.1/hook',
  'http://017700000001/hook',
  'http://2852039166/latest/meta-data/',
  'http://0xA9FEA9FE/latest/meta-data/',
  // IPv6: loopback, unspecified, unique-local fc00::/7, link-local, IPv4-mapped and NAT64 forms
  'http://[::1]/hook',
  'http://[0:0:0:0:0:0:0:1]:443/hook',
  'http://[::]/hook',
  'http://[fc00::1]/hook',
  'http://[fd12:3456:789a::1]/hook',
  'http://[fe80::1]/hook',
  'http://[::ffff:127.0.0.1]/hook',
  'http://[::ffff:7f00:1]/hook',
  'http://[::ffff:10.0.0.1]/hook',
  'http://[::ffff:169.254.169.254]/hook',
  'http://[64:ff9b::7f00:1]/hook',
  'http://[ff02::1]/hook',
  // the deprecated IPv4-compatible form ::a.b.c.d, and other space outside global unicast 2000::/3
  'http://[::127.0.0.1]/hook',
  'http://[::a9fe:a9fe]/hook',
  'http://[100::1]/hook',
  'http://[4000::1]/hook',
  // names that resolve to loopback
  'http://localhost/hook',
  'http://LOCALHOST:8080/hook',
  'http://localhost./hook',
  'http://anything.localhost/hook',
  // not http(s), or credentials smuggled in the URL
  'file:///etc/passwd',
  'gopher://127.0.0.1:6379/_FLUSHALL',
  'ftp://93.184.215.14/hook',
  'http://user:pass@93.184.215.14/hook',
  'http:/127.0.0.1/hook',
];

describe.each<BindingName>(['jsonrpc', 'rest'])('%s', (binding) => {
  it.each(FORBIDDEN)(
    'CreateTaskPushNotificationConfig %s is InvalidParams and stores nothing',
    async (url) => {
      const before = await snapshotStore(h.db.pool);
      const reply = await client(binding).call('CreateTaskPushNotificationConfig', {
        taskId: taskIds[binding],
        url,
      });
      expect(reply.ok).toBe(false);
      expect((reply as Failure).reason).toBe('INVALID_PARAMS');
      expect(await snapshotStore(h.db.pool)).toEqual(before);
    },
  );

  it.each(FORBIDDEN.slice(0, 12))(
    'an inline config at %s refuses the whole SendMessage, no task',
    async (url) => {
      const before = await snapshotStore(h.db.pool);
      const reply = await client(binding).call('SendMessage', {
        message: userMessage('inline ssrf'),
        configuration: { returnImmediately: true, taskPushNotificationConfig: { url } },
      });
      expect((reply as Failure).reason).toBe('INVALID_PARAMS');
      expect(await snapshotStore(h.db.pool)).toEqual(before);
    },
  );

  it('the refusal of a name does not say what it resolves to (internal names stay private)', async () => {
    const reply = await client(binding).call('CreateTaskPushNotificationConfig', {
      taskId: taskIds[binding],
      url: 'http://localhost/hook',
    });
    expect(JSON.stringify(reply)).toMatch(/resolves to a non-public address/);
    expect(JSON.stringify(reply)).not.toMatch(/127\.0\.0\.1|::1/);
  });

  // Found in audit: with no DNS on the gateway's network (a sandboxed CI, say), every config naming
  // a host was refused, and the TCK's push tests failed on https://example.com. A name that does
  // not resolve now is accepted; each delivery's connection is checked when it is made.
  it('a name that does not resolve yet is accepted; its deliveries are checked as they connect', async () => {
    // ip6-localhost is a hosts-file name: webhook lookups never read /etc/hosts (resolve-host.ts),
    // so it does not resolve for deliveries either.
    for (const url of ['http://no-such-host.invalid/hook', 'http://ip6-localhost/hook']) {
      const reply = await client(binding).call('CreateTaskPushNotificationConfig', {
        taskId: taskIds[binding],
        url,
      });
      expect(reply.ok).toBe(true);
    }
  });

  it('control: a public address literal is accepted (the refusals are about the address)', async () => {
    const reply = await client(binding).call('CreateTaskPushNotificationConfig', {
      taskId: taskIds[binding],
      url: 'http://93.184.215.14:8443/hook',
    });
    expect(reply.ok).toBe(true);
    const v6 = await client(binding).call('CreateTaskPushNotificationConfig', {
      taskId: taskIds[binding],
      url: 'http://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:8443/hook',
    });
    expect(v6.ok).toBe(true);
  });
});
