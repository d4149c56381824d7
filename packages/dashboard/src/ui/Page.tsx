import { useEffect, type ReactNode } from "react";

/** A page's heading, also its document title. */
export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }): ReactNode {
  useEffect(() => {
    document.title = `${title} · driftwatch`;
  }, [title]);
  return (
    <section className="page" aria-labelledby="page-title">
      <div className="page-head">
        <h1 id="page-title">{title}</h1>
        {actions ? <div className="actions">{actions}</div> : null}
      </div>
      {children}
    </section>
  );
}
