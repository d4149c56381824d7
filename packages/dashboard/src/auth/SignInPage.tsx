import { useId, useState, type FormEvent, type ReactNode } from "react";
import { Link } from "react-router";
import { AuthError, AuthShell } from "./AuthShell";
import { signIn, signInWithPassword, type Session, type SignInResult } from "./session";

type Failure = { message: string; requestId?: string | null } | null;

function useSubmit(onSignedIn: (session: Session) => void, run: () => Promise<SignInResult>): { busy: boolean; error: Failure; submit: (e: FormEvent) => void } {
  const [error, setError] = useState<Failure>(null);
  const [busy, setBusy] = useState(false);
  return {
    busy,
    error,
    submit: (event) => {
      event.preventDefault();
      setBusy(true);
      setError(null);
      void run().then((result) => {
        setBusy(false);
        if (result.ok) onSignedIn(result.session);
        else setError({ message: result.message, requestId: result.requestId ?? null });
      });
    },
  };
}

/** Sign in with an account (email and password); an API token is the second way. */
export function SignInPage({ onSignedIn }: { onSignedIn: (session: Session) => void }): ReactNode {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [token, setToken] = useState("");
  const account = useSubmit(onSignedIn, () => signInWithPassword(email, password));
  const byToken = useSubmit(onSignedIn, () => signIn(token));
  const hintId = useId();
  return (
    <AuthShell title="Sign in">
      <form onSubmit={account.submit} className="card">
        <h2>Sign in</h2>
        <label htmlFor="email">Email</label>
        <input id="email" name="email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <label htmlFor="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          aria-invalid={account.error !== null}
          onChange={(e) => setPassword(e.target.value)}
        />
        <AuthError error={account.error} />
        <button type="submit" className="primary" disabled={account.busy}>
          {account.busy ? "Signing in…" : "Sign in"}
        </button>
        <p className="hint">
          New here? Use the invitation link you were sent, or the setup link <code>driftwatch serve</code> printed on first start (<Link to="/setup">setup</Link>).
        </p>
      </form>
      <details className="card">
        <summary>Sign in with an API token instead</summary>
        <form onSubmit={byToken.submit}>
          <label htmlFor="token">API token</label>
          <input
            id="token"
            name="token"
            type="password"
            autoComplete="off"
            spellCheck={false}
            required
            value={token}
            aria-describedby={hintId}
            aria-invalid={byToken.error !== null}
            onChange={(e) => setToken(e.target.value)}
          />
          <p id={hintId} className="hint">
            Paste a token (<code>dw_…</code>), for example one from <code>driftwatch token create</code>. It is kept in this tab only and forgotten when the tab closes.
          </p>
          <AuthError error={byToken.error} />
          <button type="submit" className="primary" disabled={byToken.busy}>
            {byToken.busy ? "Signing in…" : "Sign in with token"}
          </button>
        </form>
      </details>
    </AuthShell>
  );
}
