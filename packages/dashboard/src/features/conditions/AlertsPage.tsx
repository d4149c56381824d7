import type { Severity } from "@driftwatch/client";
import { useQuery } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { Link, useParams } from "react-router";
import { useClient } from "../../api/context";
import { monitorKeys } from "../../api/keys";
import { useCan } from "../../auth/session-context";
import { MutationError } from "../../ui/FieldErrors";
import { Page } from "../../ui/Page";
import { RelativeTime } from "../../ui/RelativeTime";
import { SEVERITIES } from "../../ui/severity";
import { EmptyState, ErrorState, Loading } from "../../ui/states";
import { useMonitor } from "../monitors/api";
import { AVAILABILITIES, EXTRACTS, OPS, useSaveTracking, useTracking, useValueHistories, type Alert, type Condition, type Extract, type Op, type TrackSpec, type TrackingSettings, type ValuePoint } from "./api";
import { previewAlert, type PastCheck } from "./evaluate";
import { TrackedValues } from "./ValueChart";

const OP_LABELS: Record<Op, string> = {
  lt: "is below",
  lte: "is at most",
  gt: "is above",
  gte: "is at least",
  eq: "equals",
  ne: "is not",
  contains: "contains",
  matches: "matches (regex)",
  changed: "changed",
  changed_to: "changed to",
  dropped_by_percent: "dropped by % at least",
  rose_by_percent: "rose by % at least",
  appeared: "appeared",
  disappeared: "disappeared",
};
const NO_OPERAND: ReadonlySet<Op> = new Set(["changed", "appeared", "disappeared"]);
const NUMERIC_OPS: ReadonlySet<Op> = new Set(["lt", "lte", "gt", "gte", "dropped_by_percent", "rose_by_percent"]);

/** The operand as typed, as the API takes it: a number for numeric ops and numeric values, else text (or a boolean). */
export function operand(op: Op, text: string, kind: "number" | "text" | "availability" | "severity" | "any"): number | string | boolean | undefined {
  if (NO_OPERAND.has(op)) return undefined;
  const t = text.trim();
  if (kind === "severity" || kind === "availability" || op === "contains" || op === "matches") return text;
  if (NUMERIC_OPS.has(op)) return t === "" ? Number.NaN : Number(t);
  if (kind === "number") return t !== "" && Number.isFinite(Number(t)) ? Number(t) : text;
  if (t === "true" || t === "false") return t === "true";
  return t !== "" && Number.isFinite(Number(t)) ? Number(t) : text;
}

function kindOf(value: string, track: readonly TrackSpec[]): "number" | "text" | "availability" | "severity" | "any" {
  if (value === "diff.topSeverity") return "severity";
  if (value === "text") return "text";
  const spec = track.find((s) => s.name === value);
  if (spec?.extract === "availability") return "availability";
  if (spec?.extract === "number" || spec?.extract === "price") return "number";
  if (spec?.extract === "text" || spec?.extract === "attribute") return "text";
  return "any";
}

interface ConditionRow {
  value: string;
  op: Op;
  to: string;
  forChecks: string;
}

const toRow = (c: Condition): ConditionRow => ({ value: c.value, op: c.op, to: c.to === undefined ? "" : String(c.to), forChecks: c.forChecks ? String(c.forChecks) : "" });

export function AlertsPage(): ReactNode {
  const { monitorId = "" } = useParams();
  const monitor = useMonitor(monitorId);
  const tracking = useTracking(monitorId);
  if (monitor.isPending || tracking.isPending) return <Loading what="the monitor's alerts" />;
  if (monitor.isError) return <ErrorState error={monitor.error} retry={() => void monitor.refetch()} />;
  if (tracking.isError) return <ErrorState error={tracking.error} retry={() => void tracking.refetch()} />;
  return <AlertsEditor monitorId={monitorId} name={monitor.data.name} type={monitor.data.type} saved={tracking.data} />;
}

function AlertsEditor({ monitorId, name, type, saved }: { monitorId: string; name: string; type: "api" | "website" | "openapi"; saved: TrackingSettings }): ReactNode {
  const canWrite = useCan("monitors:write");
  const save = useSaveTracking(monitorId);
  const [track, setTrack] = useState<TrackSpec[]>(saved.track ?? []);
  const [when, setWhen] = useState<"all" | "any">(saved.alert?.when ?? "all");
  const [rows, setRows] = useState<ConditionRow[]>((saved.alert?.conditions ?? []).map(toRow));
  const [notice, setNotice] = useState<string | null>(null);
  const names = [...track.map((s) => s.name).filter((n) => n !== ""), "text", "diff.topSeverity"];
  const alert: Alert | null = rows.length === 0 ? null : { when, conditions: rows.map((r) => toCondition(r, track)) };
  const setRow = (i: number, patch: Partial<ConditionRow>): void => setRows((old) => old.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const setSpec = (i: number, patch: Partial<TrackSpec>): void => setTrack((old) => old.map((s, j) => (j === i ? { ...s, ...patch } : s)));

  return (
    <Page title={`Alerts of ${name}`}>
      <p>
        <Link to={`/monitors/${monitorId}`}>← {name}</Link>
      </p>
      <p className="muted">
        Without conditions every change alerts (webhooks and notification channels). With conditions, a check alerts only when they hold; the diff is recorded either way.
      </p>
      <form
        className="form card"
        aria-label="Tracked values and conditions"
        onSubmit={(e) => {
          e.preventDefault();
          setNotice(null);
          save.mutate({ track: track.map(cleanSpec), alert }, { onSuccess: () => setNotice("Saved. The next checks alert only when the conditions hold.") });
        }}
      >
        <fieldset>
          <legend>Tracked values</legend>
          {track.length === 0 ? <p className="hint">None. A value is recorded on each check; conditions and charts use it.</p> : null}
          {track.map((spec, i) => (
            <div className="track-row" key={i}>
              <label>
                Name
                <input value={spec.name} onChange={(e) => setSpec(i, { name: e.target.value })} />
              </label>
              <label>
                {type !== "website" ? "JSONPath" : "Selector (optional for price and availability)"}
                <input
                  value={(type !== "website" ? spec.path : spec.selector) ?? ""}
                  placeholder={type !== "website" ? "$.price" : "#price"}
                  onChange={(e) => setSpec(i, type !== "website" ? { path: e.target.value } : { selector: e.target.value })}
                />
              </label>
              <label>
                Read
                <select value={spec.extract ?? ""} onChange={(e) => setSpec(i, { extract: e.target.value === "" ? undefined : (e.target.value as Extract) })}>
                  <option value="">{type !== "website" ? "the JSON value" : "text"}</option>
                  {EXTRACTS.map((x) => (
                    <option key={x}>{x}</option>
                  ))}
                </select>
              </label>
              {spec.extract === "attribute" ? (
                <label>
                  Attribute
                  <input value={spec.attribute ?? ""} onChange={(e) => setSpec(i, { attribute: e.target.value })} />
                </label>
              ) : null}
              <button type="button" onClick={() => setTrack((old) => old.filter((_, j) => j !== i))}>
                Remove<span className="sr-only"> tracked value {spec.name}</span>
              </button>
            </div>
          ))}
          <button type="button" onClick={() => setTrack((old) => [...old, { name: "", ...(type === "website" ? { extract: "price" as const } : {}) }])}>
            Track a value
          </button>
        </fieldset>
        <fieldset>
          <legend>Alert when</legend>
          <label htmlFor="a-when">Conditions that must hold</label>
          <select id="a-when" value={when} onChange={(e) => setWhen(e.target.value as "all" | "any")}>
            <option value="all">all of them</option>
            <option value="any">any of them</option>
          </select>
          {rows.length === 0 ? <p className="hint">No conditions: every change alerts.</p> : null}
          <ol className="condition-list">
            {rows.map((row, i) => {
              const kind = kindOf(row.value, track);
              const id = `cond-${String(i)}`;
              return (
                <li key={i} className="condition">
                  <label htmlFor={`${id}-value`}>Condition {i + 1}</label>
                  <select id={`${id}-value`} value={row.value} onChange={(e) => setRow(i, { value: e.target.value })}>
                    {names.includes(row.value) ? null : <option value={row.value}>{row.value} (not tracked)</option>}
                    {names.map((n) => (
                      <option key={n} value={n}>
                        {n === "text" ? "the selected text" : n === "diff.topSeverity" ? "the change's severity" : n}
                      </option>
                    ))}
                  </select>
                  <label htmlFor={`${id}-op`} className="sr-only">
                    Operator of condition {i + 1}
                  </label>
                  <select id={`${id}-op`} value={row.op} onChange={(e) => setRow(i, { op: e.target.value as Op })}>
                    {OPS.map((op) => (
                      <option key={op} value={op}>
                        {OP_LABELS[op]}
                      </option>
                    ))}
                  </select>
                  {NO_OPERAND.has(row.op) ? null : (
                    <>
                      <label htmlFor={`${id}-to`} className="sr-only">
                        Value of condition {i + 1}
                      </label>
                      {kind === "availability" || kind === "severity" ? (
                        <select id={`${id}-to`} value={row.to} onChange={(e) => setRow(i, { to: e.target.value })}>
                          <option value="">choose…</option>
                          {(kind === "availability" ? AVAILABILITIES : (SEVERITIES as readonly Severity[])).map((a) => (
                            <option key={a}>{a}</option>
                          ))}
                        </select>
                      ) : (
                        <input id={`${id}-to`} value={row.to} inputMode={NUMERIC_OPS.has(row.op) ? "decimal" : undefined} onChange={(e) => setRow(i, { to: e.target.value })} />
                      )}
                    </>
                  )}
                  <label htmlFor={`${id}-for`}>for checks in a row</label>
                  <input id={`${id}-for`} type="number" min={1} max={1000} value={row.forChecks} placeholder="1" onChange={(e) => setRow(i, { forChecks: e.target.value })} />
                  <button type="button" onClick={() => setRows((old) => old.filter((_, j) => j !== i))}>
                    Remove<span className="sr-only"> condition {i + 1}</span>
                  </button>
                </li>
              );
            })}
          </ol>
          <button type="button" onClick={() => setRows((old) => [...old, { value: names[0]!, op: names[0] === "text" ? "contains" : "lt", to: "", forChecks: "" }])}>
            Add a condition
          </button>
        </fieldset>
        <MutationError error={save.error} />
        <div aria-live="polite">{notice ? <p className="state ok">{notice}</p> : null}</div>
        {canWrite ? (
          <button type="submit" className="primary" disabled={save.isPending}>
            {save.isPending ? "Saving…" : "Save"}
          </button>
        ) : null}
      </form>
      <h2>Would have alerted</h2>
      {alert ? <AlertPreview monitorId={monitorId} alert={alert} names={(saved.track ?? []).map((s) => s.name)} /> : <p className="muted">No conditions: every recorded change alerted.</p>}
      {(saved.track ?? []).length > 0 ? (
        <>
          <h2>Tracked values</h2>
          <TrackedValues monitorId={monitorId} track={saved.track ?? []} />
        </>
      ) : null}
    </Page>
  );
}

function toCondition(row: ConditionRow, track: readonly TrackSpec[]): Condition {
  const to = operand(row.op, row.to, kindOf(row.value, track));
  const forChecks = row.forChecks.trim() === "" ? undefined : Number(row.forChecks);
  return { value: row.value, op: row.op, ...(to === undefined ? {} : { to }), ...(forChecks === undefined ? {} : { forChecks }) };
}

function cleanSpec(spec: TrackSpec): TrackSpec {
  const out: TrackSpec = { name: spec.name.trim() };
  if (spec.path?.trim()) out.path = spec.path.trim();
  if (spec.selector?.trim()) out.selector = spec.selector.trim();
  if (spec.extract) out.extract = spec.extract;
  if (spec.extract === "attribute" && spec.attribute?.trim()) out.attribute = spec.attribute.trim();
  return out;
}

/**
 * Joins the values' histories into past checks, oldest first. A check is its time (`at`): checks
 * that found no new content share their `snapshotId`, so a diff's severity goes to the first check
 * of its snapshot only (the check that recorded the diff).
 */
export function pastChecks(histories: ReadonlyArray<readonly [string, readonly ValuePoint[]]>, severities: ReadonlyMap<string, Severity>): PastCheck[] {
  const byCheck = new Map<string, PastCheck>();
  for (const [name, points] of histories) {
    for (const p of points) {
      let check = byCheck.get(p.at);
      if (!check) {
        check = { at: p.at, snapshotId: p.snapshotId, values: {}, reasons: {}, topSeverity: null };
        byCheck.set(p.at, check);
      }
      check.values[name] = p.value;
      if (p.value === null && p.reason) check.reasons![name] = p.reason;
    }
  }
  const checks = [...byCheck.values()].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  const seen = new Set<string>();
  for (const check of checks) {
    if (check.snapshotId === null || seen.has(check.snapshotId)) continue;
    seen.add(check.snapshotId);
    check.topSeverity = severities.get(check.snapshotId) ?? null;
  }
  return checks;
}

/** Which of the monitor's past checks the edited conditions would have alerted on, as you type. */
function AlertPreview({ monitorId, alert, names }: { monitorId: string; alert: Alert; names: readonly string[] }): ReactNode {
  const client = useClient();
  const used = names.filter((n) => alert.conditions.some((c) => c.value === n));
  const histories = useValueHistories(monitorId, used);
  const diffs = useQuery({
    queryKey: [...monitorKeys.diffs(monitorId), "severities"],
    queryFn: async () => (await client.diffs.list(monitorId, { limit: 100 })).data,
    enabled: alert.conditions.some((c) => c.value === "diff.topSeverity"),
  });
  const loading = histories.some((h) => h.isPending);
  const failed = histories.find((h) => h.isError);
  const data = histories.map((h) => h.data);
  // cheap (at most 200 checks of 20 conditions): computed on each edit, so the preview follows the typing
  const severities = new Map((diffs.data ?? []).map((d) => [d.snapshotId, d.topSeverity] as const));
  const entries = data.some((d) => d === undefined) ? [] : previewAlert(alert, pastChecks(used.map((n, i) => [n, data[i]!] as const), severities));
  if (used.length === 0) return <p className="muted">The conditions name no recorded value yet: save tracked values and let the monitor check to see a preview.</p>;
  if (loading) return <Loading what="the history" />;
  if (failed) return <ErrorState error={failed.error} />;
  if (entries.length === 0) return <EmptyState title="No history yet">The tracked values have not been recorded yet.</EmptyState>;
  const alerted = entries.filter((e) => e.alerted);
  const newest = [...entries].reverse().slice(0, 50);
  return (
    <div className="alert-preview" aria-live="polite">
      <p>
        <strong>
          {alerted.length} of {entries.length} past checks
        </strong>{" "}
        would have alerted.
      </p>
      <ol className="preview-checks" aria-label="Past checks, newest first">
        {newest.map((e, i) => (
          <li key={i} className={e.alerted ? "alerted" : e.matched ? "held" : undefined}>
            <span className={`tag ${e.alerted ? "state-failed" : ""}`}>{e.alerted ? "alert" : e.matched ? "still holds" : "quiet"}</span> <RelativeTime value={e.check.at} />
            <ul>
              {e.results.map((r) => (
                <li key={r.index}>
                  {r.matched ? "✓" : "✗"} <span className="break">{r.reason}</span>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ol>
    </div>
  );
}
