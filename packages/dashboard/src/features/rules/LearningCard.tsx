import type { LearningSettings } from "@driftwatch/client";
import { useState, type FormEvent, type ReactNode } from "react";
import { Link } from "react-router";
import { useCan, useSessionActions } from "../../auth/session-context";
import { MutationError } from "../../ui/FieldErrors";
import { useSaveSettings } from "./api";
import { LearningFields, YoungMonitorsRule } from "./LearningFields";
import { describeLearning, learningDraftOf, parseLearningDraft, sameLearning, SERVICE_LEARNING_DEFAULTS } from "./learning-settings";

/**
 * Whether the monitor learns its noise (`autoApplySuggestions`) and how it starts (`learning`:
 * warm-up fetches, learning samples; null takes the service's defaults). What is typed is compared
 * with the stored settings it gets, so after a save the form is clean again without a remount.
 */
export function LearningCard({ monitorId, autoApply, learning }: { monitorId: string; autoApply: boolean; learning: LearningSettings | null }): ReactNode {
  const save = useSaveSettings(monitorId);
  const canWrite = useCan("monitors:write");
  const { me } = useSessionActions();
  const [learns, setLearns] = useState(autoApply);
  const [draft, setDraft] = useState(() => learningDraftOf(learning));
  const parsed = parseLearningDraft(draft);
  const learningChanged = parsed.ok && !sameLearning(parsed.value, learning);
  const dirty = learns !== autoApply || learningChanged;
  const orgDefaults = me?.org.learningDefaults ?? null;
  const young = (parsed.ok ? parsed.value?.learningSamples : undefined) ?? learning?.learningSamples ?? SERVICE_LEARNING_DEFAULTS.learningSamples;

  function submit(event: FormEvent): void {
    event.preventDefault();
    if (!parsed.ok || !dirty) return;
    save.mutate({
      ...(learns !== autoApply ? { autoApplySuggestions: learns } : {}),
      ...(learningChanged ? { learning: parsed.value } : {}),
    });
  }
  // the 422's messages at learning.* show at their field; anything else under the form
  const fieldErrors = (save.error as { errors?: Array<{ path: string }> } | null)?.errors ?? [];
  const otherError = fieldErrors.length > 0 && fieldErrors.every((f) => f.path.startsWith("learning.")) ? null : save.error;

  return (
    <form className="card form" aria-labelledby="learning-h" onSubmit={submit} noValidate>
      <h2 id="learning-h">How this monitor learns</h2>
      <label className="inline">
        <input type="checkbox" checked={learns} disabled={!canWrite} onChange={(e) => setLearns(e.target.checked)} /> Learn this monitor’s noise from its own snapshots
        and apply it to future diffs
      </label>
      {!learns ? <p className="hint">Off: every change is reported as your rules say; the settings below wait until learning is on again.</p> : null}
      <fieldset>
        <legend>The first fetches</legend>
        <p className="hint">
          {learning === null ? (
            <>
              This monitor uses the service’s defaults: <strong>{describeLearning(null)}</strong> (unless the server was started with other values).
            </>
          ) : (
            <>
              This monitor has its own settings: <strong>{describeLearning(learning)}</strong>.
            </>
          )}{" "}
          Leave a field empty for the service’s default.
        </p>
        {me ? (
          <p className="hint">
            New monitors of <span className="break">{me.org.name}</span> start with{" "}
            {orgDefaults === null ? "the service’s defaults" : <strong>{describeLearning(orgDefaults)}</strong>} (<Link to="/org">organization default</Link>).
          </p>
        ) : null}
        <LearningFields
          idPrefix="learning"
          draft={draft}
          onChange={setDraft}
          errors={parsed.ok ? {} : parsed.errors}
          serverError={save.error}
          errorBase="learning"
          disabled={!canWrite}
        />
        {canWrite && orgDefaults !== null && !sameLearning(orgDefaults, parsed.ok ? parsed.value : learning) ? (
          <button type="button" onClick={() => setDraft(learningDraftOf(orgDefaults))}>
            Use the organization’s default
          </button>
        ) : null}
        {canWrite && (draft.warmupSamples !== "" || draft.learningSamples !== "") ? (
          <button type="button" onClick={() => setDraft(learningDraftOf(null))}>
            Use the service’s defaults
          </button>
        ) : null}
      </fieldset>
      <p className="hint">
        While it has learned from fewer than {young} stored contents, a learning monitor is <em>young</em>: its diffs are recorded as{" "}
        <code>learning</code> diffs, kept in the timeline and the diff list, and <YoungMonitorsRule />
      </p>
      <MutationError error={otherError} />
      <div className="actions">
        {canWrite ? (
          <button type="submit" className="primary" disabled={!dirty || !parsed.ok || save.isPending}>
            {save.isPending ? "Saving…" : "Save learning settings"}
          </button>
        ) : (
          <p className="state">Your role can read these settings; changing them needs a member or an admin.</p>
        )}
        {save.isSuccess && !dirty ? <span role="status">Saved.</span> : null}
      </div>
    </form>
  );
}
