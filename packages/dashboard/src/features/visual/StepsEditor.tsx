import type { ReactNode } from "react";
import { MutationError } from "../../ui/FieldErrors";
import { ErrorState } from "../../ui/states";
import { STEP_ACTIONS, useSecrets, useStepsRun, type BrowserRequest, type BrowserStep, type StepAction } from "./api";

/** The fields each action uses (besides its timeout). */
const FIELDS: Record<StepAction, Array<"selector" | "value" | "url" | "key" | "ms">> = {
  goto: ["url"],
  click: ["selector"],
  fill: ["selector", "value"],
  select: ["selector", "value"],
  check: ["selector"],
  press: ["key", "selector"],
  waitForSelector: ["selector"],
  waitForTimeout: ["ms"],
  scroll: ["selector"],
  acceptCookies: [],
};

const LABELS: Record<"selector" | "value" | "url" | "key" | "ms", string> = {
  selector: "Selector",
  value: "Value",
  url: "URL",
  key: "Key",
  ms: "Wait (ms)",
};

const OPTIONAL: Partial<Record<StepAction, string>> = { press: "selector", scroll: "selector" };

function move<T>(list: readonly T[], from: number, to: number): T[] {
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item!);
  return next;
}

/**
 * The monitor's browser steps: add, reorder, remove; `fill` and `select` take a typed value or a
 * stored secret (by name, never its value). A dry run runs them on the target without saving.
 */
export function StepsEditor({ steps, onChange, request }: { steps: BrowserStep[]; onChange: (steps: BrowserStep[]) => void; request: () => BrowserRequest | null }): ReactNode {
  const secrets = useSecrets();
  const run = useStepsRun();
  const set = (i: number, patch: Partial<BrowserStep>): void => onChange(steps.map((s, j) => (j === i ? { ...s, ...patch } : s)));
  return (
    <fieldset className="steps">
      <legend>Browser steps</legend>
      <p className="hint">Run in order after the page loads and before the capture: log in, accept cookies, open a tab. At most 50.</p>
      {steps.length === 0 ? <p className="muted">No steps.</p> : null}
      <ol className="step-list">
        {steps.map((step, i) => {
          const id = `step-${String(i)}`;
          const usesSecret = step.secret !== undefined;
          return (
            <li key={i} className="step">
              <div className="step-head">
                <label htmlFor={`${id}-action`}>Step {i + 1}</label>
                <select
                  id={`${id}-action`}
                  value={step.action}
                  onChange={(e) => {
                    const next = steps.map((s, j) => (j === i ? { action: e.target.value as StepAction, ...(s.selector ? { selector: s.selector } : {}) } : s));
                    onChange(next);
                  }}
                >
                  {STEP_ACTIONS.map((a) => (
                    <option key={a}>{a}</option>
                  ))}
                </select>
              </div>
              {FIELDS[step.action].map((field) =>
                field === "value" ? (
                  <div key={field} className="step-value">
                    <label htmlFor={`${id}-source`}>Value from</label>
                    <select
                      id={`${id}-source`}
                      value={usesSecret ? `secret:${step.secret!}` : "typed"}
                      onChange={(e) => {
                        const v = e.target.value;
                        const { value: _value, secret: _secret, ...rest } = step;
                        onChange(steps.map((s, j) => (j === i ? (v === "typed" ? { ...rest, value: "" } : { ...rest, secret: v.slice("secret:".length) }) : s)));
                      }}
                    >
                      <option value="typed">typed below</option>
                      {(secrets.data ?? []).map((secret) => (
                        <option key={secret.id} value={`secret:${secret.name}`}>
                          secret {secret.name}
                        </option>
                      ))}
                      {usesSecret && !(secrets.data ?? []).some((s) => s.name === step.secret) ? <option value={`secret:${step.secret!}`}>secret {step.secret} (unknown)</option> : null}
                    </select>
                    {usesSecret ? null : (
                      <>
                        <label htmlFor={`${id}-value`}>Value</label>
                        <input id={`${id}-value`} value={step.value ?? ""} onChange={(e) => set(i, { value: e.target.value })} />
                      </>
                    )}
                  </div>
                ) : (
                  <div key={field}>
                    <label htmlFor={`${id}-${field}`}>
                      {LABELS[field]}
                      {OPTIONAL[step.action] === field ? " (optional)" : ""}
                    </label>
                    <input
                      id={`${id}-${field}`}
                      type={field === "ms" ? "number" : field === "url" ? "url" : "text"}
                      min={field === "ms" ? 0 : undefined}
                      max={field === "ms" ? 30000 : undefined}
                      value={field === "ms" ? (step.ms ?? "") : (step[field] ?? "")}
                      onChange={(e) => set(i, field === "ms" ? { ms: e.target.value === "" ? undefined : Number(e.target.value) } : { [field]: e.target.value })}
                    />
                  </div>
                ),
              )}
              <div className="step-actions">
                <button type="button" disabled={i === 0} onClick={() => onChange(move(steps, i, i - 1))}>
                  Up<span className="sr-only"> step {i + 1}</span>
                </button>
                <button type="button" disabled={i === steps.length - 1} onClick={() => onChange(move(steps, i, i + 1))}>
                  Down<span className="sr-only"> step {i + 1}</span>
                </button>
                <button type="button" onClick={() => onChange(steps.filter((_, j) => j !== i))}>
                  Remove<span className="sr-only"> step {i + 1}</span>
                </button>
              </div>
            </li>
          );
        })}
      </ol>
      {secrets.isError && (secrets.error as { status?: number }).status !== 404 ? <ErrorState error={secrets.error} /> : null}
      <div className="actions">
        <button type="button" disabled={steps.length >= 50} onClick={() => onChange([...steps, { action: "click", selector: "" }])}>
          Add step
        </button>
        <button
          type="button"
          disabled={run.isPending || steps.length === 0}
          onClick={() => {
            const body = request();
            if (body !== null) run.mutate(body);
          }}
        >
          {run.isPending ? "Running…" : "Dry run"}
        </button>
      </div>
      <MutationError error={run.error} />
      {run.data ? (
        <div className="dry-run" aria-live="polite">
          <h3>Dry run</h3>
          <ol className="step-results" aria-label="Dry run results">
            {run.data.steps.map((r) => (
              <li key={r.index} className={r.ok ? "ok" : "failed"}>
                <span className={`tag ${r.ok ? "state-succeeded" : "state-failed"}`}>{r.ok ? "ok" : "failed"}</span> Step {r.index + 1} <code>{r.action}</code> in {r.ms} ms
                {r.error ? <span className="break">: {r.error}</span> : null}
              </li>
            ))}
            {run.data.steps.length < steps.length ? <li className="muted">Steps after the failure did not run.</li> : null}
          </ol>
          {run.data.screenshot ? <img className="shot-large" src={run.data.screenshot} alt="The page after the steps" /> : null}
        </div>
      ) : null}
    </fieldset>
  );
}
