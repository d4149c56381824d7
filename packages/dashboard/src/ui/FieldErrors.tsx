import type { ReactNode } from "react";
import { ErrorState } from "./states";

/** An API error, with the per-field messages of a 422 listed under it. */
export function MutationError({ error }: { error: unknown }): ReactNode {
  if (error == null) return null;
  const fields = (error as { errors?: Array<{ path: string; message: string }> }).errors ?? [];
  return (
    <>
      <ErrorState error={error} />
      {fields.length > 0 ? (
        <ul className="field-errors" aria-label="What to fix">
          {fields.map((f) => (
            <li key={`${f.path}:${f.message}`}>
              <code>{f.path}</code>: {f.message}
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}
