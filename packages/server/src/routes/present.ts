import type { DeliveryRecord, DiffRecord, MonitorRecord, SnapshotRecord, TokenRecord, WebhookRecord } from "@driftwatch/core";
import type { Delivery, Diff, Monitor, Snapshot, Token, Webhook } from "@driftwatch/schema";

/** What credential-bearing header values are replaced with in responses. */
export const MASK = "***";

/** Header names whose values are credentials (`authorization`, `cookie`, names with token, secret or key): returned masked. */
export function isCredentialHeader(name: string): boolean {
  const n = name.toLowerCase();
  return n === "authorization" || n === "proxy-authorization" || n === "cookie" || n === "x-api-key" || /token|secret|key/.test(n);
}

export function maskHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = isCredentialHeader(name) ? MASK : value;
  return out;
}

/**
 * Headers of an update: a credential header sent back as `***` (as a GET returned it) keeps its
 * stored value, so a client can round-trip a monitor without knowing its secrets.
 */
export function mergeMaskedHeaders(next: Record<string, string>, stored: Record<string, string>): Record<string, string> {
  const storedByName = new Map(Object.entries(stored).map(([k, v]) => [k.toLowerCase(), v]));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(next)) {
    const previous = storedByName.get(name.toLowerCase());
    out[name] = value === MASK && isCredentialHeader(name) && previous !== undefined ? previous : value;
  }
  return out;
}

export function presentMonitor(m: MonitorRecord): Monitor {
  return {
    id: m.id,
    type: m.type,
    name: m.name,
    url: m.url,
    method: m.method,
    headers: maskHeaders(m.headers),
    body: m.body,
    intervalSeconds: m.intervalSeconds,
    selector: m.selector,
    browserOptionsJson: m.browserOptionsJson,
    tags: [...m.tags],
    contract: m.contract ?? null,
    state: m.state,
    consecutiveFailures: m.consecutiveFailures,
    lastCheckedAt: m.lastCheckedAt,
    lastChangedAt: m.lastChangedAt,
    nextCheckAt: m.nextCheckAt,
    lastStatus: m.lastStatus,
    lastError: m.lastError,
    lastFailure: m.lastFailure,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
  };
}

/** A snapshot; `body` only when asked for (the single-snapshot endpoint). */
export function presentSnapshot(s: SnapshotRecord | Snapshot, withBody: boolean): Snapshot {
  const out: Snapshot = {
    id: s.id,
    monitorId: s.monitorId,
    fetchedAt: s.fetchedAt,
    status: s.status,
    latencyMs: s.latencyMs,
    contentType: s.contentType,
    contentHash: s.contentHash,
    size: s.size,
    browserRender: s.browserRender,
  };
  if (s.silenced != null) out.silenced = s.silenced;
  if (withBody && s.body !== undefined) out.body = s.body;
  return out;
}

export function presentDiff(d: DiffRecord | Diff): Diff {
  const { orgId: _orgId, ...diff } = d as DiffRecord;
  return diff as Diff;
}

export function presentWebhook(w: WebhookRecord): Webhook {
  return {
    id: w.id,
    url: w.url,
    description: w.description,
    events: w.events,
    monitorIds: w.monitorIds,
    minSeverity: w.minSeverity,
    enabled: w.enabled,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
  };
}

export function presentDelivery(d: DeliveryRecord): Delivery {
  return {
    id: d.id,
    webhookId: d.webhookId,
    eventId: d.eventId,
    eventType: d.eventType,
    monitorId: d.monitorId,
    diffId: d.diffId,
    state: d.state,
    attempts: d.attempts,
    nextAttemptAt: d.nextAttemptAt,
    lastAttemptAt: d.lastAttemptAt,
    lastResponseStatus: d.lastResponseStatus,
    lastError: d.lastError,
    createdAt: d.createdAt,
  };
}

export function presentToken(t: TokenRecord): Token {
  return {
    id: t.id,
    name: t.name,
    scopes: t.scopes,
    createdAt: t.createdAt,
    lastUsedAt: t.lastUsedAt,
    revokedAt: t.revokedAt,
    createdBy: t.createdBy ?? null,
  };
}
