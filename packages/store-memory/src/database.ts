import type {
  AuditRecord,
  ChannelDeliveryRecord,
  ChannelRecord,
  DeliveryAttemptRecord,
  DeliveryRecord,
  DiffRecord,
  InviteRecord,
  MembershipRecord,
  MonitorRecord,
  OrganizationRecord,
  ScreenshotRecord,
  FailureScreenshotRecord,
  SecretRecord,
  SessionRecord,
  SettingsRecord,
  TrackedReadingRecord,
  SnapshotRecord,
  TokenRecord,
  UserRecord,
  WebhookRecord,
} from "@driftwatch/core";

/** A monitor row with its lease, which the port's records do not expose. */
export interface MonitorRow extends MonitorRecord {
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
}
export interface DeliveryRow extends DeliveryRecord {
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
}
export interface ChannelDeliveryRow extends ChannelDeliveryRecord {
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
}
export interface IdempotencyRow {
  requestHash: string;
  responseStatus: number | null;
  responseBody: string | null;
  createdAt: string;
  expiresAt: string;
}
export interface RateLimitRow {
  count: number;
  resetAt: number;
}

/**
 * The tables of one in-memory database. Several stores may share one (`createMemoryStore({ database })`),
 * which is how the contract suite opens "two connections" on the same data. JavaScript runs one
 * store call at a time to completion, so every method is atomic by construction; `recordCheck`
 * additionally keeps an undo journal so a failure half-way leaves nothing behind.
 */
export class MemoryDatabase {
  readonly organizations = new Map<string, OrganizationRecord>();
  readonly tokens = new Map<string, TokenRecord>();
  readonly monitors = new Map<string, MonitorRow>();
  readonly snapshots = new Map<string, SnapshotRecord & { body: string }>();
  readonly diffs = new Map<string, DiffRecord>();
  /** Keyed by monitor id. */
  readonly settings = new Map<string, SettingsRecord>();
  /** Readings of tracked values, keyed by reading id. */
  readonly trackedValues = new Map<string, TrackedReadingRecord>();
  /** The alert state of each monitor (JSON), keyed by monitor id. */
  readonly alertStates = new Map<string, { orgId: string; state: unknown }>();
  readonly webhooks = new Map<string, WebhookRecord>();
  readonly deliveries = new Map<string, DeliveryRow>();
  /** Keyed by delivery id, attempts oldest first. */
  readonly deliveryAttempts = new Map<string, DeliveryAttemptRecord[]>();
  readonly channels = new Map<string, ChannelRecord>();
  readonly channelDeliveries = new Map<string, ChannelDeliveryRow>();
  /** Keyed by channel delivery id, attempts oldest first. */
  readonly channelDeliveryAttempts = new Map<string, DeliveryAttemptRecord[]>();
  /** Keyed by `${orgId}\u0000${key}`. */
  readonly idempotencyKeys = new Map<string, IdempotencyRow>();
  /** Keyed by `${key}\u0000${windowStart}`. */
  readonly rateLimits = new Map<string, RateLimitRow>();
  readonly users = new Map<string, UserRecord>();
  /** Keyed by `${orgId}\u0000${userId}`. */
  readonly memberships = new Map<string, MembershipRecord>();
  readonly sessions = new Map<string, SessionRecord>();
  readonly invites = new Map<string, InviteRecord>();
  readonly audit = new Map<string, AuditRecord>();
  /** Keyed by snapshot id. */
  readonly screenshots = new Map<string, ScreenshotRecord>();
  /** Keyed by monitor id. */
  readonly failureScreenshots = new Map<string, FailureScreenshotRecord>();
  readonly secrets = new Map<string, SecretRecord>();
}

/** Creates an empty in-memory database that several stores can share. */
export function createMemoryDatabase(): MemoryDatabase {
  return new MemoryDatabase();
}

/**
 * Writes made inside one transaction, each with the function that undoes it. On failure the
 * undos run newest first, restoring every map to what it was.
 */
export class Journal {
  readonly #undo: (() => void)[] = [];

  set<K, V>(map: Map<K, V>, key: K, value: V): void {
    const had = map.has(key);
    const before = map.get(key);
    map.set(key, value);
    this.#undo.push(() => (had ? map.set(key, before as V) : map.delete(key)));
  }

  delete<K, V>(map: Map<K, V>, key: K): boolean {
    if (!map.has(key)) return false;
    const before = map.get(key) as V;
    map.delete(key);
    this.#undo.push(() => map.set(key, before));
    return true;
  }

  rollback(): void {
    for (const undo of this.#undo.splice(0).reverse()) undo();
  }
}

/** Runs `work` with a journal; when it throws, every write it made is undone and the error rethrown. */
export function transaction<T>(work: (journal: Journal) => T): T {
  const journal = new Journal();
  try {
    return work(journal);
  } catch (error) {
    journal.rollback();
    throw error;
  }
}
