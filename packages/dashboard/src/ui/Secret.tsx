import { useState, type ReactNode } from "react";

/** A secret shown once, with a copy button and the warning that it will not be shown again. */
export function ShownOnce({ label, value, onDone }: { label: string; value: string; onDone: () => void }): ReactNode {
  const [copied, setCopied] = useState(false);
  return (
    <div className="state ok secret" role="alert">
      <p>
        <strong>{label}</strong> It is shown only this once: copy it now.
      </p>
      <p>
        <code className="break">{value}</code>
      </p>
      <div className="actions">
        <button type="button" onClick={() => void navigator.clipboard?.writeText(value).then(() => setCopied(true))}>
          {copied ? "Copied" : "Copy"}
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
