import { generateWebhookSecret, type Store, type WebhookRecord } from "@driftwatch/core";
import { type Scope, ScopeSchema } from "@driftwatch/schema";
import { SECRET_ROTATION_GRACE_MS } from "./limits.js";
import { generateTokenSecret, hashTokenSecret } from "./tokens.js";

/** Every token scope, the admin token's (a tuple of literals, as the server has exported it). */
export const ALL_SCOPES = ["monitors:read", "monitors:write", "webhooks:read", "webhooks:write", "admin"] as const satisfies readonly Scope[];
// Every scope the schema knows is in the list: adding one to ScopeSchema without it fails to compile.
const everyScope: readonly (typeof ALL_SCOPES)[number][] = ScopeSchema.options;
void everyScope;

export interface BootstrapOptions {
  /** The admin token secret to store (a `dw_` token); default: a new one, returned once. */
  adminToken?: string | null;
}

export interface BootstrapResult {
  /** True when the database was empty and organization `default` was created. */
  created: boolean;
  orgId: string | null;
  /** The admin token secret, only when it was generated here (never when one was given). */
  generatedToken: string | null;
}

/**
 * On an empty database: creates organization `default` and an admin token with every scope.
 * No-op when an organization exists (or `default` already has a token).
 */
export async function bootstrapStore(store: Store, options: BootstrapOptions = {}): Promise<BootstrapResult> {
  if ((await store.countOrganizations()) > 0) return { created: false, orgId: null, generatedToken: null };
  const org = await store.ensureOrganization("default", "Default organization");
  const existing = await store.listTokens(org.id, { limit: 1 });
  if (existing.data.length > 0) return { created: false, orgId: org.id, generatedToken: null };
  const given = options.adminToken ?? null;
  const secret = given ?? generateTokenSecret();
  await store.createToken(org.id, { name: "admin", scopes: [...ALL_SCOPES], tokenHash: hashTokenSecret(secret) });
  return { created: true, orgId: org.id, generatedToken: given === null ? secret : null };
}

/**
 * Gives a webhook a new signing secret. The previous one keeps signing too (deliveries carry both
 * signatures) for `graceMs` (default 24 h), so receivers can switch without missing a delivery.
 * Returns the updated webhook and the new secret (shown once), or null when the webhook does not
 * exist in this organization.
 */
export async function rotateWebhookSecret(
  store: Store,
  orgId: string,
  webhookId: string,
  options: { now?: Date; graceMs?: number } = {},
): Promise<{ webhook: WebhookRecord; secret: string } | null> {
  const current = await store.getWebhook(orgId, webhookId);
  if (current === null) return null;
  const at = options.now ?? new Date();
  const secret = generateWebhookSecret();
  const updated = await store.updateWebhook(orgId, current.id, {
    secret,
    previousSecret: current.secret,
    previousSecretExpiresAt: new Date(at.getTime() + (options.graceMs ?? SECRET_ROTATION_GRACE_MS)).toISOString(),
    updatedAt: at.toISOString(),
  });
  return updated === null ? null : { webhook: updated, secret };
}
