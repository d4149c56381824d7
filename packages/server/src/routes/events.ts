import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { type AuthContext, authOf } from "../http/auth.js";
import { ApiError } from "../http/problem.js";
import type { EventHub, LiveEvent } from "../live/events.js";
import { problems, security } from "./common.js";

/** Open streams one organization may hold at once (each is a connection and a listener). */
export const MAX_STREAMS_PER_ORG = 50;
/** Open streams one caller (a token, or a signed-in user) may hold at once, so that one cannot take all of its organization's. */
export const MAX_STREAMS_PER_CALLER = 10;
/**
 * A client that has not taken what was written to it within this long (the socket's buffer did not
 * drain) is disconnected: it reconnects and refetches, or it is gone.
 */
export const STREAM_WRITE_TIMEOUT_MS = 60_000;
/** A comment line this often keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;
/** A client that stops reading is disconnected once this much is queued for it (it reconnects and refetches). */
export const MAX_QUEUED_BYTES = 1024 * 1024;
/** What `retry:` tells the browser to wait before reconnecting. */
const RETRY_MS = 3000;
/**
 * How often an open stream checks that its caller may still read (a signed-out or revoked session,
 * a removed member, a revoked token): at the first heartbeat or event after this long.
 */
export const STREAM_RECHECK_MS = 15_000;

export interface EventStreamOptions {
  /** Whether the caller the stream was opened for may still read the organization's events. */
  stillAllowed(auth: AuthContext, at: number): Promise<boolean>;
  now: () => Date;
  /** Default `STREAM_WRITE_TIMEOUT_MS`. */
  writeTimeoutMs?: number;
}

/** Whether the caller may see `event`: delivery events need `webhooks:read`, the others `monitors:read` (the stream's own scope). */
function visibleTo(auth: AuthContext, event: LiveEvent): boolean {
  if (event.type !== "delivery") return true;
  return auth.scopes.includes("webhooks:read") || auth.scopes.includes("admin");
}

function callerOf(auth: AuthContext): string {
  return auth.via === "token" ? `token:${auth.tokenId}` : `user:${auth.userId}`;
}

function frame(event: string, data: unknown, id?: number): string {
  return `${id === undefined ? "" : `id: ${String(id)}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * `GET /api/events/stream`: server-sent events of the caller's organization (check results, diffs,
 * monitor changes and webhook deliveries), authenticated like every API route (bearer token). The
 * first event is `ready`; a comment line every 15 s keeps the connection open. Nothing is replayed:
 * a client that reconnects refetches what it shows, and so does one that gets a later `ready` (this
 * process's link to the other processes was down, see `createPostgresRelay`).
 */
export function registerEventRoutes(app: FastifyInstance, hub: EventHub, options: EventStreamOptions): void {
  const { stillAllowed, now } = options;
  const writeTimeoutMs = options.writeTimeoutMs ?? STREAM_WRITE_TIMEOUT_MS;
  const streams = new Set<(disconnect?: boolean) => void>();
  /** Open streams per organization and caller. */
  const perCaller = new Map<string, number>();
  // Open streams would keep `close()` waiting: end them first.
  app.addHook("preClose", async () => {
    for (const end of [...streams]) end();
  });

  app.get(
    "/api/events/stream",
    {
      config: { scope: "monitors:read", rateLimit: "read" },
      schema: {
        tags: ["monitors"],
        security,
        summary: "Live events of the organization (server-sent events)",
        description:
          "text/event-stream. Events: ready, check ({ monitor, diff | null }), monitor ({ monitor }), delivery ({ delivery }). " +
          `At most ${String(MAX_STREAMS_PER_ORG)} open streams per organization and ${String(MAX_STREAMS_PER_CALLER)} per caller (429 rate_limited beyond). ` +
          "delivery events only reach callers with webhooks:read. A client that stops reading is disconnected once 1 MB is queued for it, " +
          `or when what was written to it has not drained within ${String(STREAM_WRITE_TIMEOUT_MS / 1000)} s. HEAD answers the headers and closes. ` +
          "On PostgreSQL the events of every server process on the database arrive; on SQLite and memory, those of the process the stream is connected to " +
          "(an api-role process on SQLite also polls for the checks of its workers). " +
          "Nothing is replayed after a reconnect; a later ready event means events may have been missed: refetch.",
        produces: ["text/event-stream"],
        response: { 200: z.string().describe("text/event-stream"), ...problems() },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      const { orgId } = auth;
      if (hub.listenerCount(orgId) >= MAX_STREAMS_PER_ORG) {
        throw new ApiError("rate_limited", `At most ${String(MAX_STREAMS_PER_ORG)} event streams may be open per organization.`, {
          headers: { "retry-after": "30" },
        });
      }
      const callerKey = `${orgId}\u0000${callerOf(auth)}`;
      if ((perCaller.get(callerKey) ?? 0) >= MAX_STREAMS_PER_CALLER) {
        throw new ApiError("rate_limited", `At most ${String(MAX_STREAMS_PER_CALLER)} event streams may be open per caller.`, {
          headers: { "retry-after": "30" },
        });
      }
      const res = reply.raw;
      const headers: Record<string, string | number | string[]> = {};
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
      reply.hijack();
      res.writeHead(200, {
        ...headers,
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        "x-accel-buffering": "no",
        connection: "keep-alive",
      });
      if (request.method === "HEAD") {
        // the headers a GET would answer, and nothing held open
        res.end();
        return;
      }
      perCaller.set(callerKey, (perCaller.get(callerKey) ?? 0) + 1);
      let sequence = 0;
      let ended = false;
      /** Runs while written data waits for the client to take it (cleared when the socket drains). */
      let stalled: NodeJS.Timeout | null = null;
      const send = (text: string): void => {
        if (ended) return;
        if (res.writableLength > MAX_QUEUED_BYTES) {
          // Ending would keep the socket and all it buffered: disconnect.
          end(true);
          return;
        }
        if (!res.write(text) && stalled === null) {
          stalled = setTimeout(() => end(true), writeTimeoutMs);
          stalled.unref();
          res.once("drain", () => {
            if (stalled !== null) clearTimeout(stalled);
            stalled = null;
          });
        }
      };
      const ready = (): void => send(frame("ready", { type: "ready", requestId: request.id }));
      // A resync is a second `ready`: clients refetch as they do after a reconnect.
      const deliver = (event: LiveEvent): void => {
        if (event.type === "resync") ready();
        else if (visibleTo(auth, event)) send(frame(event.type, event, ++sequence));
      };
      let checkedAt = now().getTime();
      /** Events that arrived while the caller is being checked again (null: no check under way). */
      let held: LiveEvent[] | null = null;
      /** Starts a check of the caller when one is due; true while one is under way (hold what comes). */
      const checking = (): boolean => {
        if (held !== null) return true;
        const at = now().getTime();
        if (at - checkedAt < STREAM_RECHECK_MS) return false;
        checkedAt = at;
        const pending: LiveEvent[] = [];
        held = pending;
        stillAllowed(auth, at).then(
          (allowed) => {
            held = null;
            if (!allowed) return end();
            for (const event of pending) deliver(event);
          },
          (error: unknown) => {
            // Not known to be allowed: end the stream (the client reconnects and authenticates again).
            request.log.warn({ err: error }, "could not check the event stream's caller");
            held = null;
            end();
          },
        );
        return true;
      };
      const unsubscribe = hub.subscribe(orgId, (event: LiveEvent) => {
        if (checking()) held?.push(event);
        else deliver(event);
      });
      const heartbeat = setInterval(() => {
        checking();
        send(": keep-alive\n\n");
      }, HEARTBEAT_MS);
      heartbeat.unref();
      const end = (disconnect = false): void => {
        if (ended) return;
        ended = true;
        clearInterval(heartbeat);
        if (stalled !== null) clearTimeout(stalled);
        unsubscribe();
        streams.delete(end);
        const left = (perCaller.get(callerKey) ?? 1) - 1;
        if (left <= 0) perCaller.delete(callerKey);
        else perCaller.set(callerKey, left);
        if (disconnect) {
          // A reset, not a FIN: a FIN waits behind all the kernel still queues for a client that
          // does not read (megabytes, held for minutes after the socket is closed); a reset drops it.
          const socket = res.socket;
          if (socket !== null && typeof socket.resetAndDestroy === "function" && !socket.destroyed) socket.resetAndDestroy();
          else res.destroy();
        } else res.end();
      };
      streams.add(end);
      // "close" on the response: finished, or the connection went away
      res.on("close", () => end());
      res.on("error", () => end(true));
      res.write(`retry: ${String(RETRY_MS)}\n\n`);
      ready();
    },
  );
}
