// The shapes of the people routes (/api/auth/*, /api/orgs/*, /api/invites, /api/audit): users,
// sessions, memberships, invites and the audit log.
import type { Role, Scope } from "@driftwatch/schema";

export type { Role, Scope };

export interface User {
  id: string;
  email: string;
  displayName: string;
  createdAt: string;
}

export interface Org {
  id: string;
  slug: string;
  name: string;
  createdAt: string;
}

export interface OrgUpdate {
  name: string;
}

/** One organization of the signed-in user, with the user's role in it. */
export interface MembershipSummary {
  id: string;
  slug: string;
  name: string;
  role: Role;
}

/** Who is calling: a person's session or an API token. */
export interface Me {
  via: "session" | "token";
  /** The signed-in user; null for a token. */
  user: User | null;
  /** The organization the request acts in. */
  org: Org;
  /** The user's role in `org`; null for a token. */
  role: Role | null;
  /** What the caller may do (the role's scopes, or the token's). */
  scopes: Scope[];
  /** Every organization the user belongs to (empty for a token). */
  orgs: MembershipSummary[];
  /** Send it as `x-driftwatch-csrf` on cookie-authenticated writes (the client's `csrfToken` option); null for a token. */
  csrfToken: string | null;
}

/** The answer of sign-in, setup and invite acceptance (the session cookie comes with it). */
export interface Session extends Me {
  /** When the session ends at the latest. */
  expiresAt: string;
}

export interface SetupStatus {
  /** True while the server has no user: first-run setup is possible. */
  open: boolean;
}

export interface SetupRequest {
  /** The secret of the setup link the server printed (`/setup#token=...`). */
  token: string;
  email: string;
  displayName: string;
  password: string;
  /** Renames the bootstrap organization. */
  orgName?: string;
}

export interface SignInRequest {
  email: string;
  password: string;
  /** The organization to act in (one the user belongs to); default: the user's first. */
  orgId?: string;
}

export interface PasswordChangeRequest {
  currentPassword: string;
  newPassword: string;
}

export interface Member {
  userId: string;
  email: string;
  displayName: string;
  role: Role;
  createdAt: string;
}

export interface MemberUpdate {
  role: Role;
}

export type InviteStatus = "pending" | "accepted" | "revoked" | "expired";

export interface Invite {
  id: string;
  email: string;
  role: Role;
  status: InviteStatus;
  createdAt: string;
  expiresAt: string;
  /** User id of the inviter (null for the first-run setup invite). */
  invitedBy: string | null;
  acceptedAt: string | null;
  revokedAt: string | null;
  /** Only in the answer that creates it: whether the link was mailed. */
  mailed?: boolean;
}

export interface InviteCreate {
  email: string;
  role: Role;
}

/** The answer of `invites.create`: the invite and its link, whose secret is shown only here. */
export interface InviteCreated {
  invite: Invite;
  url: string;
}

export interface InviteLookup {
  email: string;
  role: Role;
  org: { id: string; slug: string; name: string };
  expiresAt: string;
  /** Whether a user with this email exists (then accepting asks for that user's password). */
  userExists: boolean;
}

export interface InviteAcceptRequest {
  token: string;
  /** Required for a new user. */
  displayName?: string;
  /** A new user's password, or an existing user's current one. */
  password: string;
}

export interface AuditEntry {
  id: string;
  at: string;
  actor: { type: "user" | "token" | "system"; id: string | null };
  action: string;
  targetId: string | null;
  data: Record<string, unknown>;
  ip: string | null;
}
