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

/** One changed check: a new snapshot, its diff against `previousSnapshotId`, and the event. */
export function changedCheck(monitorId: string, previousSnapshotId: string | null, sequence: number): RecordCheckInput {
  const at = new Date().toISOString();
  const body = JSON.stringify({ orders: [{ id: sequence, total: sequence * 3 }], padding: "x".repeat(512) });
  const snapshotId = newId("snapshot");
  const diffId = newId("diff");
  return {
    monitorId,
    monitor: { lastCheckedAt: at, lastChangedAt: at, lastStatus: 200, lastError: null, consecutiveFailures: 0, updatedAt: at },
    snapshot: {
      id: snapshotId,
      fetchedAt: at,
      status: 200,
      latencyMs: 12,
      contentType: "application/json",
      contentHash: `sha256:${createHash("sha256").update(body).digest("hex")}`,
      size: body.length,
      browserRender: false,
      body,
      etag: `"v${sequence}"`,
    },
    diff: {
      id: diffId,
      previousSnapshotId,
      classification: "value_change",
      schemaChanges: 0,
      valueChanges: 1,
      diffFingerprint: `sha256:${createHash("sha256").update(String(sequence)).digest("hex")}`,
      topSeverity: "medium",
      changes: [{ path: "$.orders[0].total", category: "value", op: "replace", severity: "medium", before: 0, after: sequence * 3 }],
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
      data: {
        classification: "value_change",
        schemaChanges: 0,
        valueChanges: 1,
        changes: [{ path: "$.orders[0].total", category: "value", op: "replace", severity: "medium" }],
      },
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
