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

/** The field errors of a 422 whose path is `path` or lies inside it (`contract.operation` holds `contract.operation.path`). */
export function fieldErrorsAt(error: unknown, path: string): string[] {
  if (error == null) return [];
  const fields = (error as { errors?: Array<{ path: string; message: string }> }).errors ?? [];
  return fields.filter((f) => f.path === path || f.path.startsWith(`${path}.`) || f.path.startsWith(`${path}[`)).map((f) => f.message);
}

/** A 422's messages for one field, shown at the field (its id is `id`, for the input's aria-describedby). */
export function FieldError({ id, messages }: { id: string; messages: readonly string[] }): ReactNode {
  if (messages.length === 0) return null;
  return (
    <p className="field-error" id={id} role="alert">
      {messages.join("; ")}
    </p>
  );
}
