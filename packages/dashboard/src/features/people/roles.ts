import type { Role } from "@driftwatch/client";

export const ROLES: ReadonlyArray<[Role, string]> = [
  ["viewer", "Viewer: reads monitors, diffs and webhooks"],
  ["member", "Member: also creates and changes monitors and webhooks"],
  ["admin", "Admin: also manages members, invitations, tokens and the audit log"],
  ["owner", "Owner: also transfers ownership and deletes the organization"],
];

/** The roles someone may hand out: an owner any, an admin up to admin. */
export function grantable(isOwner: boolean): Role[] {
  return ROLES.map(([role]) => role).filter((role) => isOwner || role !== "owner");
}
