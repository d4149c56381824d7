import { randomUUID } from "node:crypto";
import type { Store } from "@driftwatch/core";
import pg from "pg";
import type { Logger } from "pino";
import { z } from "zod";
import { presentDelivery, presentDiff, presentMonitor } from "../routes/present.js";
import type { EventHub, LiveEvent } from "./events.js";

/**
 * Live events between processes on one PostgreSQL database, through LISTEN/NOTIFY. A process
 * publishes its own writes to its own browsers at once (with the records in hand) and sends the
 * other processes a small note (organization, event type, ids) on the channel; a process that
 * hears a note for an organization with a browser connected reads the records from the store and
 * pushes them. NOTIFY payloads are capped at 8000 bytes, hence ids rather than records.
 */

/** Notes gathered this long before they are sent (a burst of checks becomes one NOTIFY). */
const SEND_COALESCE_MS = 25;
/** Notes heard this long before their records are read (repeats of one monitor are read once). */
const RECEIVE_COALESCE_MS = 50;
/** Bytes of one NOTIFY payload, under PostgreSQL's 8000-byte limit. */
const MAX_PAYLOAD_BYTES = 7000;
/** Notes kept while the connection is down, or heard but not yet read; beyond it browsers are told to refetch. */
const MAX_QUEUED_NOTES = 1000;
/** Reconnect back-off: first wait and cap. */
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;

/** The `application_name` of the relay's connection (as `pg_stat_activity` shows it). */
export const LIVE_APPLICATION_NAME = "driftwatch-live";

const noteSchema = z.discriminatedUnion("t", [
  z.object({ o: z.string().max(200), t: z.literal("check"), m: z.string().max(200), d: z.string().max(200).nullable() }),
  z.object({ o: z.string().max(200), t: z.literal("monitor"), m: z.string().max(200) }),
  z.object({ o: z.string().max(200), t: z.literal("delivery"), w: z.string().max(200), l: z.string().max(200) }),
]);
type Note = z.infer<typeof noteSchema>;
/** A message on the channel: `p` the sending relay, `n` its notes, or `r` (resync) when it lost some. */
const messageSchema = z.object({ p: z.string().max(200), n: z.array(noteSchema).max(1000).optional(), r: z.literal(true).optional() });

/** The channel of a database's schema: notifications never cross databases, the schema keeps two installs on one database apart. */
export function liveChannel(schema = "public"): string {
  return `driftwatch_live:${schema}`.slice(0, 63);
}

function noteOf(orgId: string, event: LiveEvent): Note | null {
  switch (event.type) {
    case "check":
      return { o: orgId, t: "check", m: event.monitor.id, d: event.diff?.id ?? null };
    case "monitor":
      return { o: orgId, t: "monitor", m: event.monitor.id };
    case "delivery":
      return { o: orgId, t: "delivery", w: event.delivery.webhookId, l: event.delivery.id };
    case "resync":
      return null;
  }
}

function keyOf(note: Note): string {
  switch (note.t) {
    case "check":
      // checks without a diff of one monitor coalesce (the latest monitor state is what is shown)
      return `${note.o}\u0000c\u0000${note.m}\u0000${note.d ?? ""}`;
    case "monitor":
      return `${note.o}\u0000m\u0000${note.m}`;
    case "delivery":
      return `${note.o}\u0000d\u0000${note.l}`;
  }
}

async function eventOf(store: Store, note: Note): Promise<LiveEvent | null> {
  switch (note.t) {
    case "check": {
      const monitor = await store.getMonitor(note.o, note.m);
      if (monitor === null) return null;
      const diff = note.d === null ? null : await store.getDiff(note.o, note.m, note.d);
      return { type: "check", monitor: presentMonitor(monitor), diff: diff === null ? null : presentDiff(diff) };
    }
    case "monitor": {
      const monitor = await store.getMonitor(note.o, note.m);
      return monitor === null ? null : { type: "monitor", monitor: presentMonitor(monitor) };
    }
    case "delivery": {
      const delivery = await store.getDelivery(note.o, note.w, note.l);
      return delivery === null ? null : { type: "delivery", delivery: presentDelivery(delivery) };
    }
  }
}

export interface PostgresRelayOptions {
  connectionString: string;
  /** The store records are read from (unobserved: reading publishes nothing). */
  store: Store;
  /** This process's hub: its browsers subscribe to it. */
  hub: EventHub;
  logger: Logger;
  /** Listen for the other processes' notes (an api or all process); a worker only sends. */
  listen: boolean;
  schema?: string;
}

export interface PostgresRelay {
  /** Publish into this: to this process's browsers at once, and to the other processes as a note. */
  readonly hub: EventHub;
  /** Opens the connection (retried with back-off when it fails); resolves after the first attempt. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export function createPostgresRelay(options: PostgresRelayOptions): PostgresRelay {
  const { store, hub: local, logger } = options;
  const channel = liveChannel(options.schema);
  const self = randomUUID();
  const log = logger.child({ component: "live-relay" });

  let client: pg.Client | null = null;
  let connected = false;
  let closed = false;
  let failures = 0;
  let everConnected = false;
  let reconnectTimer: NodeJS.Timeout | null = null;

  // Outgoing notes, sent in batches; `lostOutgoing` when some were dropped while disconnected.
  let outgoing: Note[] = [];
  let lostOutgoing = false;
  let sendTimer: NodeJS.Timeout | null = null;
  // Heard notes, by coalescing key, read in batches.
  const heard = new Map<string, Note>();
  let readTimer: NodeJS.Timeout | null = null;
  let reading: Promise<void> = Promise.resolve();

  const resyncBrowsers = (): void => local.broadcast({ type: "resync" });

  const scheduleSend = (): void => {
    if (sendTimer !== null || closed) return;
    sendTimer = setTimeout(() => {
      sendTimer = null;
      void sendNow();
    }, SEND_COALESCE_MS);
  };

  async function sendNow(): Promise<void> {
    const current = client;
    if (!connected || current === null) return;
    const payloads: string[] = [];
    if (lostOutgoing) payloads.push(JSON.stringify({ p: self, r: true }));
    lostOutgoing = false;
    let batch: Note[] = [];
    const flush = (): void => {
      if (batch.length > 0) payloads.push(JSON.stringify({ p: self, n: batch }));
      batch = [];
    };
    let size = 0;
    for (const note of outgoing) {
      const bytes = Buffer.byteLength(JSON.stringify(note)) + 1;
      if (size + bytes > MAX_PAYLOAD_BYTES - 100) {
        flush();
        size = 0;
      }
      batch.push(note);
      size += bytes;
    }
    flush();
    outgoing = [];
    for (const payload of payloads) {
      try {
        await current.query("SELECT pg_notify($1, $2)", [channel, payload]);
      } catch (error) {
        // the connection went down mid-batch: the other processes are told to refetch once it is back
        lostOutgoing = true;
        log.warn({ err: error }, "live event notification not sent");
        return;
      }
    }
  }

  const scheduleRead = (): void => {
    if (readTimer !== null || closed) return;
    readTimer = setTimeout(() => {
      readTimer = null;
      reading = reading.then(readNow);
    }, RECEIVE_COALESCE_MS);
  };

  async function readNow(): Promise<void> {
    const notes = [...heard.values()];
    heard.clear();
    for (const note of notes) {
      if (closed) return;
      if (local.listenerCount(note.o) === 0) continue;
      try {
        const event = await eventOf(store, note);
        if (event !== null) local.publish(note.o, event);
      } catch (error) {
        log.warn({ err: error, note }, "live event not read");
      }
    }
  }

  function onNotification(message: pg.Notification): void {
    if (message.channel !== channel || message.payload === undefined) return;
    let parsed: z.infer<typeof messageSchema>;
    try {
      const result = messageSchema.safeParse(JSON.parse(message.payload));
      if (!result.success) return;
      parsed = result.data;
    } catch {
      return; // not ours (or not JSON): another program on the channel
    }
    if (parsed.p === self) return;
    if (parsed.r === true) {
      resyncBrowsers();
      return;
    }
    for (const note of parsed.n ?? []) {
      if (local.listenerCount(note.o) === 0) continue;
      if (heard.size >= MAX_QUEUED_NOTES) {
        // more than the store can be asked for at once: browsers refetch instead
        heard.clear();
        resyncBrowsers();
        return;
      }
      heard.set(keyOf(note), note);
    }
    if (heard.size > 0) scheduleRead();
  }

  function dropped(current: pg.Client, error?: unknown): void {
    if (client !== current) return;
    client = null;
    connected = false;
    current.removeAllListeners("notification");
    void current.end().catch(() => undefined);
    if (closed) return;
    log.warn({ err: error }, "live events connection lost; reconnecting");
    scheduleReconnect();
  }

  function scheduleReconnect(): void {
    if (closed || reconnectTimer !== null) return;
    const wait = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** Math.min(failures, 6)) * (0.75 + Math.random() * 0.5);
    failures++;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null;
      void connect();
    }, wait);
    reconnectTimer.unref();
  }

  async function connect(): Promise<void> {
    if (closed) return;
    const current = new pg.Client({
      connectionString: options.connectionString,
      // TCP keep-alive probes find a connection that died without a word (a dropped route, a failover)
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: 10_000,
      application_name: LIVE_APPLICATION_NAME,
    });
    client = current;
    current.on("error", (error) => dropped(current, error));
    current.on("end", () => dropped(current));
    current.on("notification", onNotification);
    try {
      await current.connect();
      if (options.listen) await current.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      dropped(current, error);
      return;
    }
    if (client !== current || closed) return;
    connected = true;
    failures = 0;
    // Events may have been missed while disconnected: browsers refetch (as after their own reconnect).
    if (everConnected) resyncBrowsers();
    everConnected = true;
    if (outgoing.length > 0 || lostOutgoing) scheduleSend();
  }

  const hub: EventHub = {
    subscribe: (orgId, listener) => local.subscribe(orgId, listener),
    listenerCount: (orgId) => local.listenerCount(orgId),
    broadcast: (event) => local.broadcast(event),
    publish(orgId, event) {
      local.publish(orgId, event);
      const note = noteOf(orgId, event);
      if (note === null || closed) return;
      if (outgoing.length >= MAX_QUEUED_NOTES) {
        outgoing = [];
        lostOutgoing = true;
      }
      outgoing.push(note);
      if (connected) scheduleSend();
    },
  };

  return {
    hub,
    start: () => connect(),
    async close() {
      if (closed) return;
      if (sendTimer !== null) {
        clearTimeout(sendTimer);
        sendTimer = null;
        await sendNow();
      }
      closed = true;
      for (const timer of [reconnectTimer, readTimer]) if (timer !== null) clearTimeout(timer);
      await reading;
      const current = client;
      client = null;
      connected = false;
      if (current !== null) await current.end().catch(() => undefined);
    },
  };
}
