import { useEffect, type ReactNode } from "react";

/** The frame of the signed-out pages (sign-in, setup, invitation): the brand and one card. */
export function AuthShell({ title, children }: { title: string; children: ReactNode }): ReactNode {
  useEffect(() => {
    document.title = `${title} · driftwatch`;
  }, [title]);
  return (
    <main className="signin" id="main">
      <h1>
        <span className="logo" aria-hidden="true" /> driftwatch
      </h1>
      {children}
    </main>
  );
}

/** A refused sign-in, setup or invitation: the message and the request id to report. */
export function AuthError({ error }: { error: { message: string; requestId?: string | null } | null }): ReactNode {
  if (error === null) return null;
  return (
    <div className="state error" role="alert">
      <p>{error.message}</p>
      {error.requestId ? (
        <p>
          Request id: <code>{error.requestId}</code>
        </p>
      ) : null}
    </div>
  );
}

/** The secret in the page's fragment (`#token=...`): never sent to the server with the page request. */
export function fragmentToken(hash: string = window.location.hash): string | null {
  const token = new URLSearchParams(hash.replace(/^#/, "")).get("token");
  return token !== null && token !== "" ? token : null;
}
