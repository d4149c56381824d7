import {
  DiffDetectedEventSchema,
  type Change,
  type Classification,
  type DiffDetectedEvent,
  type EventChange,
} from "@driftwatch/schema";
import { DriftwatchError } from "../errors.js";
import { newId } from "../ids.js";

/** The envelope as written to the outbox, before it is sent: everything but `deliveredAt`. */
export type PendingDiffDetectedEvent = Omit<DiffDetectedEvent, "deliveredAt">;

/**
 * What an event needs from a diff. A stored diff (`ApiDiff`, `WebsiteDiff`, a store's
 * `DiffRecord`) fits as is; the result of `diffJson`/`diffHtml` fits once you add the diff's `id`
 * and `monitorId` (or pass `diffId`/`monitorId` in the options).
 */
export interface DiffForEvent {
  /** The diff's id (`dif_...`). */
  id?: string;
  monitorId?: string;
  snapshotId?: string;
  classification: Classification;
  changes: readonly Pick<Change, "path" | "category" | "op" | "severity" | "from" | "rule" | "level" | "operation" | "keyword">[];
  /** API diffs: the stored counts. Derived from `changes` when absent. */
  schemaChanges?: number;
  valueChanges?: number;
}

export interface PendingEventOptions {
  /** The snapshot the diff was found in; defaults to `diff.snapshotId`. */
  snapshotId?: string;
  /** Defaults to `diff.id`. */
  diffId?: string;
  /** Defaults to `diff.monitorId`. */
  monitorId?: string;
  /** When the change was detected (ISO 8601 UTC or a Date). */
  occurredAt: string | Date;
  /** Defaults to a new `evt_...` id. Keep it across retries: receivers dedupe on it. */
  eventId?: string;
}

export interface BuildEventOptions extends PendingEventOptions {
  /** When this delivery is sent (ISO 8601 UTC or a Date). */
  deliveredAt: string | Date;
}

function isoTimestamp(value: string | Date, field: string): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new DriftwatchError("invalid_input", `${field} is an invalid Date`);
    return value.toISOString();
  }
  return value;
}

function required(value: string | undefined, field: string): string {
  if (typeof value !== "string" || value.length === 0) {
    throw new DriftwatchError("invalid_input", `a diff.detected event needs ${field}`, {
      details: [{ path: field, message: "required" }],
    });
  }
  return value;
}

function invalid(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): DriftwatchError {
  return new DriftwatchError("invalid_input", "the diff.detected event is invalid", {
    details: error.issues.map((issue) => ({ path: issue.path.map(String).join(".") || "$", message: issue.message })),
  });
}

const PendingEventSchema = DiffDetectedEventSchema.omit({ deliveredAt: true });

/**
 * The `diff.detected` envelope without `deliveredAt`: what the store writes to the outbox in the
 * same transaction as the diff. `data.changes` carry only path, category, op and severity (no
 * detail, no before/after) and `data` has no `topSeverity`. Website diffs
 * count as 0 schema changes and `changes.length` value changes.
 */
export function buildPendingDiffDetectedEvent(diff: DiffForEvent, options: PendingEventOptions): PendingDiffDetectedEvent {
  if (diff === null || typeof diff !== "object" || !Array.isArray(diff.changes)) {
    throw new DriftwatchError("invalid_input", "buildDiffDetectedEvent needs a diff with a changes array");
  }
  const changes: EventChange[] = diff.changes.map(({ path, category, op, severity, from, rule, level, operation, keyword }) => ({
    ...(op === "move" && from !== undefined ? { path, category, op, from, severity } : { path, category, op, severity }),
    // API changes and contract violations say which rule, operation and keyword (absent on other changes)
    ...(rule === undefined ? {} : { rule }),
    ...(level === undefined ? {} : { level }),
    ...(operation === undefined ? {} : { operation }),
    ...(keyword === undefined ? {} : { keyword }),
  }));
  let schemaChanges: number;
  let valueChanges: number;
  if (diff.classification === "content_change" || diff.classification === "visual_change") {
    schemaChanges = 0;
    valueChanges = changes.length;
  } else {
    const schemaCount = changes.filter((c) => c.category === "schema").length;
    schemaChanges = diff.schemaChanges ?? schemaCount;
    valueChanges = diff.valueChanges ?? changes.length - schemaCount;
  }
  const candidate: PendingDiffDetectedEvent = {
    schemaVersion: "v1",
    eventVersion: 1,
    eventId: options.eventId ?? newId("event"),
    eventType: "diff.detected",
    occurredAt: isoTimestamp(options.occurredAt, "occurredAt"),
    monitorId: required(options.monitorId ?? diff.monitorId, "monitorId"),
    diffId: required(options.diffId ?? diff.id, "diffId"),
    snapshotId: required(options.snapshotId ?? diff.snapshotId, "snapshotId"),
    data: { classification: diff.classification, schemaChanges, valueChanges, changes },
  };
  const result = PendingEventSchema.safeParse(candidate);
  if (!result.success) throw invalid(result.error);
  return candidate;
}

/** The complete `diff.detected` envelope (`DiffDetectedEventSchema`), ready to serialise and sign. */
export function buildDiffDetectedEvent(diff: DiffForEvent, options: BuildEventOptions): DiffDetectedEvent {
  return withDeliveredAt(buildPendingDiffDetectedEvent(diff, options), options.deliveredAt);
}

function withDeliveredAt(event: PendingDiffDetectedEvent, deliveredAt: string | Date): DiffDetectedEvent {
  // Rebuilt field by field so the JSON keeps the specification's field order.
  const full: DiffDetectedEvent = {
    schemaVersion: event.schemaVersion,
    eventVersion: event.eventVersion,
    eventId: event.eventId,
    eventType: event.eventType,
    occurredAt: event.occurredAt,
    deliveredAt: isoTimestamp(deliveredAt, "deliveredAt"),
    monitorId: event.monitorId,
    diffId: event.diffId,
    snapshotId: event.snapshotId,
    data: event.data,
  };
  const result = DiffDetectedEventSchema.safeParse(full);
  if (!result.success) throw invalid(result.error);
  return full;
}

/** The outbox envelope (object or JSON text) with `deliveredAt` set, validated. */
export function completeEventForDelivery(event: PendingDiffDetectedEvent | string, deliveredAt: string | Date): DiffDetectedEvent {
  let pending: unknown = event;
  if (typeof event === "string") {
    try {
      pending = JSON.parse(event);
    } catch (cause) {
      throw new DriftwatchError("invalid_input", "the stored event payload is not JSON", { cause });
    }
  }
  const result = PendingEventSchema.safeParse(pending);
  if (!result.success) throw invalid(result.error);
  return withDeliveredAt(result.data, deliveredAt);
}

/**
 * The body of one delivery attempt: the outbox envelope (as stored, an object or its JSON text)
 * with `deliveredAt` set, serialised. Sign exactly this string with `signWebhook`.
 */
export function serializeEventForDelivery(event: PendingDiffDetectedEvent | string, deliveredAt: string | Date): string {
  return JSON.stringify(completeEventForDelivery(event, deliveredAt));
}
