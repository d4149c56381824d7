import { useEffect, useId, useState, type FormEvent, type ReactNode } from "react";
import { signIn, type Session } from "./session";

/** Sign in with an API token (until user accounts exist). */
export function SignInPage({ onSignedIn }: { onSignedIn: (session: Session) => void }): ReactNode {
  const [token, setToken] = useState("");
  const [error, setError] = useState<{ message: string; requestId?: string | null } | null>(null);
  const [busy, setBusy] = useState(false);
  const hintId = useId();
  useEffect(() => {
    document.title = "Sign in · driftwatch";
  }, []);
  async function submit(event: FormEvent): Promise<void> {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const result = await signIn(token);
    setBusy(false);
    if (result.ok) onSignedIn(result.session);
    else setError({ message: result.message, requestId: result.requestId ?? null });
  }
  return (
    <main className="signin" id="main">
      <h1>
        <span className="logo" aria-hidden="true" /> driftwatch
      </h1>
      <form onSubmit={(e) => void submit(e)} className="card">
        <h2>Sign in</h2>
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
          aria-invalid={error !== null}
          onChange={(e) => setToken(e.target.value)}
        />
        <p id={hintId} className="hint">
          Paste a token (<code>dw_…</code>): the one <code>driftwatch serve</code> printed on first start, or one from <code>driftwatch token create</code>. It is kept in this tab
          only and forgotten when the tab closes.
        </p>
        {error ? (
          <div className="state error" role="alert">
            <p>{error.message}</p>
            {error.requestId ? (
              <p>
                Request id: <code>{error.requestId}</code>
              </p>
            ) : null}
          </div>
        ) : null}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
