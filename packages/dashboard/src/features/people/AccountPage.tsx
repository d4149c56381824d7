import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent, type ReactNode } from "react";
import { useClient } from "../../api/context";
import { useSessionActions } from "../../auth/session-context";
import { SignOutButton } from "../../auth/SignOutButton";
import { Fact } from "../../ui/Fact";
import { MutationError } from "../../ui/FieldErrors";
import { Page } from "../../ui/Page";

/** The signed-in person: who, which organization (switch among theirs), password, sign out. */
export function AccountPage(): ReactNode {
  const client = useClient();
  const { me, session, switched } = useSessionActions();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [changed, setChanged] = useState(false);
  const password = useMutation({
    mutationFn: async () => await client.auth.changePassword({ currentPassword: current, newPassword: next }),
    onSuccess: () => {
      setCurrent("");
      setNext("");
      setChanged(true);
    },
  });
  const switchOrg = useMutation({ mutationFn: async (orgId: string) => await client.auth.switchOrg(orgId), onSuccess: (answer) => switched(answer) });
  function submit(event: FormEvent): void {
    event.preventDefault();
    setChanged(false);
    password.mutate();
  }
  if (session?.kind !== "account" || me === null || me.user === null) {
    return (
      <Page title="Account">
        <section className="card">
          <p>This tab is signed in with an API token, not an account: there is no password or organization to change here.</p>
          <SignOutButton />
        </section>
      </Page>
    );
  }
  const others = me.orgs.filter((o) => o.id !== me.org.id);
  return (
    <Page title="Account">
      <section className="card" aria-labelledby="a-who">
        <h2 id="a-who">You</h2>
        <dl className="summary">
          <Fact label="Name" valueClass="break">
            {me.user.displayName}
          </Fact>
          <Fact label="Email" valueClass="break">
            {me.user.email}
          </Fact>
          <Fact label="Organization" valueClass="break">
            {me.org.name}
          </Fact>
          <Fact label="Role">{me.role}</Fact>
        </dl>
        <SignOutButton />
      </section>
      <section className="card" aria-labelledby="a-orgs">
        <h2 id="a-orgs">Organizations</h2>
        {others.length === 0 ? (
          <p className="muted">You belong to {me.org.name} only.</p>
        ) : (
          <ul className="plain">
            {others.map((o) => (
              <li key={o.id}>
                <button type="button" disabled={switchOrg.isPending} onClick={() => switchOrg.mutate(o.id)}>
                  Switch to {o.name}
                </button>{" "}
                <span className="tag">{o.role}</span>
              </li>
            ))}
          </ul>
        )}
        <MutationError error={switchOrg.error} />
      </section>
      <form className="form card" onSubmit={submit} aria-labelledby="a-password">
        <h2 id="a-password">Change password</h2>
        <label htmlFor="a-current">Current password</label>
        <input id="a-current" type="password" required autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} />
        <label htmlFor="a-new">New password</label>
        <input id="a-new" type="password" required autoComplete="new-password" value={next} onChange={(e) => setNext(e.target.value)} />
        <MutationError error={password.error} />
        {changed ? (
          <p className="state ok" role="status">
            Password changed. Your other sessions were signed out.
          </p>
        ) : null}
        <button type="submit" className="primary" disabled={password.isPending}>
          {password.isPending ? "Changing…" : "Change password"}
        </button>
      </form>
    </Page>
  );
}
