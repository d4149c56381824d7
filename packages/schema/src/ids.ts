import { z } from "zod";

/** Prefixes of every identifier kind. Identifiers are opaque: clients must not parse them. */
export const ID_PREFIXES = {
  monitor: "mon",
  diff: "dif",
  snapshot: "snp",
  event: "evt",
  request: "req",
  webhook: "whk",
  delivery: "dlv",
  token: "tok",
  organization: "org",
  user: "usr",
  session: "ses",
  invite: "inv",
  audit: "aud",
  channel: "ch",
  channelDelivery: "cdl",
  secret: "sec",
  /** One reading of a tracked value. */
  reading: "val",
} as const;
export type IdKind = keyof typeof ID_PREFIXES;
export type IdPrefix = (typeof ID_PREFIXES)[IdKind];

const ID_BODY = /^[0-9A-Za-z_-]{8,64}$/;

/** Whether `value` looks like an identifier of the given kind (`mon_...`). */
export function isId(kind: IdKind, value: unknown): value is string {
  if (typeof value !== "string") return false;
  const prefix = `${ID_PREFIXES[kind]}_`;
  return value.startsWith(prefix) && ID_BODY.test(value.slice(prefix.length));
}

/** A zod schema for an identifier of one kind. */
export function idSchema(kind: IdKind) {
  return z.string().refine((v) => isId(kind, v), { message: `must be a ${ID_PREFIXES[kind]}_ identifier` });
}

export const MonitorIdSchema = idSchema("monitor");
export const DiffIdSchema = idSchema("diff");
export const SnapshotIdSchema = idSchema("snapshot");
export const EventIdSchema = idSchema("event");
export const RequestIdSchema = idSchema("request");
export const WebhookIdSchema = idSchema("webhook");
export const DeliveryIdSchema = idSchema("delivery");
export const TokenIdSchema = idSchema("token");
export const OrganizationIdSchema = idSchema("organization");
export const UserIdSchema = idSchema("user");
export const SessionIdSchema = idSchema("session");
export const InviteIdSchema = idSchema("invite");
export const AuditIdSchema = idSchema("audit");
