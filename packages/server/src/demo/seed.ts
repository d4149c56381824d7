import type { MonitorRecord, PolicyRules, Store, WebhookRecord } from "@driftwatch/core";
import { generateWebhookSecret } from "@driftwatch/core";
import { generateTokenSecret, hashTokenSecret } from "@driftwatch/engine";

export const DEMO_ORG_SLUG = "default";
export const DEMO_API_MONITOR = "Demo: prices API";
export const DEMO_PAGE_MONITOR = "Demo: news page";
export const DEMO_WEBHOOK_DESCRIPTION = "driftwatch demo receiver";
export const DEMO_TOKEN_NAME = "demo (npm start)";
/** The demo target changes every 15 s; the monitors look every 10 s (the minimum interval). */
export const DEMO_INTERVAL_SECONDS = 10;

/** What `--demo` prints and the e2e tests follow. */
export interface DemoSetup {
  orgId: string;
  apiMonitor: MonitorRecord;
  pageMonitor: MonitorRecord;
  webhook: WebhookRecord;
  /** An admin token of the demo organization created for this run (earlier demo tokens are revoked). */
  token: string;
}

export const DEMO_API_POLICY: PolicyRules = {
  rules: [
    { path: "$.updatedAt", action: "ignore" },
    { path: "$.period", action: "ignore" },
    { path: "$.items[*].price", severity: "medium" },
  ],
  arrayKeys: { "$.items": "sku" },
};

/**
 * Creates (or, on a database that already has them, points at this run's loopback ports) the
 * demo monitors and webhook in organization `default`, due now, and a fresh admin token.
 */
export async function seedDemo(
  store: Store,
  urls: { apiUrl: string; pageUrl: string; receiverUrl: string },
  now: Date = new Date(),
): Promise<DemoSetup> {
  const org = await store.ensureOrganization(DEMO_ORG_SLUG, "Default organization");
  const at = now.toISOString();
  const monitors = await listAll((cursor) => store.listMonitors(org.id, { limit: 100, cursor }));

  const upsertMonitor = async (name: string, type: "api" | "website", url: string, selector: string | null): Promise<MonitorRecord> => {
    const existing = monitors.find((m) => m.name === name && m.type === type);
    if (existing !== undefined) {
      const updated = await store.updateMonitor(org.id, existing.id, {
        url,
        selector,
        state: "active",
        consecutiveFailures: 0,
        lastError: null,
        nextCheckAt: at,
        updatedAt: at,
      });
      if (updated !== null) return updated;
    }
    return store.createMonitor(org.id, {
      type,
      name,
      url,
      method: "GET",
      headers: {},
      body: null,
      intervalSeconds: DEMO_INTERVAL_SECONDS,
      selector,
      browserOptionsJson: null,
      state: "active",
      nextCheckAt: at,
    });
  };
  const apiMonitor = await upsertMonitor(DEMO_API_MONITOR, "api", urls.apiUrl, null);
  // The demo monitors learn their target's noise and apply it (GET /api/monitors/{id}/noise).
  await store.updateSettings(org.id, apiMonitor.id, { policyRulesJson: DEMO_API_POLICY, autoApplySuggestions: true, updatedAt: at });
  const pageMonitor = await upsertMonitor(DEMO_PAGE_MONITOR, "website", urls.pageUrl, "#news");
  await store.updateSettings(org.id, pageMonitor.id, { autoApplySuggestions: true, updatedAt: at });

  const webhooks = await listAll((cursor) => store.listWebhooks(org.id, { limit: 100, cursor }));
  const existingHook = webhooks.find((w) => w.description === DEMO_WEBHOOK_DESCRIPTION);
  let webhook: WebhookRecord | null = null;
  if (existingHook !== undefined) {
    webhook = await store.updateWebhook(org.id, existingHook.id, { url: urls.receiverUrl, enabled: true, monitorIds: [apiMonitor.id, pageMonitor.id], updatedAt: at });
  }
  webhook ??= await store.createWebhook(org.id, {
    url: urls.receiverUrl,
    description: DEMO_WEBHOOK_DESCRIPTION,
    events: ["diff.detected"],
    monitorIds: [apiMonitor.id, pageMonitor.id],
    minSeverity: "info",
    enabled: true,
    secret: generateWebhookSecret(),
  });

  const tokens = await listAll((cursor) => store.listTokens(org.id, { limit: 100, cursor }));
  for (const old of tokens) {
    if (old.name === DEMO_TOKEN_NAME && old.revokedAt === null) await store.revokeToken(org.id, old.id, at);
  }
  const token = generateTokenSecret();
  await store.createToken(org.id, {
    name: DEMO_TOKEN_NAME,
    scopes: ["monitors:read", "monitors:write", "webhooks:read", "webhooks:write", "admin"],
    tokenHash: hashTokenSecret(token),
  });
  return { orgId: org.id, apiMonitor, pageMonitor, webhook, token };
}

async function listAll<T>(page: (cursor: string | null) => Promise<{ data: T[]; nextCursor: string | null }>): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | null = null;
  do {
    const result = await page(cursor);
    all.push(...result.data);
    cursor = result.nextCursor;
  } while (cursor !== null);
  return all;
}
