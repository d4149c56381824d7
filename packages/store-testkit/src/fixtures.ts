import { createHash } from "node:crypto";
import {
  newId,
  type Classification,
  type NewMonitor,
  type NewWebhook,
  type RecordCheckInput,
  type Severity,
  type Store,
} from "@driftwatch/core";

// Inputs the contract cases (and adapter tests, benches and crash tests) build checks from.

const sha256 = (text: string): string => `sha256:${createHash("sha256").update(text).digest("hex")}`;

/** An active API monitor, due since 1970. */
export function apiMonitor(overrides: Partial<NewMonitor> = {}): NewMonitor {
  return {
    type: "api",
    name: "orders API",
    url: "https://api.example.com/orders",
    method: "GET",
    headers: { accept: "application/json", authorization: "Bearer secret" },
    body: null,
    intervalSeconds: 60,
    selector: null,
    browserOptionsJson: null,
    state: "active",
    nextCheckAt: new Date(0).toISOString(),
    ...overrides,
  };
}

export function webhookInput(overrides: Partial<NewWebhook> = {}): NewWebhook {
  return {
    url: "https://hooks.example.com/driftwatch",
    description: null,
    events: ["diff.detected"],
    monitorIds: null,
    minSeverity: "info",
    enabled: true,
    secret: "whsec_dGVzdHNlY3JldA==",
    ...overrides,
  };
}

export interface CheckOptions {
  /** The snapshot the diff is against (null for the first one). */
  previousSnapshotId?: string | null;
  /** Distinguishes bodies and fingerprints. */
  sequence?: number;
  severity?: Severity;
  classification?: Extract<Classification, "schema_change" | "value_change">;
  /** Time of the check, the diff's `createdAt` and the event's `occurredAt`. */
  at?: string;
  retention?: number;
  /** The snapshot body; by default a small JSON document derived from `sequence`. */
  body?: string;
}

/** A check that found a change: a new snapshot, its diff and the `diff.detected` event. */
export function changedCheck(monitorId: string, options: CheckOptions = {}): RecordCheckInput {
  const sequence = options.sequence ?? 0;
  const at = options.at ?? new Date().toISOString();
  const severity = options.severity ?? "medium";
  const classification = options.classification ?? "value_change";
  const schema = classification === "schema_change";
  const body = options.body ?? JSON.stringify({ orders: [{ id: sequence, total: sequence * 3 }], padding: "x".repeat(256) });
  const snapshotId = newId("snapshot");
  const diffId = newId("diff");
  const change = { path: "$.orders[0].total", category: schema ? "schema" : "value", op: "replace", severity } as const;
  const input: RecordCheckInput = {
    monitorId,
    monitor: { lastCheckedAt: at, lastChangedAt: at, lastStatus: 200, lastError: null, consecutiveFailures: 0, updatedAt: at },
    snapshot: {
      id: snapshotId,
      fetchedAt: at,
      status: 200,
      latencyMs: 12,
      contentType: "application/json",
      contentHash: sha256(body),
      size: body.length,
      browserRender: false,
      body,
      etag: `"v${sequence}"`,
      lastModified: null,
    },
    diff: {
      id: diffId,
      previousSnapshotId: options.previousSnapshotId ?? null,
      classification,
      schemaChanges: schema ? 1 : 0,
      valueChanges: schema ? 0 : 1,
      diffFingerprint: sha256(`${monitorId}:${sequence}`),
      topSeverity: severity,
      changes: [{ ...change, before: 0, after: sequence * 3 }],
      requestId: newId("request"),
      status: 200,
      latencyMs: 12,
      createdAt: at,
    },
    event: {
      schemaVersion: "v1",
      eventVersion: 1,
      eventId: newId("event"),
      eventType: "diff.detected",
      occurredAt: at,
      monitorId,
      diffId,
      snapshotId,
      data: { classification: schema ? "schema_change" : "value_change", schemaChanges: schema ? 1 : 0, valueChanges: schema ? 0 : 1, changes: [change] },
    },
  };
  if (options.retention !== undefined) input.retention = options.retention;
  return input;
}

/** A check that saw no change: only the monitor's check fields. */
export function unchangedCheck(monitorId: string, at: string = new Date().toISOString()): RecordCheckInput {
  return { monitorId, monitor: { lastCheckedAt: at, lastStatus: 200, updatedAt: at }, snapshot: null, diff: null, event: null };
}

export interface SeededOrganization {
  orgId: string;
  monitorId: string;
  /** Two enabled webhooks that both match every diff of the monitor. */
  webhookIds: [string, string];
}

/** An organization with one monitor and two webhooks matching it. */
export async function seedOrganization(store: Store, slug = "acme"): Promise<SeededOrganization> {
  const org = await store.ensureOrganization(slug);
  const monitor = await store.createMonitor(org.id, apiMonitor());
  const first = await store.createWebhook(org.id, webhookInput());
  const second = await store.createWebhook(org.id, webhookInput({ url: "https://hooks.example.com/second", monitorIds: [monitor.id] }));
  return { orgId: org.id, monitorId: monitor.id, webhookIds: [first.id, second.id] };
}

/** Records `count` changed checks in a row, each against the previous snapshot; returns them in order. */
export async function recordChanges(store: Store, orgId: string, monitorId: string, count: number, options: Omit<CheckOptions, "previousSnapshotId" | "sequence"> = {}): Promise<RecordCheckInput[]> {
  const checks: RecordCheckInput[] = [];
  let previous: string | null = (await store.getLatestSnapshot(orgId, monitorId))?.id ?? null;
  for (let i = 0; i < count; i++) {
    const check = changedCheck(monitorId, { ...options, previousSnapshotId: previous, sequence: i });
    await store.recordCheck(orgId, check);
    previous = check.snapshot!.id;
    checks.push(check);
  }
  return checks;
}
