import type { Invite, Member, Role } from "@driftwatch/client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent, type ReactNode } from "react";
import { allPages } from "../../api/all-pages";
import { useClient } from "../../api/context";
import { peopleKeys } from "../../api/keys";
import { useCan, useIsOwnerSession, useSessionActions } from "../../auth/session-context";
import { MutationError } from "../../ui/FieldErrors";
import { Page } from "../../ui/Page";
import { RelativeTime } from "../../ui/RelativeTime";
import { ShownOnce } from "../../ui/Secret";
import { EmptyState, ErrorState, Loading } from "../../ui/states";
import { grantable, ROLES } from "./roles";

/** Members with their roles (change, remove, transfer ownership) and invitations (create, revoke). */
export function MembersPage(): ReactNode {
  const { me } = useSessionActions();
  const isAdmin = useCan("admin");
  if (!isAdmin || me === null) {
    return (
      <Page title="Members">
        <EmptyState title="Only admins manage members">
          <p>Ask an admin or the owner of your organization to invite people or change roles.</p>
        </EmptyState>
      </Page>
    );
  }
  return (
    <Page title="Members">
      <MemberList orgId={me.org.id} selfId={me.user?.id ?? null} />
      <Invitations />
    </Page>
  );
}

function MemberList({ orgId, selfId }: { orgId: string; selfId: string | null }): ReactNode {
  const client = useClient();
  const queryClient = useQueryClient();
  const isOwner = useIsOwnerSession();
  const members = useQuery({ queryKey: peopleKeys.members(orgId), queryFn: () => allPages(client.orgs.members.list(orgId, { limit: 100 }), 5000) });
  const refresh = { onSuccess: () => void queryClient.invalidateQueries({ queryKey: peopleKeys.members(orgId) }) };
  const update = useMutation({ mutationFn: async ({ userId, role }: { userId: string; role: Role }) => await client.orgs.members.update(orgId, userId, { role }), ...refresh });
  const remove = useMutation({ mutationFn: async (userId: string) => await client.orgs.members.remove(orgId, userId), ...refresh });
  const transfer = useMutation({
    mutationFn: async (userId: string) => await client.orgs.transferOwnership(orgId, userId),
    // the caller is now an admin: read who they are again
    onSuccess: () => void queryClient.invalidateQueries(),
  });
  const roles = grantable(isOwner);
  return (
    <section aria-labelledby="m-members">
      <h2 id="m-members">Members</h2>
      {members.isPending ? (
        <Loading what="members" />
      ) : members.isError ? (
        <ErrorState error={members.error} retry={() => void members.refetch()} />
      ) : (
        <ul className="cards">
          {members.data.map((m: Member) => {
            const editable = isOwner || m.role !== "owner";
            return (
              <li key={m.userId} className="card member">
                <h3 className="break">
                  {m.displayName}
                  {m.userId === selfId ? <span className="muted"> (you)</span> : null}
                </h3>
                <p className="break muted">{m.email}</p>
                <p className="muted">
                  Joined <RelativeTime value={m.createdAt} />
                </p>
                {editable ? (
                  <label className="inline">
                    Role
                    <select
                      value={m.role}
                      disabled={update.isPending}
                      aria-label={`Role of ${m.displayName}`}
                      onChange={(e) => update.mutate({ userId: m.userId, role: e.target.value as Role })}
                    >
                      {roles.map((r) => (
                        <option key={r} value={r}>
                          {r}
                        </option>
                      ))}
                    </select>
                  </label>
                ) : (
                  <p>
                    <span className="tag">{m.role}</span>
                  </p>
                )}
                <div className="actions">
                  {isOwner && m.role !== "owner" && m.userId !== selfId ? (
                    <button
                      type="button"
                      disabled={transfer.isPending}
                      onClick={() => {
                        if (window.confirm(`Make ${m.displayName} the owner? You become an admin.`)) transfer.mutate(m.userId);
                      }}
                    >
                      Make owner<span className="sr-only"> {m.displayName}</span>
                    </button>
                  ) : null}
                  {editable || m.userId === selfId ? (
                    <button
                      type="button"
                      className="danger"
                      disabled={remove.isPending}
                      onClick={() => {
                        const question = m.userId === selfId ? "Leave this organization?" : `Remove ${m.displayName} from the organization?`;
                        if (window.confirm(question)) remove.mutate(m.userId);
                      }}
                    >
                      {m.userId === selfId ? "Leave" : "Remove"}
                      <span className="sr-only"> {m.displayName}</span>
                    </button>
                  ) : null}
                </div>
              </li>
            );
          })}
        </ul>
      )}
      <MutationError error={update.error ?? remove.error ?? transfer.error} />
    </section>
  );
}

function Invitations(): ReactNode {
  const client = useClient();
  const queryClient = useQueryClient();
  const isOwner = useIsOwnerSession();
  const invites = useQuery({ queryKey: peopleKeys.invites(), queryFn: () => allPages(client.invites.list({ limit: 100 }), 1000) });
  const refresh = { onSuccess: () => void queryClient.invalidateQueries({ queryKey: peopleKeys.invites() }) };
  const create = useMutation({ mutationFn: async (body: { email: string; role: Role }) => await client.invites.create(body), ...refresh });
  const revoke = useMutation({ mutationFn: async (id: string) => await client.invites.revoke(id), ...refresh });
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("member");
  const [link, setLink] = useState<{ url: string; email: string; mailed: boolean } | null>(null);
  function submit(event: FormEvent): void {
    event.preventDefault();
    create.mutate(
      { email: email.trim(), role },
      {
        onSuccess: (created) => {
          setLink({ url: created.url, email: created.invite.email, mailed: created.invite.mailed === true });
          setEmail("");
        },
      },
    );
  }
  const roles = ROLES.filter(([r]) => isOwner || r !== "owner");
  return (
    <section aria-labelledby="m-invites">
      <h2 id="m-invites">Invitations</h2>
      {link ? (
        <ShownOnce label={`Invitation link for ${link.email}${link.mailed ? " (also sent by email)" : ""}.`} value={link.url} onDone={() => setLink(null)} />
      ) : null}
      <form className="form card" onSubmit={submit}>
        <h3>Invite someone</h3>
        <label htmlFor="inv-email">Email</label>
        <input id="inv-email" type="email" required maxLength={254} value={email} onChange={(e) => setEmail(e.target.value)} />
        <label htmlFor="inv-role">Role</label>
        <select id="inv-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {roles.map(([r, label]) => (
            <option key={r} value={r}>
              {label}
            </option>
          ))}
        </select>
        <MutationError error={create.error} />
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? "Inviting…" : "Create invitation"}
        </button>
      </form>
      {invites.isPending ? (
        <Loading what="invitations" />
      ) : invites.isError ? (
        <ErrorState error={invites.error} retry={() => void invites.refetch()} />
      ) : invites.data.length === 0 ? (
        <EmptyState title="No invitations yet" />
      ) : (
        <ul className="cards">
          {invites.data.map((i: Invite) => (
            <li key={i.id} className="card invite">
              <h3 className="break">{i.email}</h3>
              <p>
                <span className="tag">{i.role}</span> <span className={`tag invite-${i.status}`}>{i.status}</span>
              </p>
              <p className="muted">
                Sent <RelativeTime value={i.createdAt} />
                {i.status === "pending" ? (
                  <>
                    , expires <RelativeTime value={i.expiresAt} />
                  </>
                ) : null}
              </p>
              {i.status === "pending" ? (
                <button type="button" className="danger" disabled={revoke.isPending} onClick={() => revoke.mutate(i.id)}>
                  Revoke<span className="sr-only"> the invitation of {i.email}</span>
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      <MutationError error={revoke.error} />
    </section>
  );
}
