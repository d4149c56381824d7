import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent, type ReactNode } from "react";
import { useClient } from "../../api/context";
import { useCan, useIsOwnerSession, useSessionActions } from "../../auth/session-context";
import { Fact } from "../../ui/Fact";
import { MutationError } from "../../ui/FieldErrors";
import { Page } from "../../ui/Page";
import { RelativeTime } from "../../ui/RelativeTime";
import { EmptyState } from "../../ui/states";

/** The active organization: rename it (admins), delete it (owners, after typing its name). */
export function OrgPage(): ReactNode {
  const client = useClient();
  const queryClient = useQueryClient();
  const { me, signOut } = useSessionActions();
  const isAdmin = useCan("admin");
  const isOwner = useIsOwnerSession();
  const [name, setName] = useState(me?.org.name ?? "");
  const [confirm, setConfirm] = useState("");
  const [saved, setSaved] = useState(false);
  const rename = useMutation({
    mutationFn: async (orgId: string) => await client.orgs.update(orgId, { name: name.trim() }),
    onSuccess: () => {
      setSaved(true);
      void queryClient.invalidateQueries({ queryKey: ["me"] });
    },
  });
  const remove = useMutation({ mutationFn: async (orgId: string) => await client.orgs.delete(orgId), onSuccess: signOut });
  if (me === null) {
    return (
      <Page title="Organization">
        <EmptyState title="This server does not say which organization you are in" />
      </Page>
    );
  }
  const org = me.org;
  function submit(event: FormEvent): void {
    event.preventDefault();
    setSaved(false);
    rename.mutate(org.id);
  }
  return (
    <Page title="Organization">
      <section className="card" aria-labelledby="o-facts">
        <h2 id="o-facts" className="break">{org.name}</h2>
        <dl className="summary">
          <Fact label="Slug" valueClass="break">
            {org.slug}
          </Fact>
          <Fact label="Id" valueClass="break">
            <code>{org.id}</code>
          </Fact>
          <Fact label="Created">
            <RelativeTime value={org.createdAt} />
          </Fact>
          <Fact label="Your role">{me.role ?? "API token"}</Fact>
        </dl>
      </section>
      {isAdmin ? (
        <form className="form card" onSubmit={submit} aria-labelledby="o-rename">
          <h2 id="o-rename">Rename</h2>
          <label htmlFor="o-name">Name</label>
          <input id="o-name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
          <MutationError error={rename.error} />
          {saved ? (
            <p className="state ok" role="status">
              Saved.
            </p>
          ) : null}
          <button type="submit" className="primary" disabled={rename.isPending || name.trim() === ""}>
            {rename.isPending ? "Saving…" : "Save name"}
          </button>
        </form>
      ) : null}
      {isOwner ? (
        <form
          className="form card danger-zone"
          aria-labelledby="o-delete"
          onSubmit={(e) => {
            e.preventDefault();
            remove.mutate(org.id);
          }}
        >
          <h2 id="o-delete">Delete this organization</h2>
          <p className="break">Deletes every monitor, diff, webhook, token, member and invitation of {org.name}, for good. There is no undo.</p>
          <label htmlFor="o-confirm" className="break">
            Type <code>{org.name}</code> to confirm
          </label>
          <input id="o-confirm" autoComplete="off" value={confirm} onChange={(e) => setConfirm(e.target.value)} />
          <MutationError error={remove.error} />
          <button type="submit" className="danger" disabled={remove.isPending || confirm !== org.name}>
            {remove.isPending ? "Deleting…" : "Delete organization"}
          </button>
        </form>
      ) : null}
    </Page>
  );
}
