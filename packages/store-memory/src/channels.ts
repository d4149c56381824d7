import {
  StoreError,
  newId,
  type ChannelDeliveryRecord,
  type ChannelPatch,
  type ChannelRecord,
  type ClaimChannelDeliveriesInput,
  type ClaimedChannelDelivery,
  type DeliveryAttempt,
  type DeliveryAttemptRecord,
  type KeysetPage,
  type NewChannel,
  type NewChannelDelivery,
} from "@driftwatch/core";
import type { ChannelDeliveryRow, MemoryDatabase } from "./database.js";
import { copy, defined, fairTake, listOf } from "./helpers.js";

// Notification channels and their outbox, with the SQL adapters' semantics.

const PATCH_FIELDS = [
  "name",
  "service",
  "urlSealed",
  "urlMasked",
  "minSeverity",
  "tags",
  "events",
  "groupSeconds",
  "quietHours",
  "template",
  "paused",
  "status",
  "statusReason",
  "updatedAt",
] as const satisfies readonly (keyof ChannelPatch)[];

function channelOf(db: MemoryDatabase, orgId: string, id: string): ChannelRecord | undefined {
  const row = db.channels.get(id);
  return row !== undefined && row.orgId === orgId ? row : undefined;
}

export function toChannelDeliveryRecord(row: ChannelDeliveryRow): ChannelDeliveryRecord {
  const { leaseOwner: _owner, leaseExpiresAt: _expires, ...record } = row;
  return copy(record);
}

export function createChannel(db: MemoryDatabase, orgId: string, input: NewChannel, now: string): ChannelRecord {
  if (!db.organizations.has(orgId)) throw new StoreError("not_found", `Organization ${orgId} does not exist.`);
  const id = input.id ?? newId("channel");
  if (db.channels.has(id)) throw new StoreError("conflict", `Channel ${id} already exists.`);
  const record: ChannelRecord = {
    id,
    orgId,
    name: input.name,
    service: input.service,
    urlSealed: input.urlSealed,
    urlMasked: input.urlMasked,
    minSeverity: input.minSeverity,
    tags: [...input.tags],
    events: [...input.events],
    groupSeconds: input.groupSeconds,
    quietHours: copy(input.quietHours),
    template: input.template,
    paused: input.paused,
    status: "ok",
    statusReason: null,
    createdAt: now,
    updatedAt: now,
  };
  db.channels.set(id, record);
  return copy(record);
}

export function getChannel(db: MemoryDatabase, orgId: string, id: string): ChannelRecord | null {
  return copy(channelOf(db, orgId, id) ?? null);
}

export function listChannels(db: MemoryDatabase, orgId: string, page: KeysetPage): ChannelRecord[] {
  return listOf(db.channels.values(), (c) => c.orgId === orgId, page, copy);
}

export function updateChannel(db: MemoryDatabase, orgId: string, id: string, patch: ChannelPatch): ChannelRecord | null {
  const row = channelOf(db, orgId, id);
  if (row === undefined) return null;
  if (patch.ifUrlSealed !== undefined && row.urlSealed !== patch.ifUrlSealed) return null;
  const changes = defined(patch) as Partial<ChannelPatch>;
  const next: ChannelRecord = { ...row };
  for (const field of PATCH_FIELDS) {
    if (!(field in changes)) continue;
    (next as unknown as Record<string, unknown>)[field] = copy(changes[field]);
  }
  // Explicit nulls (quietHours, template, statusReason) are values, not omissions.
  for (const field of ["quietHours", "template", "statusReason"] as const) if (patch[field] === null) (next as unknown as Record<string, unknown>)[field] = null;
  db.channels.set(id, next);
  return copy(next);
}

export function deleteChannel(db: MemoryDatabase, orgId: string, id: string): boolean {
  if (channelOf(db, orgId, id) === undefined) return false;
  db.channels.delete(id);
  for (const [key, row] of db.channelDeliveries) {
    if (row.channelId !== id) continue;
    db.channelDeliveries.delete(key);
    db.channelDeliveryAttempts.delete(key);
  }
  return true;
}

/** Drops an organization's channels and their outbox. */
export function dropChannelsOf(db: MemoryDatabase, orgId: string): void {
  for (const [key, row] of db.channels) if (row.orgId === orgId) db.channels.delete(key);
  for (const [key, row] of db.channelDeliveries) {
    if (row.orgId !== orgId) continue;
    db.channelDeliveries.delete(key);
    db.channelDeliveryAttempts.delete(key);
  }
}

export function enqueueChannelDeliveries(db: MemoryDatabase, orgId: string, messages: readonly NewChannelDelivery[]): ChannelDeliveryRecord[] {
  for (const m of messages) {
    if (channelOf(db, orgId, m.channelId) === undefined) throw new StoreError("not_found", `Channel ${m.channelId} does not exist.`);
  }
  const taken = new Set<string>();
  for (const row of db.channelDeliveries.values()) taken.add(`${row.channelId}\u0000${row.dedupKey}`);
  const added: ChannelDeliveryRecord[] = [];
  for (const m of messages) {
    const key = `${m.channelId}\u0000${m.dedupKey}`;
    if (taken.has(key)) continue;
    taken.add(key);
    const row = newChannelDeliveryRow(orgId, m);
    db.channelDeliveries.set(row.id, row);
    added.push(toChannelDeliveryRecord(row));
  }
  return added;
}

export function getChannelDelivery(db: MemoryDatabase, orgId: string, channelId: string, id: string): ChannelDeliveryRecord | null {
  const row = db.channelDeliveries.get(id);
  return row !== undefined && row.orgId === orgId && row.channelId === channelId ? toChannelDeliveryRecord(row) : null;
}

export function listChannelDeliveries(db: MemoryDatabase, orgId: string, channelId: string, page: KeysetPage): ChannelDeliveryRecord[] {
  return listOf(db.channelDeliveries.values(), (d) => d.orgId === orgId && d.channelId === channelId, page, toChannelDeliveryRecord);
}

export function listChannelDeliveryAttempts(db: MemoryDatabase, orgId: string, deliveryId: string): DeliveryAttemptRecord[] {
  const row = db.channelDeliveries.get(deliveryId);
  return row === undefined || row.orgId !== orgId ? [] : copy(db.channelDeliveryAttempts.get(deliveryId) ?? []);
}

export function requeueChannelDelivery(db: MemoryDatabase, orgId: string, channelId: string, id: string, now: string): ChannelDeliveryRecord | null {
  const row = db.channelDeliveries.get(id);
  if (row === undefined || row.orgId !== orgId || row.channelId !== channelId) return null;
  row.state = "pending";
  row.nextAttemptAt = now;
  row.leaseOwner = null;
  row.leaseExpiresAt = null;
  return toChannelDeliveryRecord(row);
}

export function claimDueChannelDeliveries(db: MemoryDatabase, input: ClaimChannelDeliveriesInput): ClaimedChannelDelivery[] {
  const now = input.now;
  const until = new Date(Date.parse(now) + input.leaseMs).toISOString();
  const due = fairTake(
    [...db.channelDeliveries.values()]
      .filter((d) => {
        if (d.state !== "pending") return false;
        const channel = db.channels.get(d.channelId);
        if (channel === undefined || channel.orgId !== d.orgId || channel.paused || channel.status !== "ok") return false;
        if (input.force !== true && (d.nextAttemptAt === null || d.nextAttemptAt > now)) return false;
        if (d.leaseExpiresAt !== null && d.leaseExpiresAt > now) return false;
        if (input.orgId !== undefined && d.orgId !== input.orgId) return false;
        if (input.channelId !== undefined && d.channelId !== input.channelId) return false;
        return true;
      })
      .sort((a, b) => (a.id < b.id ? -1 : 1)),
    input.limit,
  );
  return due.map((row) => {
    const takenOverFrom = row.leaseOwner;
    row.leaseOwner = input.owner;
    row.leaseExpiresAt = until;
    return { ...toChannelDeliveryRecord(row), takenOverFrom };
  });
}

export function recordChannelDeliveryAttempt(db: MemoryDatabase, id: string, owner: string, attempt: DeliveryAttempt): ChannelDeliveryRecord | null {
  const row = db.channelDeliveries.get(id);
  if (row === undefined || row.leaseOwner !== owner) return null;
  row.state = attempt.state;
  row.attempts += 1;
  row.nextAttemptAt = attempt.state === "pending" ? attempt.nextAttemptAt : null;
  row.lastAttemptAt = attempt.at;
  row.lastResponseStatus = attempt.responseStatus;
  row.lastError = attempt.error;
  row.leaseOwner = null;
  row.leaseExpiresAt = null;
  const attempts = db.channelDeliveryAttempts.get(id) ?? [];
  attempts.push({
    deliveryId: id,
    attempt: row.attempts,
    at: attempt.at,
    responseStatus: attempt.responseStatus,
    error: attempt.error,
    durationMs: Math.round(attempt.durationMs),
  });
  db.channelDeliveryAttempts.set(id, attempts);
  return toChannelDeliveryRecord(row);
}

export function releaseChannelDeliveryLeases(db: MemoryDatabase, owner: string): number {
  let n = 0;
  for (const row of db.channelDeliveries.values()) {
    if (row.leaseOwner !== owner) continue;
    row.leaseOwner = null;
    row.leaseExpiresAt = null;
    n++;
  }
  return n;
}

export function countPendingChannelDeliveries(db: MemoryDatabase, orgId?: string): number {
  let n = 0;
  for (const d of db.channelDeliveries.values()) if (d.state === "pending" && (orgId === undefined || d.orgId === orgId)) n++;
  return n;
}

/** The outbox row of a new channel message: pending, never attempted, unleased. */
export function newChannelDeliveryRow(orgId: string, m: NewChannelDelivery): ChannelDeliveryRow {
  return {
    id: newId("channelDelivery"),
    orgId,
    channelId: m.channelId,
    dedupKey: m.dedupKey,
    eventType: m.eventType,
    monitorId: m.monitorId,
    diffId: m.diffId,
    payload: m.payload,
    state: "pending",
    attempts: 0,
    nextAttemptAt: m.nextAttemptAt,
    lastAttemptAt: null,
    lastResponseStatus: null,
    lastError: null,
    createdAt: m.createdAt,
    leaseOwner: null,
    leaseExpiresAt: null,
  };
}
