import type { LearningSettings, Page, Scope, Token } from "@driftwatch/schema";
import type { PageRequest } from "./paging.js";

/** Organizations: the tenants every other record belongs to. */
export interface OrganizationStore {
  createOrganization(input: NewOrganization): Promise<OrganizationRecord>;
  getOrganization(id: string): Promise<OrganizationRecord | null>;
  getOrganizationBySlug(slug: string): Promise<OrganizationRecord | null>;
  /** The organization with this slug, created when missing; safe when two processes race. */
  ensureOrganization(slug: string, name?: string): Promise<OrganizationRecord>;
  /** Number of organizations (used to decide first-run bootstrap). */
  countOrganizations(): Promise<number>;
  /** Renames an organization or changes its defaults (the given fields); null when unknown. */
  updateOrganization(id: string, patch: OrganizationPatch): Promise<OrganizationRecord | null>;
  /**
   * Deletes an organization and every row that belongs to it (monitors, snapshots, diffs,
   * settings, webhooks, deliveries, tokens, idempotency keys, memberships, invites, audit
   * entries, and the sessions acting in it), atomically; false when unknown. Users are global
   * and stay.
   */
  deleteOrganization(id: string): Promise<boolean>;
}

/** API tokens of an organization, kept as hashes. */
export interface TokenStore {
  createToken(orgId: string, input: NewToken): Promise<TokenRecord>;
  /** Looked up by the hash of the secret; revoked tokens are returned too (caller decides). */
  findTokenByHash(tokenHash: string): Promise<TokenRecord | null>;
  getToken(orgId: string, id: string): Promise<TokenRecord | null>;
  listTokens(orgId: string, page: PageRequest): Promise<Page<TokenRecord>>;
  /** Sets `revokedAt`; returns the token, or null when unknown. Revoking twice keeps the first time. */
  revokeToken(orgId: string, id: string, at: string): Promise<TokenRecord | null>;
  /** Records `lastUsedAt`. */
  touchToken(id: string, at: string): Promise<void>;
}

export interface NewOrganization {
  slug: string;
  name?: string;
}
export interface OrganizationPatch {
  name?: string;
  learnNoiseByDefault?: boolean;
  /** null: the service's defaults. */
  learningDefaults?: LearningSettings | null;
}
export interface OrganizationRecord {
  id: string;
  slug: string;
  name: string;
  /** The `autoApplySuggestions` a new monitor starts with (default true; organizations made before it existed read true as well). */
  learnNoiseByDefault: boolean;
  /** The `learning` settings a new monitor starts with (default null: the service's; organizations made before it existed read null). */
  learningDefaults: LearningSettings | null;
  createdAt: string;
}

export interface NewToken {
  name: string;
  scopes: Scope[];
  /** sha256 hex of the secret; the secret itself is never stored. */
  tokenHash: string;
  /** The user responsible for the token (see `Token.createdBy`); default null. */
  createdBy?: string | null;
}
export interface TokenRecord extends Omit<Token, "token"> {
  orgId: string;
  tokenHash: string;
}
