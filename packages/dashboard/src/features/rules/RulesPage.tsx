import type { NoiseEvidence, PolicyRules, RejectedSuggestion, SettingsPreview, Severity } from "@driftwatch/client";
import { rejectionBlocks } from "@driftwatch/schema";
import { useQuery } from "@tanstack/react-query";
import { useDeferredValue, useEffect, useMemo, useState, type ReactNode } from "react";
import { Link, useParams } from "react-router";
import { useClient } from "../../api/context";
import { useCan } from "../../auth/session-context";
import { monitorKeys } from "../../api/keys";
import { MutationError } from "../../ui/FieldErrors";
import { Page } from "../../ui/Page";
import { SeverityBadge, SeverityOptions } from "../../ui/severity";
import { EmptyState, ErrorState, Loading } from "../../ui/states";
import { useMonitor } from "../monitors/api";
import { useNoise, useSaveSettings, useSettings, type PolicyRule } from "./api";
import { LearningCard } from "./LearningCard";
import { applySuggestion, pinnedIn, rejectionOf, sameRejection } from "./suggestions";

const OPS = ["", "add", "remove", "replace", "move"] as const;
const CATEGORIES = ["", "schema", "value"] as const;

export function RulesPage(): ReactNode {
  const { monitorId = "" } = useParams();
  const monitor = useMonitor(monitorId);
  const settings = useSettings(monitorId);
  const canWrite = useCan("monitors:write");
  if (settings.isPending || monitor.isPending) return <Loading what="the rules" />;
  if (settings.isError) return <ErrorState error={settings.error} retry={() => void settings.refetch()} />;
  if (monitor.isError) return <ErrorState error={monitor.error} />;
  const name = monitor.data.name;
  // the editor starts again from the stored policy when it changes (a save, a pinned entry); the
  // learning settings and the learned noise are its siblings and save other fields, so saving them
  // keeps what is typed in the editor
  return (
    <Page title={`Rules of ${name}`}>
      <p>
        <Link to={`/monitors/${monitorId}`}>← {name}</Link>
      </p>
      {canWrite ? null : <p className="state">Your role can read these rules and preview edits; saving them needs a member or an admin.</p>}
      <RulesEditor key={JSON.stringify(settings.data.policyRulesJson)} monitorId={monitorId} website={monitor.data.type === "website"} stored={settings.data.policyRulesJson} />
      <LearningCard monitorId={monitorId} autoApply={settings.data.autoApplySuggestions} learning={settings.data.learning ?? null} />
      <Suggestions monitorId={monitorId} autoApply={settings.data.autoApplySuggestions} />
    </Page>
  );
}

/** The rules other than `rules` (arrayKeys, notify, volatile, ...), edited as JSON. */
function restOf(policy: PolicyRules): string {
  const { rules: _rules, ...rest } = policy;
  return JSON.stringify(rest, null, 2);
}

function RulesEditor({ monitorId, website, stored }: { monitorId: string; website: boolean; stored: PolicyRules }): ReactNode {
  const [rules, setRules] = useState<PolicyRule[]>(stored.rules ?? []);
  const [rest, setRest] = useState(() => restOf(stored));
  const save = useSaveSettings(monitorId);
  const canWrite = useCan("monitors:write");
  const restParsed = useMemo((): { ok: true; value: Omit<PolicyRules, "rules"> } | { ok: false; message: string } => {
    try {
      const value: unknown = JSON.parse(rest === "" ? "{}" : rest);
      if (value === null || typeof value !== "object" || Array.isArray(value)) return { ok: false, message: "must be a JSON object" };
      return { ok: true, value: value as Omit<PolicyRules, "rules"> };
    } catch (error) {
      return { ok: false, message: (error as Error).message };
    }
  }, [rest]);
  const policy: PolicyRules | null = restParsed.ok ? { ...restParsed.value, rules } : null;
  const dirty = policy !== null && JSON.stringify(policy) !== JSON.stringify({ ...JSON.parse(restOf(stored)), rules: stored.rules ?? [] });
  const update = (i: number, patch: Partial<PolicyRule>): void =>
    setRules((all) =>
      all.map((r, j) => {
        if (j !== i) return r;
        const next: Record<string, unknown> = { ...r, ...patch };
        for (const key of Object.keys(next)) if (next[key] === "" || next[key] === undefined) delete next[key];
        return next as PolicyRule;
      }),
    );
  const move = (i: number, by: number): void =>
    setRules((all) => {
      const next = all.slice();
      const [rule] = next.splice(i, 1);
      next.splice(i + by, 0, rule!);
      return next;
    });

  return (
    <div className="rules-layout">
      <section className="card form" aria-labelledby="rules-h">
        <h2 id="rules-h">Rules (first match wins)</h2>
        {rules.length === 0 ? <p className="hint">No rules: every change is reported with its default severity.</p> : null}
        <ol className="rules">
          {rules.map((rule, i) => (
            <li key={i} className="rule">
              <fieldset>
                <legend>Rule {i + 1}</legend>
                <div className="grid2">
                  <label>
                    {website ? "Selector" : "JSONPath"}
                    <input id={`rule-target-${String(i)}`} value={(website ? rule.selector : rule.path) ?? ""} onChange={(e) => update(i, website ? { selector: e.target.value } : { path: e.target.value })} />
                  </label>
                  <label>
                    Action
                    <select
                      value={rule.action === "ignore" ? "ignore" : "set"}
                      onChange={(e) =>
                        update(i, e.target.value === "ignore" ? { action: "ignore", severity: undefined } : { action: undefined, severity: rule.severity ?? "high" })
                      }
                    >
                      <option value="ignore">Ignore</option>
                      <option value="set">Set severity</option>
                    </select>
                  </label>
                  {rule.action !== "ignore" ? (
                    <label>
                      Severity
                      <select value={rule.severity ?? "high"} onChange={(e) => update(i, { severity: e.target.value as Severity })}>
                        <SeverityOptions />
                      </select>
                    </label>
                  ) : null}
                  <label>
                    Only op
                    <select value={rule.op ?? ""} onChange={(e) => update(i, { op: (e.target.value || undefined) as PolicyRule["op"] })}>
                      {OPS.map((o) => (
                        <option key={o} value={o}>
                          {o === "" ? "any" : o}
                        </option>
                      ))}
                    </select>
                  </label>
                  {!website ? (
                    <label>
                      Only category
                      <select value={rule.category ?? ""} onChange={(e) => update(i, { category: (e.target.value || undefined) as PolicyRule["category"] })}>
                        {CATEGORIES.map((c) => (
                          <option key={c} value={c}>
                            {c === "" ? "any" : c}
                          </option>
                        ))}
                      </select>
                    </label>
                  ) : null}
                </div>
                <div className="actions">
                  <button type="button" disabled={i === 0} onClick={() => move(i, -1)}>
                    Up<span className="sr-only"> rule {i + 1}</span>
                  </button>
                  <button type="button" disabled={i === rules.length - 1} onClick={() => move(i, 1)}>
                    Down<span className="sr-only"> rule {i + 1}</span>
                  </button>
                  <button type="button" className="danger" onClick={() => setRules((all) => all.filter((_, j) => j !== i))}>
                    Remove<span className="sr-only"> rule {i + 1}</span>
                  </button>
                </div>
              </fieldset>
            </li>
          ))}
        </ol>
        <button type="button" onClick={() => setRules((all) => [...all, website ? { selector: "", action: "ignore" } : { path: "$.", action: "ignore" }])}>
          Add rule
        </button>
        <label htmlFor="rest">Other settings of the policy (arrayKeys, notify, volatile, tolerance, unordered, normalize) as JSON</label>
        <textarea id="rest" rows={6} spellCheck={false} value={rest} aria-invalid={!restParsed.ok} onChange={(e) => setRest(e.target.value)} />
        {!restParsed.ok ? (
          <p className="field-error" role="alert">
            Not valid JSON: {restParsed.message}
          </p>
        ) : null}
        <MutationError error={save.error} />
        <div className="actions">
          {canWrite ? (
            <button type="button" className="primary" disabled={!dirty || policy === null || save.isPending} onClick={() => policy && save.mutate({ policyRules: policy })}>
              {save.isPending ? "Saving…" : "Save rules"}
            </button>
          ) : null}
          {save.isSuccess && !dirty ? <span role="status">Saved.</span> : null}
        </div>
      </section>
      <Preview monitorId={monitorId} policy={policy} />
    </div>
  );
}

/** What the edited rules would have done to the newest diffs (re-run by the server; nothing stored). */
function Preview({ monitorId, policy }: { monitorId: string; policy: PolicyRules | null }): ReactNode {
  const client = useClient();
  const [limit, setLimit] = useState(10);
  const key = JSON.stringify(policy);
  const deferred = useDeferredValue(key);
  const [debounced, setDebounced] = useState(deferred);
  useEffect(() => {
    const t = setTimeout(() => setDebounced(deferred), 400);
    return () => clearTimeout(t);
  }, [deferred]);
  const preview = useQuery({
    queryKey: monitorKeys.preview(monitorId, debounced, limit),
    queryFn: async () => await client.settings.preview(monitorId, { policyRules: JSON.parse(debounced) as PolicyRules, limit }),
    enabled: debounced !== "null",
    placeholderData: (previous) => previous,
    retry: false,
  });
  return (
    <section className="card preview" aria-labelledby="preview-h" aria-busy={preview.isFetching}>
      <h2 id="preview-h">Live preview</h2>
      <label>
        Re-run the last
        <select value={limit} onChange={(e) => setLimit(Number(e.target.value))}>
          {[5, 10, 20].map((n) => (
            <option key={n} value={n}>
              {n} diffs
            </option>
          ))}
        </select>
      </label>
      {policy === null ? <p className="hint">Fix the JSON to see a preview.</p> : null}
      {preview.isError ? <ErrorState error={preview.error} /> : null}
      {preview.data ? <PreviewResult preview={preview.data} monitorId={monitorId} /> : preview.isPending && policy !== null ? <Loading what="the preview" /> : null}
    </section>
  );
}

function PreviewResult({ preview, monitorId }: { preview: SettingsPreview; monitorId: string }): ReactNode {
  const t = preview.totals;
  if (t.diffs === 0) return <EmptyState title="No diffs yet to preview on">Once the monitor records changes, the preview re-runs them here.</EmptyState>;
  return (
    <div aria-live="polite">
      <p className="totals">
        On the last {t.diffs} diffs these rules would hide <strong>{t.hidden}</strong> change{t.hidden === 1 ? "" : "s"}, bring back <strong>{t.shown}</strong>, re-rate{" "}
        <strong>{t.severityChanged}</strong>
        {t.silenced > 0 ? (
          <>
            , and <strong>{t.silenced}</strong> check{t.silenced === 1 ? "" : "s"} would have recorded no diff at all
          </>
        ) : null}
        .{preview.includesSuggestions ? " (Learned suggestions are merged in, as this monitor's checks do.)" : ""}
      </p>
      <ul className="preview-diffs">
        {preview.diffs.map((d) => (
          <li key={d.diffId}>
            <SeverityBadge severity={d.before.topSeverity} />
            <Link to={`/monitors/${monitorId}/diffs/${d.diffId}`}>
              {d.before.changes} change{d.before.changes === 1 ? "" : "s"}
            </Link>
            {" → "}
            {d.outcome !== "compared" ? (
              <span className="muted">
                {d.outcome === "snapshots_gone" ? "snapshots no longer stored" : d.outcome === "over_budget" ? "not re-run (too much content)" : `failed: ${d.error ?? ""}`}
              </span>
            ) : d.after === null ? (
              <strong>no diff</strong>
            ) : (
              <>
                <SeverityBadge severity={d.after.topSeverity} /> {d.after.changes}
              </>
            )}
            {d.hidden.length + d.shown.length + d.severityChanged.length > 0 ? (
              <ul className="preview-changes">
                {d.hidden.map((c) => (
                  <li key={`h${c.op}${c.path}`}>
                    <span className="tag hidden">hidden</span> <code>{c.path}</code>
                  </li>
                ))}
                {d.shown.map((c) => (
                  <li key={`s${c.op}${c.path}`}>
                    <span className="tag shown">shown</span> <code>{c.path}</code>
                  </li>
                ))}
                {d.severityChanged.map((c) => (
                  <li key={`r${c.op}${c.path}`}>
                    <span className="tag">re-rated</span> <code>{c.path}</code> {c.from} → {c.to}
                  </li>
                ))}
              </ul>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** One learned entry (or a kept field) with its evidence, and what a user can do with it. */
function EvidenceItem(props: {
  evidence: NoiseEvidence;
  canWrite: boolean;
  busy: boolean;
  /** The stored rejections that keep this entry from being applied (its own, or a noise rejection of another kind at its path). */
  rejectedBy: RejectedSuggestion[];
  pinned: boolean;
  onPin: () => void;
  onEdit: () => void;
  onReject: (reject: boolean) => void;
}): ReactNode {
  const { evidence: e, canWrite, busy, rejectedBy, pinned } = props;
  const where = e.path ?? e.selector ?? "";
  const own = rejectionOf(e);
  const rejectable = own !== null;
  const rejected = rejectedBy.length > 0;
  // rejected under another kind at this path: "this path is not noise" blocks every noise kind there
  const asOther = own !== null && rejected && !rejectedBy.some((r) => sameRejection(r, own)) ? rejectedBy[0]!.kind : null;
  return (
    <li className={rejected ? "rejected" : undefined}>
      <span className="tag">{e.kind}</span> {e.rule ? <code className="muted">{e.rule}</code> : null} <code className="break">{where}</code>{" "}
      {rejected ? (
        <span className="badge rejected">{asOther === null ? "rejected: not applied" : `rejected as ${asOther} at this ${e.path !== undefined ? "path" : "selector"}: not applied`}</span>
      ) : null}{" "}
      {pinned ? <span className="badge pinned">pinned: your copy in the rules applies</span> : null}
      <p>
        {e.reason} ({e.changed} of {e.pairs} pairs)
      </p>
      {canWrite && e.kind !== "kept" && e.rule ? (
        <div className="actions">
          {pinned ? null : (
            <button type="button" disabled={busy} onClick={props.onPin}>
              Pin<span className="sr-only"> {e.kind} {where}</span>
            </button>
          )}
          <button type="button" disabled={busy} onClick={props.onEdit}>
            Edit<span className="sr-only"> {e.kind} {where}</span>
          </button>
          {rejectable ? (
            <button type="button" className={rejected ? undefined : "danger"} disabled={busy} onClick={() => props.onReject(!rejected)}>
              {rejected ? "Apply again" : "Reject"}
              <span className="sr-only"> {e.kind} {where}</span>
            </button>
          ) : null}
        </div>
      ) : null}
    </li>
  );
}

/**
 * Takes the user to the copy of a pinned entry in the rules editor: a severity rule's target
 * field, or the JSON of the other settings (volatile, tolerance, unordered, arrayKeys).
 */
function focusPinned(policy: PolicyRules, suggested: PolicyRules, evidence: NoiseEvidence): void {
  const ref = evidence.rule?.match(/^rules\[(\d+)\]$/);
  const rule = ref ? suggested.rules?.[Number(ref[1])] : undefined;
  const index = rule === undefined ? -1 : (policy.rules ?? []).findIndex((r) => JSON.stringify(r) === JSON.stringify(rule));
  const target = document.getElementById(index >= 0 ? `rule-target-${String(index)}` : "rest");
  target?.scrollIntoView?.({ block: "center" });
  target?.focus();
}

/** What driftwatch learned from recent snapshots, with the evidence, one click from a rule. */
function Suggestions({ monitorId, autoApply }: { monitorId: string; autoApply: boolean }): ReactNode {
  const noise = useNoise(monitorId);
  const save = useSaveSettings(monitorId);
  const canWrite = useCan("monitors:write");
  const settings = useSettings(monitorId);
  const apply = (evidence: NoiseEvidence | null, then?: (policy: PolicyRules) => void): void => {
    if (!noise.data || !settings.data) return;
    const policyRules = applySuggestion(settings.data.policyRulesJson, noise.data.policy, evidence);
    // the editor is drawn again from the saved policy: focus its copy once that is on the page
    save.mutate({ policyRules }, then ? { onSuccess: () => setTimeout(() => then(policyRules), 0) } : undefined);
  };
  const edit = (evidence: NoiseEvidence): void => {
    if (!noise.data || !settings.data) return;
    const learned = noise.data.policy;
    if (pinnedIn(settings.data.policyRulesJson, learned, evidence)) focusPinned(settings.data.policyRulesJson, learned, evidence);
    else apply(evidence, (policy) => focusPinned(policy, learned, evidence));
  };
  const rejected = settings.data?.rejectedSuggestions ?? [];
  const setRejected = (entry: RejectedSuggestion, reject: boolean): void => {
    // applying again takes out every rejection that blocks the entry (a noise rejection of another kind at its path too)
    const others = rejected.filter((r) => (reject ? !sameRejection(r, entry) : !rejectionBlocks(r, entry)));
    save.mutate({ rejectedSuggestions: reject ? [...others, entry] : others });
  };
  return (
    <section className="card" aria-labelledby="noise-h">
      <h2 id="noise-h">Learned noise</h2>
      {noise.isPending ? <Loading what="suggestions" /> : null}
      {noise.isError ? <ErrorState error={noise.error} /> : null}
      {noise.data ? (
        noise.data.samples < noise.data.minSamples ? (
          <EmptyState title="Not enough history yet">
            <p>
              Suggestions appear after {noise.data.minSamples} snapshots with different content; this monitor has {noise.data.samples}.
            </p>
          </EmptyState>
        ) : noise.data.evidence.filter((e) => e.kind !== "kept").length === 0 ? (
          <EmptyState title="Nothing looks like noise">
            <p>None of the fields that changed in the last {noise.data.samples} snapshots changed like a timestamp, counter or id.</p>
          </EmptyState>
        ) : (
          <>
            <p className="hint">
              {autoApply
                ? "This monitor applies these entries to its diffs (except those you reject)."
                : "Learning is off for this monitor (above): these are suggestions only, applied when you pin them."}
            </p>
            <ul className="evidence">
              {noise.data.evidence.map((e, i) => (
                <EvidenceItem
                  key={`${e.kind}:${e.rule ?? e.path ?? e.selector ?? String(i)}`}
                  evidence={e}
                  canWrite={canWrite}
                  busy={save.isPending}
                  rejectedBy={(() => {
                    const entry = rejectionOf(e);
                    return entry === null ? [] : rejected.filter((r) => rejectionBlocks(r, entry));
                  })()}
                  pinned={settings.data !== undefined && pinnedIn(settings.data.policyRulesJson, noise.data.policy, e)}
                  onPin={() => apply(e)}
                  onEdit={() => edit(e)}
                  onReject={(reject) => {
                    const entry = rejectionOf(e);
                    if (entry !== null) setRejected(entry, reject);
                  }}
                />
              ))}
            </ul>
            {(() => {
              // rejections that block nothing the learner finds now: listed so that they can be taken back
              const unseen = rejected.filter((r) => !noise.data.evidence.some((e) => {
                const entry = rejectionOf(e);
                return entry !== null && rejectionBlocks(r, entry);
              }));
              return unseen.length === 0 ? null : (
                <>
                  <h3>Rejected, not learned now</h3>
                  <ul className="evidence" aria-label="Rejected entries not learned now">
                    {unseen.map((r) => (
                      <li key={`${r.kind}:${r.path ?? r.selector ?? ""}`} className="rejected">
                        <span className="tag">{r.kind}</span> <code className="break">{r.path ?? r.selector}</code>
                        {canWrite ? (
                          <div className="actions">
                            <button type="button" disabled={save.isPending} onClick={() => save.mutate({ rejectedSuggestions: rejected.filter((x) => !sameRejection(x, r)) })}>
                              Apply again<span className="sr-only"> {r.kind} {r.path ?? r.selector}</span>
                            </button>
                          </div>
                        ) : null}
                      </li>
                    ))}
                  </ul>
                </>
              );
            })()}
            <p className="hint">
              <strong>Pin</strong> copies an entry into your rules above, where it stays whatever the learner later finds, and your copy applies instead of the
              learned one; <strong>Edit</strong> pins it and takes you to your copy; <strong>Reject</strong> stops this monitor from applying it, now and when it is
              learned again (rejecting a volatile, tolerance or unordered entry says its path is not noise: none of these kinds is applied there).
            </p>
            {canWrite ? (
              <button type="button" className="primary" disabled={save.isPending} onClick={() => apply(null)}>
                Pin all suggestions as rules
              </button>
            ) : null}
          </>
        )
      ) : null}
      <MutationError error={save.error} />
    </section>
  );
}
