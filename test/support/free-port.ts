import fs from 'node:fs';
import net from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The kernel's ephemeral range: outgoing connections take their local port from it. */
function ephemeralStart(): number {
  try {
    const [lo] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const n = Number(lo);
    if (Number.isInteger(n) && n > 1024) return n;
  } catch {
    // Not Linux: the range IANA suggests.
  }
  return 49152;
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * The first of `count` consecutive TCP ports on 127.0.0.1, each free a moment ago and all below
 * the kernel's ephemeral range. A port given to a process a test kills and starts again must be
 * one no outgoing connection can take while the process is down: `freePort()` answers a port of
 * the ephemeral range, which a client's connection to Kafka or PostgreSQL may hold by the time
 * the process listens again (EADDRINUSE on restart).
 */
export async function freePortRange(count = 1): Promise<number> {
  const top = ephemeralStart() - count;
  const floor = Math.min(20_000, top - 1000);
  for (let attempt = 0; attempt < 100; attempt++) {
    const base = floor + Math.floor(Math.random() * (top - floor));
    let free = true;
    for (let p = base; p < base + count && free; p++) free = await isFree(p);
    if (free) return base;
  }
  throw new Error(`no ${count} consecutive free ports below ${top + count} on 127.0.0.1`);
}
