import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { type AuthContext, authOf } from "../http/auth.js";
import { ApiError } from "../http/problem.js";
import type { EventHub, LiveEvent } from "../live/events.js";
import { problems, security } from "./common.js";

/** Open streams one organization may hold at once (each is a connection and a listener). */
export const MAX_STREAMS_PER_ORG = 50;
/** A comment line this often keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;
/** A client that stops reading is dropped once this much is queued for it (it reconnects and refetches). */
const MAX_QUEUED_BYTES = 1024 * 1024;
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
  const streams = new Set<() => void>();
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
          `At most ${String(MAX_STREAMS_PER_ORG)} open streams per organization (429 rate_limited beyond). ` +
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
      let sequence = 0;
      let ended = false;
      const send = (text: string): void => {
        if (ended) return;
        if (res.writableLength > MAX_QUEUED_BYTES) {
          end();
          return;
        }
        res.write(text);
      };
      const ready = (): void => send(frame("ready", { type: "ready", requestId: request.id }));
      // A resync is a second `ready`: clients refetch as they do after a reconnect.
      const deliver = (event: LiveEvent): void => (event.type === "resync" ? ready() : send(frame(event.type, event, ++sequence)));
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
      const end = (): void => {
        if (ended) return;
        ended = true;
        clearInterval(heartbeat);
        unsubscribe();
        streams.delete(end);
        res.end();
      };
      streams.add(end);
      // "close" on the response: finished, or the connection went away
      res.on("close", end);
      res.on("error", end);
      res.write(`retry: ${String(RETRY_MS)}\n\n`);
      ready();
    },
  );
}
