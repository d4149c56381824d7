import type { ReactNode } from "react";
import { FieldError, fieldErrorsAt } from "../../ui/FieldErrors";
import { LEARNING_LIMITS, SERVICE_LEARNING_DEFAULTS, type LearningDraft, type LearningField } from "./learning-settings";

/** Where docs/signal.md explains young monitors and the first fetches. */
export const YOUNG_MONITORS_DOC = "https://github.com/driftwatch/driftwatch/blob/main/docs/signal.md#young-monitors";

/** When a young monitor's `learning` diff is still notified (docs/signal.md, "Young monitors"), with the link there. */
export function YoungMonitorsRule(): ReactNode {
  return (
    <>
      notified only when they remove something, change a type or hold a change rated medium or above, or change a place that stayed the same in every
      content stored before.{" "}
      <a href={YOUNG_MONITORS_DOC} rel="noreferrer">
        How young monitors learn
      </a>
    </>
  );
}

const LABELS: Record<LearningField, { label: string; hint: string }> = {
  warmupSamples: {
    label: "Warm-up fetches",
    hint: "Extra fetches in the check that stores the first content (at creation, and after the URL, method, body or selector changes).",
  },
  learningSamples: {
    label: "Learning samples",
    hint: "Stored contents the monitor learns from before its diffs stop being learning diffs.",
  },
};

/**
 * The two numbers of a `learning` setting (warm-up fetches, learning samples), each empty for the
 * default. `errors` are the form's own checks; the server's 422 messages at `${errorBase}.<field>`
 * are shown at the field too.
 */
export function LearningFields(props: {
  idPrefix: string;
  draft: LearningDraft;
  onChange: (draft: LearningDraft) => void;
  errors: Partial<Record<LearningField, string>>;
  serverError: unknown;
  errorBase: string;
  /** What an empty field means ("default: 2"). */
  placeholders?: Partial<Record<LearningField, string>>;
  disabled?: boolean;
}): ReactNode {
  const { idPrefix, draft, errors } = props;
  return (
    <div className="grid2">
      {(Object.keys(LABELS) as LearningField[]).map((field) => {
        const id = `${idPrefix}-${field}`;
        const messages = [...(errors[field] ? [errors[field]] : []), ...fieldErrorsAt(props.serverError, `${props.errorBase}.${field}`)];
        const { min, max } = LEARNING_LIMITS[field];
        return (
          <div key={field} className="learning-field">
            <label htmlFor={id}>{LABELS[field].label}</label>
            <input
              id={id}
              type="number"
              inputMode="numeric"
              min={min}
              max={max}
              step={1}
              value={draft[field]}
              placeholder={props.placeholders?.[field] ?? `default: ${String(SERVICE_LEARNING_DEFAULTS[field])}`}
              disabled={props.disabled}
              aria-invalid={messages.length > 0}
              aria-describedby={`${id}-hint${messages.length > 0 ? ` ${id}-error` : ""}`}
              onChange={(e) => props.onChange({ ...draft, [field]: e.target.value })}
            />
            <p className="hint" id={`${id}-hint`}>
              {String(min)} to {String(max)}. {LABELS[field].hint}
            </p>
            <FieldError id={`${id}-error`} messages={messages} />
          </div>
        );
      })}
    </div>
  );
}
