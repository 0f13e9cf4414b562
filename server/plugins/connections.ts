import type { Socket } from 'node:net';
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { clientNetwork } from '../network';

/**
 * Limits on how long and how slowly a client may hold a connection. Node closes connections
 * whose headers (`headersTimeout`) or whole request (`requestTimeout`) take too long; on top of
 * that a request body must keep arriving at `minBodyBytesPerSecond` once `bodyGraceMs` have
 * passed, so a client trickling a byte a second is cut long before the request timeout, and one
 * address may hold at most `connectionsPerAddress` connections at once.
 */
export interface ConnectionLimits {
  headersTimeoutMs: number;
  /** The whole request, body included: sized for a 40 MB studio upload over a slow uplink. */
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** A connection with no traffic either way for this long is closed. */
  idleTimeoutMs: number;
  bodyGraceMs: number;
  minBodyBytesPerSecond: number;
  maxConnections: number;
  /** Ignored behind a trusted proxy, where every connection comes from the proxy. */
  connectionsPerAddress: number;
}

export const defaultConnectionLimits: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 120_000,
  keepAliveTimeoutMs: 10_000,
  idleTimeoutMs: 60_000,
  bodyGraceMs: 5_000,
  minBodyBytesPerSecond: 1024,
  maxConnections: 4096,
  connectionsPerAddress: 256,
};

/** Fastify's and Node's own settings for these limits (Node checks its timeouts at `connectionsCheckingInterval`). */
export function serverTimeouts(limits: ConnectionLimits) {
  return {
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
    },
  };
}

const TOO_SLOW = JSON.stringify({ error: 'request_timeout', message: 'the request body arrived too slowly' });

export const connectionsPlugin = fp<{ limits: ConnectionLimits; behindProxy: boolean }>(
  async (app, { limits, behindProxy }) => {
    app.server.maxConnections = limits.maxConnections;

    if (!behindProxy) {
      const perAddress = new Map<string, number>();
      app.server.on('connection', (socket: Socket) => {
        // Per network, as every per-address limit: an IPv6 /64 is one client (server/network.ts).
        const address = clientNetwork(socket.remoteAddress ?? '');
        const held = (perAddress.get(address) ?? 0) + 1;
        if (held > limits.connectionsPerAddress) {
          socket.destroy();
          return;
        }
        perAddress.set(address, held);
        socket.once('close', () => {
          const left = perAddress.get(address)! - 1;
          if (left === 0) perAddress.delete(address);
          else perAddress.set(address, left);
        });
      });
    }

    // Requests whose body is still arriving: checked by one timer for the whole server, so a
    // vote costs a Map insert and delete, not a timer of its own. A request answered before its
    // body was read (a 401 on a vote, say) stays watched until the body ends: Node keeps reading it.
    const receiving = new Map<Socket, { since: number; bytesAtStart: number; answered: boolean }>();
    // Plain (callback) hooks: they run on every request, and an async one costs a promise each.
    app.addHook('onRequest', (request, _reply, done) => {
      const { headers, socket } = request.raw;
      const hasBody = headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
      if (hasBody) receiving.set(socket, { since: Date.now(), bytesAtStart: socket.bytesRead, answered: false });
      done();
    });
    app.addHook('preHandler', (request, _reply, done) => {
      receiving.delete(request.raw.socket);
      done();
    });
    const settled = (request: FastifyRequest) => {
      const watched = receiving.get(request.raw.socket);
      if (!watched) return;
      if (request.raw.complete) receiving.delete(request.raw.socket);
      else {
        watched.answered = true;
        request.raw.once('end', () => receiving.delete(request.raw.socket));
      }
    };
    app.addHook('onResponse', (request, _reply, done) => {
      settled(request);
      done();
    });
    app.addHook('onRequestAbort', (request, done) => {
      settled(request);
      done();
    });

    const check = setInterval(() => {
      const now = Date.now();
      for (const [socket, { since, bytesAtStart, answered }] of receiving) {
        const elapsed = now - since;
        if (socket.destroyed) receiving.delete(socket);
        else if (elapsed > limits.bodyGraceMs && ((socket.bytesRead - bytesAtStart) * 1000) / elapsed < limits.minBodyBytesPerSecond) {
          receiving.delete(socket);
          // Unanswered: say why before closing; answered: the reply went out, only the trickle is left.
          if (answered) socket.destroy();
          else {
            socket.end(
              `HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(TOO_SLOW)}\r\nConnection: close\r\n\r\n${TOO_SLOW}`,
            );
            socket.destroySoon();
          }
        }
      }
    }, Math.min(1000, limits.bodyGraceMs));
    check.unref();
    app.addHook('onClose', async () => clearInterval(check));
  },
  { name: 'connections' },
);
