// People: users, memberships, sessions, invitations and the audit log (docs/people.md). The
// request and response shapes of /api/auth/*, /api/orgs/*, /api/invites and /api/audit.
import { z } from "zod";
import { RoleSchema, ScopeSchema, type Role, type Scope } from "./enums.js";
import { idSchema } from "./ids.js";
import { LearningSettingsSchema, TimestampSchema } from "./resources.js";

/** An email address as users type it (compared trimmed and lower-cased). */
export const EmailSchema = z.string().trim().max(254).pipe(z.email());

/**
 * Control characters (line breaks, terminal escapes), bidirectional overrides and lone surrogates
 * (half a UTF-16 pair, no character at all: mails, terminals and databases mangle or refuse it): a
 * name is shown in lists, mails and terminals as one line that reads as written, so it may contain none.
 */
const PRINTABLE = /^[^\p{Cc}\p{Cs}\u202A-\u202E\u2066-\u2069]*$/u;

/** A person's or an organization's name: 1 to 200 characters after trimming, printable. */
const NameSchema = z.string().trim().min(1).max(200).regex(PRINTABLE, { message: "must not contain control characters, bidirectional overrides or lone surrogates" });

/** A display name: 1 to 200 printable characters after trimming. */
export const DisplayNameSchema = NameSchema;

/** A password as sent (the policy, checked by the server, answers `weak_password`). */
export const PasswordInputSchema = z.string().max(1024);

export const UserSchema = z.object({
  id: z.string(),
  email: z.string(),
  displayName: z.string(),
  createdAt: TimestampSchema,
});
export type User = z.infer<typeof UserSchema>;

export const OrgSchema = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  /**
   * The `autoApplySuggestions` setting a new monitor of the organization starts with (default
   * true: new monitors learn their target's noise and apply it). Changing it leaves existing
   * monitors as they are.
   */
  learnNoiseByDefault: z.boolean(),
  /**
   * The `learning` settings (warm-up fetches, learning samples) a new monitor of the organization
   * starts with (default null: the service's defaults). Changing it leaves existing monitors as they are.
   */
  learningDefaults: LearningSettingsSchema.nullable(),
  createdAt: TimestampSchema,
});
export type Org = z.infer<typeof OrgSchema>;

/** Body of `PATCH /api/orgs/{orgId}` (admin): at least one field. */
export const OrgUpdateSchema = z
  .strictObject({ name: NameSchema.optional(), learnNoiseByDefault: z.boolean().optional(), learningDefaults: LearningSettingsSchema.nullable().optional() })
  .refine((body) => body.name !== undefined || body.learnNoiseByDefault !== undefined || body.learningDefaults !== undefined, {
    message: "give name, learnNoiseByDefault or learningDefaults",
  });
export type OrgUpdate = z.input<typeof OrgUpdateSchema>;

/** One organization of the signed-in user, with the user's role in it. */
export const MembershipSummarySchema = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  role: RoleSchema,
});
export type MembershipSummary = z.infer<typeof MembershipSummarySchema>;

/** Who is calling: a person's session or an API token. */
export const MeSchema = z.object({
  via: z.enum(["session", "token"]),
  /** The signed-in user; null for a token. */
  user: UserSchema.nullable(),
  /** The organization the request acts in. */
  org: OrgSchema,
  /** The user's role in `org`; null for a token. */
  role: RoleSchema.nullable(),
  /** What the caller may do (a role's scopes, or the token's). */
  scopes: z.array(ScopeSchema),
  /** Every organization the user belongs to (empty for a token). */
  orgs: z.array(MembershipSummarySchema),
  /** Send it as `x-driftwatch-csrf` on cookie-authenticated writes; null for a token. */
  csrfToken: z.string().nullable(),
});
export type Me = z.infer<typeof MeSchema>;

/** The answer of sign-in, setup and invite acceptance (the cookie is set with it). */
export const SessionSchema = MeSchema.extend({
  /** When the session ends at the latest (absolute expiry). */
  expiresAt: TimestampSchema,
});
export type Session = z.infer<typeof SessionSchema>;

export const SetupStatusSchema = z.object({ open: z.boolean() });
export type SetupStatus = z.infer<typeof SetupStatusSchema>;

export const SetupRequestSchema = z.strictObject({
  token: z.string().min(1).max(200),
  email: EmailSchema,
  displayName: DisplayNameSchema,
  password: PasswordInputSchema,
  orgName: NameSchema.optional(),
});
export type SetupRequest = z.input<typeof SetupRequestSchema>;

export const SignInRequestSchema = z.strictObject({
  email: z.string().max(254),
  password: PasswordInputSchema,
  orgId: idSchema("organization").optional(),
});
export type SignInRequest = z.input<typeof SignInRequestSchema>;

export const SwitchOrgRequestSchema = z.strictObject({ orgId: idSchema("organization") });
export type SwitchOrgRequest = z.input<typeof SwitchOrgRequestSchema>;

export const PasswordChangeRequestSchema = z.strictObject({
  currentPassword: PasswordInputSchema,
  newPassword: PasswordInputSchema,
});
export type PasswordChangeRequest = z.input<typeof PasswordChangeRequestSchema>;

export const MemberSchema = z.object({
  userId: z.string(),
  email: z.string(),
  displayName: z.string(),
  role: RoleSchema,
  createdAt: TimestampSchema,
});
export type Member = z.infer<typeof MemberSchema>;

export const MemberUpdateSchema = z.strictObject({ role: RoleSchema });
export type MemberUpdate = z.input<typeof MemberUpdateSchema>;

export const TransferOwnershipRequestSchema = z.strictObject({ userId: idSchema("user") });
export type TransferOwnershipRequest = z.input<typeof TransferOwnershipRequestSchema>;

export const InviteStatusSchema = z.enum(["pending", "accepted", "revoked", "expired"]);
export type InviteStatus = z.infer<typeof InviteStatusSchema>;

export const InviteSchema = z.object({
  id: z.string(),
  email: z.string(),
  role: RoleSchema,
  status: InviteStatusSchema,
  createdAt: TimestampSchema,
  expiresAt: TimestampSchema,
  /** User id of the inviter (null for the first-run setup invite). */
  invitedBy: z.string().nullable(),
  acceptedAt: TimestampSchema.nullable(),
  revokedAt: TimestampSchema.nullable(),
  /** Only in the answer that creates it: whether the link was mailed (SMTP configured and the mail accepted). */
  mailed: z.boolean().optional(),
});
export type Invite = z.infer<typeof InviteSchema>;

export const InviteCreateSchema = z.strictObject({ email: EmailSchema, role: RoleSchema });
export type InviteCreate = z.input<typeof InviteCreateSchema>;

/** The answer of `POST /api/invites`: the invite and its link (the link's secret is shown only here). */
export const InviteCreatedSchema = z.object({ invite: InviteSchema, url: z.string() });
export type InviteCreated = z.infer<typeof InviteCreatedSchema>;

export const InviteLookupQuerySchema = z.strictObject({ token: z.string().min(1).max(200) });

export const InviteLookupSchema = z.object({
  email: z.string(),
  role: RoleSchema,
  org: z.object({ id: z.string(), slug: z.string(), name: z.string() }),
  expiresAt: TimestampSchema,
  /** Whether a user with this email exists (then accepting asks for that user's password). */
  userExists: z.boolean(),
});
export type InviteLookup = z.infer<typeof InviteLookupSchema>;

export const InviteAcceptRequestSchema = z.strictObject({
  token: z.string().min(1).max(200),
  displayName: DisplayNameSchema.optional(),
  password: PasswordInputSchema,
});
export type InviteAcceptRequest = z.input<typeof InviteAcceptRequestSchema>;

/** Every action the audit log records. */
export const AUDIT_ACTIONS = [
  "auth.setup",
  "auth.sign_in",
  "auth.sign_in_failed",
  "auth.sign_out",
  "auth.password_changed",
  "member.added",
  "member.role_changed",
  "member.removed",
  "org.ownership_transferred",
  "org.updated",
  "invite.created",
  "invite.revoked",
  "invite.accepted",
  "token.created",
  "token.revoked",
  "secret.created",
  "secret.deleted",
  "channel.created",
  "channel.updated",
  "channel.deleted",
  "channel.tested",
  "channel.delivery_replayed",
  "webhook.delivery_replayed",
] as const;

/** Audit actions of the people domain (the others: browser-step secrets, notification channels, webhooks). */
export const PEOPLE_AUDIT_ACTIONS = AUDIT_ACTIONS.filter((action) => !action.startsWith("secret.") && !action.startsWith("channel.") && !action.startsWith("webhook."));
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AuditEntrySchema = z.object({
  id: z.string(),
  at: TimestampSchema,
  actor: z.object({ type: z.enum(["user", "token", "system"]), id: z.string().nullable() }),
  action: z.string(),
  targetId: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
  ip: z.string().nullable(),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

/**
 * What each role may do, as token scopes (`admin` satisfies every scope). Owners hold `admin`
 * too; what only an owner may do (delete the organization, transfer ownership, make or demote
 * owners) is checked by role, not by scope.
 */
export const ROLE_SCOPES: Readonly<Record<Role, readonly Scope[]>> = {
  viewer: ["monitors:read", "webhooks:read"],
  member: ["monitors:read", "monitors:write", "webhooks:read", "webhooks:write"],
  admin: ["admin"],
  owner: ["admin"],
};

/** Roles from least to most (a role may manage only roles at or below its own). */
export const ROLE_ORDER: readonly Role[] = ["viewer", "member", "admin", "owner"];
