// The audit trail of the people domain: who did what, from where. A failed write is reported to
// the caller's log and does not undo or fail the operation that did it.
import type { AuditActorType } from "@driftwatch/core";
import type { People } from "./people.js";

/** Who does it, as the audit log records it. */
export interface Actor {
  actorType: AuditActorType;
  /** User or token id; null for the system. */
  actorId: string | null;
}

/** Where an operation comes from: the client address recorded with its audit entries, and a log for what fails on the side. */
export interface Origin {
  ip: string | null;
  /** pino's shape (Fastify's `request.log` fits); nothing is logged without it. */
  log?: { error(details: object, message: string): void; warn(details: object, message: string): void } | undefined;
}

/** The actor of the system itself (the CLI, a start of the server). */
export const SYSTEM_ACTOR: Actor = { actorType: "system", actorId: null };

/** A user acting for themselves. */
export function userActor(userId: string): Actor {
  return { actorType: "user", actorId: userId };
}

/** Appends an audit entry; a failed write is logged, never thrown. */
export async function audit(
  people: People,
  origin: Origin,
  orgId: string | null,
  actor: Actor,
  action: string,
  targetId: string | null,
  data: Record<string, unknown> = {},
): Promise<void> {
  try {
    await people.store.appendAudit(orgId, { ...actor, action, targetId, data, ip: origin.ip, at: people.now().toISOString() });
  } catch (error) {
    origin.log?.error({ err: error, action }, "could not write the audit entry");
  }
}
