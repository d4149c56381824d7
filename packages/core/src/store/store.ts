import type { LeaseStore } from "./leases.js";
import type { MonitorStore } from "./monitors.js";
import type { OrganizationStore, TokenStore } from "./organizations.js";
import type { PeopleStore } from "./people.js";
import type { RequestStore } from "./requests.js";
import type { ScreenshotStorage } from "./screenshots.js";
import type { SecretStore } from "./secrets.js";
import type { SettingsStore } from "./settings.js";
import type { DiffStore, SnapshotStore, TrackedValueStore } from "./snapshots-diffs.js";
import type { DeliveryStore, WebhookStore } from "./webhooks.js";
import type { ChannelStore } from "./channels.js";

/**
 * The storage port. The engine and the server depend on this interface only; adapters
 * (`@driftwatch/store-memory`, `-sqlite`, `-postgres`) implement it, wrapped by `defineStore`,
 * and all run the contract suite of `@driftwatch/store-testkit`. It is composed of one small
 * interface per resource, so code that needs only monitors can ask for a `MonitorStore`.
 *
 * Conventions every adapter keeps:
 * - Every method that touches tenant data takes `orgId` first and never reads or changes
 *   another organization's rows: a foreign id behaves exactly like an unknown one
 *   (`null` / `false`, or `StoreError` `not_found` for writes that need the row).
 * - Times are ISO 8601 UTC strings (`new Date().toISOString()`); ids come from `newId` and
 *   sort by creation time, so "newest first" is "id descending".
 * - Lists take `{ limit, cursor }` and return `{ data, nextCursor }`; cursors are opaque
 *   (see `encodeCursor`), `nextCursor` is null on the last page, and a malformed cursor is a
 *   `StoreError` `invalid_cursor`.
 * - Records returned are copies: mutating them does not change the store.
 */
export interface Store
  extends OrganizationStore,
    TokenStore,
    MonitorStore,
    SnapshotStore,
    DiffStore,
    SettingsStore,
    TrackedValueStore,
    WebhookStore,
    ChannelStore,
    DeliveryStore,
    LeaseStore,
    RequestStore,
    PeopleStore,
    ScreenshotStorage,
    SecretStore {
  readonly capabilities: StoreCapabilities;
  /** Cheap round trip used by readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface StoreCapabilities {
  /** Shared rate-limit counters (`hitRateLimit`). */
  rateLimits: boolean;
  /** Data survives the process (false for memory). */
  durable: boolean;
}
