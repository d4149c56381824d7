import type { Severity } from "@driftwatch/client";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState, type ReactNode } from "react";
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

/** Wait after the last edit before asking the server (the preview counts against the write rate limit). */
export const PREVIEW_DEBOUNCE_MS = 600;
/** Past checks the server replays. */
const PREVIEW_CHECKS = 200;

/** One past check of the preview, newest first, from the server or from the browser's evaluation. */
interface PreviewRow {
  at: string;
  matched: boolean;
  alerted: boolean;
  results: ReadonlyArray<{ index: number; matched: boolean; reason: string }>;
}

type ServerPreview =
  | { state: "idle" | "loading" }
  | { state: "done"; key: string; rows: PreviewRow[]; alerts: number }
  | { state: "invalid"; key: string; error: unknown }
  | { state: "unavailable"; error: unknown };

/**
 * The server's preview (`POST /api/monitors/{id}/alert/preview`) of `alert`, asked 600 ms after the
 * last edit with at most one request in flight (the newest conditions are sent when it returns).
 * A 422 is the conditions' fault (shown by place); any other failure (an older server without the
 * route, the rate limit, the network) makes the page evaluate in the browser from then on.
 */
function useServerPreview(monitorId: string, alert: Alert, enabled: boolean): ServerPreview & { pending: boolean } {
  const client = useClient();
  const key = JSON.stringify(alert);
  const [preview, setPreview] = useState<ServerPreview>({ state: "idle" });
  const wanted = useRef(key);
  const inFlight = useRef(false);
  const mounted = useRef(true);
  const first = useRef(true);
  const send = useRef<() => void>(() => undefined);
  send.current = () => {
    if (inFlight.current || !mounted.current) return;
    const asked = wanted.current;
    inFlight.current = true;
    setPreview((old) => (old.state === "idle" ? { state: "loading" } : old));
    client.monitors.previewAlert(monitorId, { alert: JSON.parse(asked) as Alert, limit: PREVIEW_CHECKS }).then(
      (answer) => {
        inFlight.current = false;
        if (!mounted.current) return;
        if (!Array.isArray(answer.checks)) return void setPreview({ state: "unavailable", error: new Error("an answer without checks") });
        setPreview({ state: "done", key: asked, rows: answer.checks, alerts: answer.alerts });
        if (wanted.current !== asked) send.current();
      },
      (error: unknown) => {
        inFlight.current = false;
        if (!mounted.current) return;
        if ((error as { status?: number }).status === 422) {
          setPreview({ state: "invalid", key: asked, error });
          if (wanted.current !== asked) send.current();
        } else setPreview({ state: "unavailable", error });
      },
    );
  };
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  useEffect(() => {
    wanted.current = key;
    if (!enabled || preview.state === "unavailable") return;
    // the page's first preview at once, the next ones when the typing pauses
    const timer = setTimeout(() => send.current(), first.current ? 0 : PREVIEW_DEBOUNCE_MS);
    first.current = false;
    return () => clearTimeout(timer);
  }, [key, enabled, preview.state === "unavailable"]); // eslint-disable-line react-hooks/exhaustive-deps
  const answered = preview.state === "done" || preview.state === "invalid" ? preview.key : null;
  return { ...preview, pending: preview.state === "loading" || (answered !== null && answered !== key) };
}

/**
 * Which of the monitor's past checks the edited conditions would have alerted on, as you type: the
 * server replays them (the same evaluator as the checks). Conditions on the change's severity are
 * evaluated in the browser, from the diffs' severities: the server's preview does not replay
 * them. So is everything when the server's preview cannot answer (see `useServerPreview`).
 */
function AlertPreview({ monitorId, alert, names }: { monitorId: string; alert: Alert; names: readonly string[] }): ReactNode {
  const used = names.filter((n) => alert.conditions.some((c) => c.value === n));
  const bySeverity = alert.conditions.some((c) => c.value === "diff.topSeverity");
  const server = useServerPreview(monitorId, alert, used.length > 0 && !bySeverity);
  const inBrowser = used.length > 0 && (bySeverity || server.state === "unavailable");
  if (used.length === 0) return <p className="muted">The conditions name no recorded value yet: save tracked values and let the monitor check to see a preview.</p>;
  if (inBrowser)
    return (
      <>
        <p className="hint preview-source">
          {bySeverity
            ? "Evaluated in your browser: the server's preview does not replay the changes' severities."
            : `Evaluated in your browser: the server's preview is not available (${errorText(server.state === "unavailable" ? server.error : null)}).`}
        </p>
        <BrowserPreview monitorId={monitorId} alert={alert} used={used} />
      </>
    );
  if (server.state === "idle" || server.state === "loading") return <Loading what="the preview" />;
  if (server.state === "invalid")
    return (
      <div aria-live="polite">
        <p className="muted">{server.pending ? "Updating…" : "The conditions cannot be previewed yet:"}</p>
        <MutationError error={server.error} />
      </div>
    );
  if (server.state !== "done") return null;
  return <PreviewList rows={server.rows} alerts={server.alerts} pending={server.pending} />;
}

function errorText(error: unknown): string {
  const e = error as { status?: number; message?: string } | null;
  if (e?.status === 429) return "too many requests, try again in a minute";
  if (e?.status !== undefined) return `HTTP ${String(e.status)}`;
  return e?.message ?? "no answer";
}

/** The browser's evaluation over the values' histories (and the diffs' severities when a condition reads them). */
function BrowserPreview({ monitorId, alert, used }: { monitorId: string; alert: Alert; used: readonly string[] }): ReactNode {
  const client = useClient();
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
  if (loading) return <Loading what="the history" />;
  if (failed) return <ErrorState error={failed.error} />;
  const rows: PreviewRow[] = [...entries].reverse().map((e) => ({ at: e.check.at, matched: e.matched, alerted: e.alerted, results: e.results }));
  return <PreviewList rows={rows} alerts={entries.filter((e) => e.alerted).length} pending={false} />;
}

function PreviewList({ rows, alerts, pending }: { rows: readonly PreviewRow[]; alerts: number; pending: boolean }): ReactNode {
  if (rows.length === 0) return <EmptyState title="No history yet">The tracked values have not been recorded yet.</EmptyState>;
  const newest = rows.slice(0, 50);
  return (
    <div className="alert-preview" aria-live="polite" aria-busy={pending}>
      <p>
        <strong>
          {alerts} of {rows.length} past checks
        </strong>{" "}
        would have alerted.{pending ? <span className="muted"> Updating…</span> : null}
      </p>
      <ol className="preview-checks" aria-label="Past checks, newest first">
        {newest.map((e, i) => (
          <li key={i} className={e.alerted ? "alerted" : e.matched ? "held" : undefined}>
            <span className={`tag ${e.alerted ? "state-failed" : ""}`}>{e.alerted ? "alert" : e.matched ? "still holds" : "quiet"}</span> <RelativeTime value={e.at} />
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
