import { useQuery } from "@tanstack/react-query";
import { useMemo, useState, type FormEvent, type ReactNode } from "react";
import { Link } from "react-router";
import { ErrorState, Loading } from "../ui/states";
import { RelativeTime } from "../ui/RelativeTime";
import { AuthError, AuthShell, fragmentToken } from "./AuthShell";
import { accountSession, cookieClient, explain, type Session } from "./session";
import { enterDashboard } from "./SetupPage";

/** An invitation link (`/invite#token=...`): shows what it offers, then creates the account or adds the membership. */
export function InvitePage({ onSignedIn }: { onSignedIn: (session: Session) => void }): ReactNode {
  const client = useMemo(() => cookieClient(), []);
  const token = useMemo(() => fragmentToken(), []);
  const offer = useQuery({
    queryKey: ["invite", token],
    queryFn: async () => await client.invites.lookup(token ?? ""),
    enabled: token !== null,
    retry: false,
  });
  const [displayName, setDisplayName] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<{ message: string; requestId?: string | null } | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent): Promise<void> {
    event.preventDefault();
    if (token === null || !offer.data) return;
    setBusy(true);
    setError(null);
    try {
      const body = offer.data.userExists ? { token, password } : { token, password, displayName: displayName.trim() };
      enterDashboard(onSignedIn, accountSession(await client.invites.accept(body)));
    } catch (e) {
      setBusy(false);
      setError(explain(e, "Could not accept the invitation"));
    }
  }

  const gone = offer.error as { status?: number } | null;
  return (
    <AuthShell title="Invitation">
      <div className="card">
        <h2>Invitation</h2>
        {token === null ? (
          <div className="state error" role="alert">
            <p>This page needs the whole invitation link (it ends in <code>/invite#token=…</code>). Open the link from your invitation again.</p>
          </div>
        ) : offer.isPending ? (
          <Loading what="the invitation" />
        ) : offer.isError ? (
          gone?.status === 410 || gone?.status === 404 ? (
            <AuthError error={explain(offer.error, "This invitation cannot be used")} />
          ) : (
            <ErrorState error={offer.error} retry={() => void offer.refetch()} />
          )
        ) : (
          <form className="form" onSubmit={(e) => void submit(e)}>
            <p>
              Join <strong>{offer.data.org.name}</strong> as <span className="tag">{offer.data.role}</span>, as <strong className="break">{offer.data.email}</strong>.
            </p>
            <p className="muted">
              The invitation expires <RelativeTime value={offer.data.expiresAt} />.
            </p>
            {offer.data.userExists ? (
              <>
                <p className="hint">You already have an account: enter its password to join.</p>
                <label htmlFor="i-password">Password</label>
                <input id="i-password" type="password" required autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
              </>
            ) : (
              <>
                <label htmlFor="i-name">Your name</label>
                <input id="i-name" required maxLength={200} autoComplete="name" value={displayName} onChange={(e) => setDisplayName(e.target.value)} />
                <label htmlFor="i-password">Choose a password</label>
                <input id="i-password" type="password" required autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />
              </>
            )}
            <AuthError error={error} />
            <button type="submit" className="primary" disabled={busy}>
              {busy ? "Joining…" : `Join ${offer.data.org.name}`}
            </button>
          </form>
        )}
        <p className="hint">
          <Link to="/">Back to sign-in</Link>
        </p>
      </div>
    </AuthShell>
  );
}
