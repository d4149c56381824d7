import type { MonitorRecord, Store } from "@driftwatch/core";
import type { Logger } from "pino";
import { presentDiff, presentMonitor } from "../routes/present.js";
import type { EventHub } from "./events.js";

/**
 * Live checks for an `--role api` process on SQLite, whose checks run in a worker process on the
 * same file: while a browser of an organization is connected, its monitors are read every
 * `intervalMs` and a monitor whose `lastCheckedAt` moved is pushed as a `check` event, with each
 * diff recorded since. Deliveries are not polled (they show when the browser refetches). Nothing
 * is read while no browser is connected.
 */

/** How often the monitors of a watched organization are read. */
export const CHECK_POLL_MS = 1500;
/** Monitors read per organization and poll; beyond it, monitors are not live (a page of 100 per read). */
const MAX_MONITORS_PER_POLL = 1000;
const PAGE = 100;

interface Seen {
  lastCheckedAt: string | null;
  lastChangedAt: string | null;
}

export interface CheckPoller {
  /** Subscribe through this (its subscriptions decide what is polled); publish goes to the hub as is. */
  readonly hub: EventHub;
  close(): Promise<void>;
}

export function createCheckPoller(options: { store: Store; hub: EventHub; logger: Logger; intervalMs?: number }): CheckPoller {
  const { store, hub: local } = options;
  const log = options.logger.child({ component: "live-poller" });
  const intervalMs = options.intervalMs ?? CHECK_POLL_MS;
  // Per watched organization: what its monitors looked like at the last poll (null until the first).
  const watched = new Map<string, { listeners: number; seen: Map<string, Seen> | null }>();
  let timer: NodeJS.Timeout | null = null;
  let polling: Promise<void> = Promise.resolve();
  let closed = false;

  async function pushChanges(orgId: string, monitor: MonitorRecord, before: Seen): Promise<void> {
    if (monitor.lastChangedAt === before.lastChangedAt || before.lastCheckedAt === null) {
      local.publish(orgId, { type: "check", monitor: presentMonitor(monitor), diff: null });
      return;
    }
    const since = before.lastCheckedAt;
    const diffs = await store.listDiffs(orgId, monitor.id, { limit: PAGE, since });
    const fresh = diffs.data.filter((d) => d.createdAt > since).sort((x, y) => x.createdAt.localeCompare(y.createdAt));
    if (fresh.length === 0) local.publish(orgId, { type: "check", monitor: presentMonitor(monitor), diff: null });
    for (const diff of fresh) local.publish(orgId, { type: "check", monitor: presentMonitor(monitor), diff: presentDiff(diff) });
  }

  async function pollOrg(orgId: string): Promise<void> {
    const entry = watched.get(orgId);
    if (entry === undefined) return;
    const previous = entry.seen;
    const next = new Map<string, Seen>();
    let cursor: string | null = null;
    do {
      const page = await store.listMonitors(orgId, { limit: PAGE, cursor });
      for (const monitor of page.data) {
        const now = { lastCheckedAt: monitor.lastCheckedAt, lastChangedAt: monitor.lastChangedAt };
        next.set(monitor.id, now);
        const before = previous?.get(monitor.id) ?? (previous === null ? undefined : { lastCheckedAt: null, lastChangedAt: null });
        if (before !== undefined && now.lastCheckedAt !== null && now.lastCheckedAt !== before.lastCheckedAt) {
          await pushChanges(orgId, monitor, before);
        }
      }
      cursor = page.nextCursor;
    } while (cursor !== null && next.size < MAX_MONITORS_PER_POLL);
    // the organization may have lost its last browser meanwhile
    if (watched.get(orgId) === entry) entry.seen = next;
  }

  async function pollAll(): Promise<void> {
    for (const orgId of [...watched.keys()]) {
      if (closed) return;
      try {
        await pollOrg(orgId);
      } catch (error) {
        log.warn({ err: error, orgId }, "live check poll failed");
      }
    }
  }

  const schedule = (): void => {
    if (timer !== null || closed || watched.size === 0) return;
    timer = setTimeout(() => {
      timer = null;
      polling = polling.then(pollAll).then(schedule);
    }, intervalMs);
    timer.unref();
  };

  const hub: EventHub = {
    publish: (orgId, event) => local.publish(orgId, event),
    broadcast: (event) => local.broadcast(event),
    listenerCount: (orgId) => local.listenerCount(orgId),
    subscribe(orgId, listener) {
      const unsubscribe = local.subscribe(orgId, listener);
      let entry = watched.get(orgId);
      if (entry === undefined) {
        watched.set(orgId, (entry = { listeners: 0, seen: null }));
        // the first look only remembers; later ones push what moved
        polling = polling.then(() => pollOrg(orgId).catch((error: unknown) => log.warn({ err: error, orgId }, "live check poll failed")));
      }
      entry.listeners++;
      schedule();
      let done = false;
      return () => {
        unsubscribe();
        if (done) return;
        done = true;
        const current = watched.get(orgId);
        if (current !== undefined && --current.listeners === 0) watched.delete(orgId);
      };
    },
  };

  return {
    hub,
    async close() {
      closed = true;
      if (timer !== null) clearTimeout(timer);
      await polling;
    },
  };
}
