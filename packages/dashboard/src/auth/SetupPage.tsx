import { useQuery } from "@tanstack/react-query";
import { useMemo, useState, type FormEvent, type ReactNode } from "react";
import { Link } from "react-router";
import { ErrorState, Loading } from "../ui/states";
import { AuthError, AuthShell, fragmentToken } from "./AuthShell";
import { accountSession, cookieClient, explain, type Session } from "./session";

/** Leaves the page for the monitors once signed in, dropping the fragment's secret from the address. */
export function enterDashboard(onSignedIn: (session: Session) => void, session: Session): void {
  window.history.replaceState(null, "", "/monitors");
  onSignedIn(session);
}

/** First run: the owner's account, from the setup link `driftwatch serve` printed (`/setup#token=...`). */
export function SetupPage({ onSignedIn }: { onSignedIn: (session: Session) => void }): ReactNode {
  const client = useMemo(() => cookieClient(), []);
  const token = useMemo(() => fragmentToken(), []);
  const status = useQuery({ queryKey: ["setup-status"], queryFn: async () => await client.auth.setupStatus(), retry: false });
  const [form, setForm] = useState({ email: "", displayName: "", password: "", orgName: "" });
  const [error, setError] = useState<{ message: string; requestId?: string | null } | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [key]: e.target.value }));

  async function submit(event: FormEvent): Promise<void> {
    event.preventDefault();
    if (token === null) return;
    setBusy(true);
    setError(null);
    try {
      const orgName = form.orgName.trim();
      const session = await client.auth.setup({ token, email: form.email.trim(), displayName: form.displayName.trim(), password: form.password, ...(orgName ? { orgName } : {}) });
      enterDashboard(onSignedIn, accountSession(session));
    } catch (e) {
      setBusy(false);
      setError(explain(e, "Setup failed"));
    }
  }

  return (
    <AuthShell title="Set up driftwatch">
      <div className="card">
        <h2>Set up driftwatch</h2>
        {status.isPending ? (
          <Loading what="setup status" />
        ) : status.isError ? (
          <ErrorState error={status.error} retry={() => void status.refetch()} />
        ) : !status.data.open ? (
          <div className="state" role="status">
            <p>
              <strong>Setup is already done.</strong> This server has an owner: <Link to="/">sign in</Link> with your account, or ask an admin for an invitation.
            </p>
          </div>
        ) : token === null ? (
          <div className="state error" role="alert">
            <p>
              This page needs the setup link <code>driftwatch serve</code> printed (it ends in <code>/setup#token=…</code>). Restart the server to print a fresh one.
            </p>
          </div>
        ) : (
          <form className="form" onSubmit={(e) => void submit(e)}>
            <p className="hint">Create the owner account. You can invite the rest of your team afterwards.</p>
            <label htmlFor="s-name">Your name</label>
            <input id="s-name" required maxLength={200} autoComplete="name" value={form.displayName} onChange={set("displayName")} />
            <label htmlFor="s-email">Email</label>
            <input id="s-email" type="email" required maxLength={254} autoComplete="username" value={form.email} onChange={set("email")} />
            <label htmlFor="s-password">Password</label>
            <input id="s-password" type="password" required autoComplete="new-password" value={form.password} onChange={set("password")} />
            <label htmlFor="s-org">Organization name (optional)</label>
            <input id="s-org" maxLength={200} autoComplete="organization" value={form.orgName} onChange={set("orgName")} />
            <AuthError error={error} />
            <button type="submit" className="primary" disabled={busy}>
              {busy ? "Creating…" : "Create the owner account"}
            </button>
          </form>
        )}
      </div>
    </AuthShell>
  );
}
