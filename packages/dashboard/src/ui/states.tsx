import type { ReactNode } from "react";

export function Loading({ what }: { what: string }): ReactNode {
  return (
    <p className="state" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

/** An error with what a person needs to report it: the message and the server's request id. */
export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }): ReactNode {
  const e = error as { message?: string; detail?: string; requestId?: string | null; status?: number; code?: string };
  const message = e?.detail || e?.message || String(error);
  return (
    <div className="state error" role="alert">
      <p>
        <strong>Something went wrong{e?.status ? ` (${String(e.status)}${e.code ? ` ${e.code}` : ""})` : ""}.</strong> {message}
      </p>
      {e?.requestId ? (
        <p>
          Request id: <code>{e.requestId}</code>
        </p>
      ) : null}
      {retry ? (
        <button type="button" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }): ReactNode {
  return (
    <div className="state empty">
      <p>
        <strong>{title}</strong>
      </p>
      {children}
    </div>
  );
}
