import { createHash } from "node:crypto";
import { newId, type NewMonitor, type NewWebhook, type RecordCheckInput, type Store } from "@driftwatch/core";

/** An active API monitor due now. */
export function apiMonitor(overrides: Partial<NewMonitor> = {}): NewMonitor {
  return {
    type: "api",
    name: "orders API",
    url: "https://api.example.com/orders",
    method: "GET",
    headers: { accept: "application/json" },
    body: null,
    intervalSeconds: 60,
    selector: null,
    browserOptionsJson: null,
    state: "active",
    nextCheckAt: new Date(0).toISOString(),
    ...overrides,
  };
}

export function webhook(overrides: Partial<NewWebhook> = {}): NewWebhook {
  return {
    url: "https://hooks.example.com/driftwatch",
    description: null,
    events: ["diff.detected"],
    monitorIds: null,
    minSeverity: "info",
    enabled: true,
    secret: "whsec_dGVzdA==",
    ...overrides,
  };
}

const sha256 = (text: string): string => `sha256:${createHash("sha256").update(text).digest("hex")}`;

/** One changed check: a new snapshot, its diff against `previousSnapshotId`, and the event. */
export function changedCheck(monitorId: string, previousSnapshotId: string | null, sequence: number, body?: string): RecordCheckInput {
  const at = new Date().toISOString();
  const content = body ?? JSON.stringify({ orders: [{ id: sequence, total: sequence * 3 }], padding: "x".repeat(512) });
  const snapshotId = newId("snapshot");
  const diffId = newId("diff");
  const change = { path: "$.orders[0].total", category: "value", op: "replace", severity: "medium" } as const;
  return {
    monitorId,
    monitor: { lastCheckedAt: at, lastChangedAt: at, lastStatus: 200, lastError: null, consecutiveFailures: 0, updatedAt: at },
    snapshot: {
      id: snapshotId,
      fetchedAt: at,
      status: 200,
      latencyMs: 12,
      contentType: "application/json",
      contentHash: sha256(content),
      size: content.length,
      browserRender: false,
      body: content,
      etag: `"v${sequence}"`,
    },
    diff: {
      id: diffId,
      previousSnapshotId,
      classification: "value_change",
      schemaChanges: 0,
      valueChanges: 1,
      diffFingerprint: sha256(String(sequence)),
      topSeverity: "medium",
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
      data: { classification: "value_change", schemaChanges: 0, valueChanges: 1, changes: [change] },
    },
  };
}

/** An organization with one monitor and two webhooks that both match every diff. */
export async function seedOrganization(store: Store, slug = "acme"): Promise<{ orgId: string; monitorId: string; webhookIds: string[] }> {
  const org = await store.ensureOrganization(slug);
  const monitor = await store.createMonitor(org.id, apiMonitor());
  const first = await store.createWebhook(org.id, webhook());
  const second = await store.createWebhook(org.id, webhook({ url: "https://hooks.example.com/second", monitorIds: [monitor.id] }));
  return { orgId: org.id, monitorId: monitor.id, webhookIds: [first.id, second.id] };
}
