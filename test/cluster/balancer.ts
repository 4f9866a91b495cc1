/**
 * A small TCP balancer in front of gateways, as operators run one: clients connect to one address;
 * each connection is relayed to the gateway the balancer points at when it arrives. While it points
 * nowhere (its gateway died and no other is up yet), new connections wait instead of failing, the
 * way a balancer queues requests during a failover.
 */
import type { Socket } from "bun";
import { flushQueue } from "../helpers/tcp.ts";

interface Side {
  peer: Socket<Side> | null;
  /** Bytes waiting to be written to this socket (backpressure). */
  queue: Uint8Array[];
  /** Client side only: bytes received before the upstream connection opened. */
  early: Uint8Array[];
}

export interface TcpBalancer {
  port: number;
  url: string;
  /** Points new connections at `port`; null holds them until it points somewhere again. */
  point(port: number | null): void;
  stop(): void;
}

export function tcpBalancer(initial: number | null = null): TcpBalancer {
  let target = initial;
  const waiting = new Set<Socket<Side>>();
  const open = new Set<Socket<Side>>();

  const flush = (s: Socket<Side>) => flushQueue(s);
  const forward = (to: Socket<Side>, bytes: Uint8Array) => {
    to.data.queue.push(bytes.slice());
    flush(to);
  };

  const relay = (client: Socket<Side>, port: number) => {
    Bun.connect<Side>({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(up) {
          up.data = { peer: client, queue: [], early: [] };
          open.add(up);
          client.data.peer = up;
          for (const b of client.data.early.splice(0)) forward(up, b);
        },
        data(up, d) {
          if (up.data.peer) forward(up.data.peer, d);
        },
        drain: flush,
        close(up) {
          open.delete(up);
          up.data.peer?.end();
        },
        error() {},
      },
    }).catch(() => client.end());
  };

  const listener = Bun.listen<Side>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        client.data = { peer: null, queue: [], early: [] };
        open.add(client);
        if (target === null) waiting.add(client);
        else relay(client, target);
      },
      data(client, d) {
        if (client.data.peer) forward(client.data.peer, d);
        else client.data.early.push(d.slice());
      },
      drain: flush,
      close(client) {
        open.delete(client);
        waiting.delete(client);
        client.data.peer?.end();
      },
      error() {},
    },
  });

  return {
    port: listener.port,
    url: `http://127.0.0.1:${listener.port}`,
    point(port) {
      target = port;
      if (port === null) return;
      for (const c of [...waiting]) relay(c, port);
      waiting.clear();
    },
    stop() {
      for (const s of [...open]) s.terminate();
      open.clear();
      listener.stop(true);
    },
  };
}
