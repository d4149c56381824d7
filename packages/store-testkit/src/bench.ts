import { severityRank, type RecordCheckInput, type Store } from "@driftwatch/core";
import { apiMonitor } from "./fixtures.js";

// What the SQL adapters' benchmarks share: the rows a bare driver writes for one changed check
// (the peer `recordCheck` is measured against), and the claim/release round on due monitors.

/** One statement with `?` placeholders in order; a PostgreSQL peer numbers them with `numberPlaceholders`. */
export interface BareStatement {
  sql: string;
  params: unknown[];
}

const UPDATE_MONITOR =
  "UPDATE monitors SET last_checked_at = ?, last_changed_at = ?, last_status = ?, last_error = ?, consecutive_failures = ?, updated_at = ? WHERE org_id = ? AND id = ?";
const INSERT_SNAPSHOT =
  "INSERT INTO snapshots (id, org_id, monitor_id, fetched_at, status, latency_ms, content_type, content_hash, size, browser_render, body, etag, last_modified) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)";
const INSERT_DIFF =
  "INSERT INTO diffs (id, org_id, monitor_id, snapshot_id, previous_snapshot_id, classification, top_severity, top_severity_rank, created_at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
const INSERT_DELIVERY =
  "INSERT INTO deliveries (id, org_id, webhook_id, event_id, event_type, monitor_id, diff_id, state, attempts, next_attempt_at, created_at, payload) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)";

export interface BareCheckOptions {
  /** How the driver stores `browser_render` (SQLite: 0, PostgreSQL: false). */
  browserRender: unknown;
  /** A new delivery id per call. */
  deliveryId(): string;
}

/**
 * The rows `recordCheck` writes for a changed check, as plain statements to run in one
 * transaction: the monitor's check fields, the snapshot, the diff and one pending delivery per
 * webhook. No validation, no webhook matching, no retention, no record mapping.
 */
export function bareCheckStatements(orgId: string, input: RecordCheckInput, webhookIds: readonly string[], options: BareCheckOptions): BareStatement[] {
  const { monitor: m, snapshot: s, diff: d, event: e } = input;
  if (s === null || d === null || e === null) throw new Error("bareCheckStatements needs a changed check (snapshot, diff and event)");
  const payload = JSON.stringify(e);
  return [
    { sql: UPDATE_MONITOR, params: [m.lastCheckedAt, m.lastChangedAt, m.lastStatus, m.lastError, m.consecutiveFailures, m.updatedAt, orgId, input.monitorId] },
    {
      sql: INSERT_SNAPSHOT,
      params: [s.id, orgId, input.monitorId, s.fetchedAt, s.status, s.latencyMs, s.contentType, s.contentHash, s.size, options.browserRender, s.body, s.etag ?? null],
    },
    {
      sql: INSERT_DIFF,
      params: [
        d.id,
        orgId,
        input.monitorId,
        s.id,
        d.previousSnapshotId,
        d.classification,
        d.topSeverity,
        severityRank(d.topSeverity),
        d.createdAt,
        JSON.stringify({ ...d, monitorId: input.monitorId, snapshotId: s.id }),
      ],
    },
    ...webhookIds.map((webhookId) => ({
      sql: INSERT_DELIVERY,
      params: [options.deliveryId(), orgId, webhookId, e.eventId, e.eventType, input.monitorId, d.id, e.occurredAt, e.occurredAt, payload],
    })),
  ];
}

/** `?, ?` -> `$1, $2` (the statements above hold no `?` inside string literals). */
export function numberPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

export interface ClaimRoundOptions {
  /** Monitors created due, one millisecond apart from 1970 on. */
  dueMonitors: number;
  /** Monitors claimed per round; a round that claims fewer throws. */
  batch: number;
}

/** Creates `dueMonitors` due monitors in a new organization `slug`; returns their organization id. */
export async function seedDueMonitors(store: Store, slug: string, dueMonitors: number): Promise<string> {
  const org = await store.ensureOrganization(slug);
  for (let i = 0; i < dueMonitors; i++) await store.createMonitor(org.id, apiMonitor({ nextCheckAt: new Date(i).toISOString() }));
  return org.id;
}

/**
 * Seeds due monitors and returns one round: claim `batch` due monitors, then release each with
 * a next check still in 1970, behind the ones not claimed yet, so every round finds `batch` due.
 */
export async function prepareClaimRound(store: Store, options: ClaimRoundOptions): Promise<() => Promise<void>> {
  await seedDueMonitors(store, "claims", options.dueMonitors);
  let tick = options.dueMonitors;
  return async () => {
    const now = new Date().toISOString();
    const claimed = await store.claimDueMonitors({ now, limit: options.batch, leaseMs: 60_000, owner: "bench" });
    if (claimed.length !== options.batch) throw new Error(`claimed ${claimed.length} of ${options.batch} due monitors`);
    for (const monitor of claimed) await store.releaseMonitor(monitor.id, "bench", new Date(tick++).toISOString());
  };
}
