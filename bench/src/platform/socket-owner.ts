import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Local TCP port → socket inode, from /proc/net/tcp and tcp6 (Linux). */
function portInodes(): Map<number, string> {
  const map = new Map<number, string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10) continue;
      map.set(parseInt(cols[1]!.split(':')[1]!, 16), cols[9]!);
    }
  }
  return map;
}

function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1]!);
      } catch {
        // The descriptor closed while we looked.
      }
    }
  } catch {
    // The process exited.
  }
  return inodes;
}

/**
 * Which of `owners` holds the client end of each TCP connection, by the connection's local port:
 * lets Postgres backends (pg_stat_activity.client_port) be charged to the process they serve.
 */
export function socketOwners<T extends { pid: number }>(owners: T[], ports: number[]): Map<number, T> {
  const byPort = portInodes();
  const held = owners.map((o) => ({ o, inodes: socketInodes(o.pid) }));
  const result = new Map<number, T>();
  for (const port of ports) {
    const inode = byPort.get(port);
    const owner = inode && held.find((h) => h.inodes.has(inode));
    if (owner) result.set(port, owner.o);
  }
  return result;
}
