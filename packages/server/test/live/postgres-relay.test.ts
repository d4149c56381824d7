// The PostgreSQL relay of live events between two relays on one real database: a burst larger than
// one NOTIFY payload arrives whole, records are read from the store, and a relay does not push its
// own notes twice.
import type { MonitorRecord, Store } from "@driftwatch/core";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresDatabase, postgresSkipReason, type TestPostgresDatabase } from "../../../../tooling/test-postgres.js";
import { openStore } from "../../src/config/store-url.js";
import { createEventHub, type LiveEvent } from "../../src/live/events.js";
import { createPostgresRelay, type PostgresRelay } from "../../src/live/postgres-relay.js";
import { presentMonitor } from "../../src/routes/present.js";

const skip = await postgresSkipReason();
if (skip !== null) console.warn(`skipping the live relay suite: ${skip}`);

/** More monitors than one 8000-byte NOTIFY payload can name. */
const BURST = 200;

describe.skipIf(skip !== null)("live events relay (PostgreSQL LISTEN/NOTIFY)", () => {
  let database: TestPostgresDatabase | undefined;
  let store: Store;
  const relays: PostgresRelay[] = [];

  beforeAll(async () => {
    database = await createPostgresDatabase("dw_live_relay");
    store = await openStore(database.url, { adapterOptions: { max: 2 } });
  });
  afterAll(async () => {
    for (const relay of relays) await relay.close();
    await store?.close();
    await database?.drop();
  });

  function relay(): { relay: PostgresRelay; events: LiveEvent[]; subscribe(orgId: string): void } {
    const hub = createEventHub();
    const events: LiveEvent[] = [];
    const created = createPostgresRelay({ connectionString: database!.url, store, hub, logger: pino({ level: "silent" }), listen: true });
    relays.push(created);
    return { relay: created, events, subscribe: (orgId) => void hub.subscribe(orgId, (event) => events.push(event)) };
  }

  async function until(condition: () => boolean, what: string): Promise<void> {
    for (let i = 0; i < 300 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    if (!condition()) throw new Error(`never happened: ${what}`);
  }

  it("carries a burst larger than one notification, reading the records, and skips a relay's own notes", async () => {
    const org = await store.createOrganization({ slug: "relay" });
    const monitors: MonitorRecord[] = [];
    for (let i = 0; i < BURST; i++) {
      monitors.push(
        await store.createMonitor(org.id, {
          type: "api", name: `m${String(i)}`, url: `https://example.com/${String(i)}`, method: "GET", headers: {}, body: null,
          intervalSeconds: 60, selector: null, browserOptionsJson: null, state: "active", nextCheckAt: null,
        }),
      );
    }
    const a = relay();
    const b = relay();
    await a.relay.start();
    await b.relay.start();
    a.subscribe(org.id);
    b.subscribe(org.id);

    // What A sends carries only ids: B reads the monitor as it is now in the store.
    await store.updateMonitor(org.id, monitors[0]!.id, { name: "renamed after publishing" });
    for (const monitor of monitors) a.relay.hub.publish(org.id, { type: "monitor", monitor: presentMonitor(monitor) });
    expect(a.events).toHaveLength(BURST);

    const idsOf = (events: LiveEvent[]): Set<string> => new Set(events.flatMap((e) => (e.type === "monitor" ? [e.monitor.id] : [])));
    await until(() => idsOf(b.events).size === BURST, `B hears all ${String(BURST)} monitors`);
    expect(idsOf(b.events)).toEqual(new Set(monitors.map((m) => m.id)));
    expect(b.events.some((e) => e.type === "resync")).toBe(false);
    const first = b.events.find((e) => e.type === "monitor" && e.monitor.id === monitors[0]!.id);
    expect(first).toMatchObject({ monitor: { name: "renamed after publishing" } });

    // A note from B reaches A after A's own notes (one channel, in order): A pushed those once.
    b.relay.hub.publish(org.id, { type: "monitor", monitor: presentMonitor(monitors[1]!) });
    await until(() => a.events.length > BURST, "A hears B's note");
    expect(a.events).toHaveLength(BURST + 1);
    expect(a.events[BURST]).toMatchObject({ type: "monitor", monitor: { id: monitors[1]!.id } });
  });
});
