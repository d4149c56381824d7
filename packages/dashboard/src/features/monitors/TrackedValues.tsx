import type { Alert, Condition, Monitor, Settings, TrackedValue, TrackedValueReading, TrackedValueSpec } from "@driftwatch/client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { useClient } from "../../api/context";
import { monitorKeys } from "../../api/keys";
import { useCan } from "../../auth/session-context";
import { ErrorState, Loading } from "../../ui/states";

/** Readings a chart shows (the newest). */
export const CHART_READINGS = 100;

const AVAILABILITY_LABEL: Record<string, string> = { in_stock: "in stock", out_of_stock: "out of stock", preorder: "preorder", unknown: "unknown" };

/** A number for the chart: a number, or a price's amount; null for anything else. */
export function numericValue(value: TrackedValue | null): number | null {
  if (typeof value === "number") return value;
  if (value !== null && typeof value === "object" && typeof value.amount === "number") return value.amount;
  return null;
}

/** A reading as text: `189 EUR`, `in stock`, `"degraded"`, `missing`. */
export function formatValue(value: TrackedValue | null): string {
  if (value === null) return "missing";
  if (typeof value === "object") return value.currency === null ? String(value.amount) : `${String(value.amount)} ${value.currency}`;
  if (typeof value === "string") return AVAILABILITY_LABEL[value] ?? value;
  return String(value);
}

/** Min, max and last of the numeric readings (newest first), or null when none is numeric. */
export function valueStats(readings: readonly TrackedValueReading[]): { min: number; max: number; last: number } | null {
  const numbers = readings.map((r) => numericValue(r.value)).filter((n): n is number => n !== null);
  if (numbers.length === 0) return null;
  return { min: Math.min(...numbers), max: Math.max(...numbers), last: numbers[0]! };
}

/** The conditions as one sentence: `stock = "in_stock" and price < 200`. */
export function describeAlert(alert: Alert): string {
  const ops: Record<string, string> = { lt: "<", lte: "≤", gt: ">", gte: "≥", eq: "=", ne: "≠" };
  const parts = alert.conditions.map((c) => {
    const op = ops[c.op] ?? c.op.replaceAll("_", " ");
    const to = c.to === undefined ? "" : ` ${typeof c.to === "string" ? JSON.stringify(c.to) : String(c.to)}`;
    const times = c.forChecks !== undefined && c.forChecks > 1 ? ` for ${String(c.forChecks)} checks` : "";
    return `${c.value} ${op}${to}${times}`;
  });
  return parts.join(alert.when === "any" ? " or " : " and ");
}

/** The settings a preset sends: the price and availability tracked (added when missing) and the preset's conditions. */
export function presetSettings(settings: Settings, preset: { kind: "restock" } | { kind: "price-below"; amount: number }): { track: TrackedValueSpec[]; alert: Alert } {
  const track = [...settings.track];
  const nameFor = (extract: "price" | "availability", fallback: string): string => {
    const existing = track.find((spec) => spec.extract === extract && spec.selector === undefined && spec.path === undefined);
    if (existing) return existing.name;
    let name = fallback;
    for (let i = 2; track.some((spec) => spec.name === name); i++) name = `${fallback}${String(i)}`;
    track.push({ name, extract });
    return name;
  };
  if (preset.kind === "restock") {
    const stock = nameFor("availability", "stock");
    return { track, alert: { when: "all", conditions: [{ value: stock, op: "eq", to: "in_stock" }] } };
  }
  const price = nameFor("price", "price");
  return { track, alert: { when: "all", conditions: [{ value: price, op: "lt", to: preset.amount }] } };
}

const OPS: Condition["op"][] = ["lt", "lte", "gt", "gte", "eq", "ne", "contains", "matches", "changed", "changed_to", "dropped_by_percent", "rose_by_percent", "appeared", "disappeared"];
const NO_OPERAND = new Set<string>(["changed", "appeared", "disappeared"]);
const NUMERIC_OPS = new Set<string>(["lt", "lte", "gt", "gte", "dropped_by_percent", "rose_by_percent"]);

/** One row of the condition editor, as typed. */
export interface DraftCondition {
  value: string;
  op: Condition["op"];
  to: string;
  forChecks: string;
}

/** A typed row as the API takes it: `to` a number for numbers and prices (and order ops), else the text. */
export function conditionOf(draft: DraftCondition, track: readonly TrackedValueSpec[]): Condition {
  const condition: Condition = { value: draft.value, op: draft.op };
  if (!NO_OPERAND.has(draft.op)) {
    const spec = track.find((t) => t.name === draft.value);
    const numeric = draft.value !== "diff.topSeverity" && (NUMERIC_OPS.has(draft.op) || spec?.extract === "number" || spec?.extract === "price");
    const number = Number(draft.to.replace(",", "."));
    condition.to = numeric && draft.to.trim() !== "" && Number.isFinite(number) ? number : draft.to === "true" ? true : draft.to === "false" ? false : draft.to;
  }
  const times = Number(draft.forChecks);
  if (draft.forChecks.trim() !== "" && Number.isInteger(times) && times > 1) condition.forChecks = times;
  return condition;
}

function draftOf(condition: Condition): DraftCondition {
  return { value: condition.value, op: condition.op, to: condition.to === undefined ? "" : String(condition.to), forChecks: condition.forChecks === undefined ? "" : String(condition.forChecks) };
}

/**
 * Edits the alert conditions, previewing them live on the monitor's recorded values
 * (`POST /api/monitors/{id}/alert/preview`): which past checks they would have alerted on.
 */
function ConditionEditor({ monitorId, settings, onSave }: { monitorId: string; settings: Settings; onSave: (alert: Alert | null) => void }): ReactNode {
  const client = useClient();
  const names = [...settings.track.map((t) => t.name), "text", "diff.topSeverity"];
  const [when, setWhen] = useState<"all" | "any">(settings.alert?.when ?? "all");
  const [rows, setRows] = useState<DraftCondition[]>(settings.alert?.conditions.map(draftOf) ?? [{ value: names[0]!, op: "lt", to: "", forChecks: "" }]);
  const alert: Alert = { when, conditions: rows.map((row) => conditionOf(row, settings.track)) };
  const preview = useQuery({
    queryKey: [...monitorKeys.detail(monitorId), "alert-preview", JSON.stringify(alert)],
    queryFn: async () => await client.monitors.previewAlert(monitorId, { alert, limit: CHART_READINGS }),
    retry: false,
  });
  const update = (index: number, patch: Partial<DraftCondition>): void => setRows(rows.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  return (
    <form
      className="condition-editor"
      aria-label="Alert conditions"
      onSubmit={(event) => {
        event.preventDefault();
        onSave(alert);
      }}
    >
      <label>
        Alert when{" "}
        <select value={when} onChange={(event) => setWhen(event.target.value as "all" | "any")} aria-label="When">
          <option value="all">all of</option>
          <option value="any">any of</option>
        </select>{" "}
        these hold:
      </label>
      {rows.map((row, index) => (
        <div className="condition-row" key={index}>
          <select aria-label={`Value ${String(index + 1)}`} value={row.value} onChange={(event) => update(index, { value: event.target.value })}>
            {names.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
          <select aria-label={`Operator ${String(index + 1)}`} value={row.op} onChange={(event) => update(index, { op: event.target.value as Condition["op"] })}>
            {OPS.map((op) => (
              <option key={op} value={op}>
                {op.replaceAll("_", " ")}
              </option>
            ))}
          </select>
          {NO_OPERAND.has(row.op) ? null : <input aria-label={`Operand ${String(index + 1)}`} value={row.to} size={10} onChange={(event) => update(index, { to: event.target.value })} />}
          <input aria-label={`For checks ${String(index + 1)}`} placeholder="checks" inputMode="numeric" value={row.forChecks} size={4} onChange={(event) => update(index, { forChecks: event.target.value })} />
          <button type="button" onClick={() => setRows(rows.filter((_, i) => i !== index))} disabled={rows.length === 1} aria-label={`Remove condition ${String(index + 1)}`}>
            Remove
          </button>
        </div>
      ))}
      <p>
        <button type="button" onClick={() => setRows([...rows, { value: names[0]!, op: "changed", to: "", forChecks: "" }])}>
          Add a condition
        </button>{" "}
        <button type="submit" className="primary">
          Save conditions
        </button>{" "}
        {settings.alert !== null ? (
          <button type="button" onClick={() => onSave(null)}>
            Remove all conditions
          </button>
        ) : null}
      </p>
      <div role="status" aria-label="Preview">
        {preview.isPending ? (
          <span className="muted">Previewing…</span>
        ) : preview.isError ? (
          <ErrorState error={preview.error} />
        ) : (
          <p>
            On the last {preview.data.checks.length} checks these conditions would have alerted {preview.data.alerts} {preview.data.alerts === 1 ? "time" : "times"}
            {preview.data.alerts > 0 ? `: ${preview.data.checks.filter((c) => c.alerted).map((c) => new Date(c.at).toLocaleString()).join(", ")}` : ""}.
          </p>
        )}
      </div>
    </form>
  );
}

/** A line of the numeric readings, oldest left; a band of availability states. */
function Chart({ readings, name }: { readings: TrackedValueReading[]; name: string }): ReactNode {
  const oldestFirst = [...readings].reverse();
  const width = 320;
  const height = 60;
  if (oldestFirst.some((r) => typeof r.value === "string" && r.value in AVAILABILITY_LABEL)) {
    const step = width / Math.max(1, oldestFirst.length);
    return (
      <svg className="value-chart" viewBox={`0 0 ${String(width)} 16`} role="img" aria-label={`${name} over the last ${String(oldestFirst.length)} checks`}>
        {oldestFirst.map((r, i) => (
          <rect key={`${r.at}-${String(i)}`} x={i * step} y={0} width={Math.max(1, step)} height={16} className={`band-${typeof r.value === "string" ? r.value : "missing"}`}>
            <title>{`${r.at}: ${formatValue(r.value)}`}</title>
          </rect>
        ))}
      </svg>
    );
  }
  const points = oldestFirst.map((r, i) => ({ i, n: numericValue(r.value) })).filter((p): p is { i: number; n: number } => p.n !== null);
  if (points.length === 0) return null;
  const min = Math.min(...points.map((p) => p.n));
  const max = Math.max(...points.map((p) => p.n));
  const x = (i: number): number => (oldestFirst.length === 1 ? width / 2 : (i / (oldestFirst.length - 1)) * width);
  const y = (n: number): number => (max === min ? height / 2 : height - 4 - ((n - min) / (max - min)) * (height - 8));
  return (
    <svg className="value-chart" viewBox={`0 0 ${String(width)} ${String(height)}`} role="img" aria-label={`${name} over the last ${String(oldestFirst.length)} checks`}>
      <polyline fill="none" stroke="currentColor" strokeWidth={2} points={points.map((p) => `${x(p.i).toFixed(1)},${y(p.n).toFixed(1)}`).join(" ")} />
    </svg>
  );
}

function ValueCard({ monitorId, spec }: { monitorId: string; spec: TrackedValueSpec }): ReactNode {
  const client = useClient();
  const readings = useQuery({
    queryKey: [...monitorKeys.detail(monitorId), "values", spec.name],
    queryFn: async () => (await client.monitors.values(monitorId, spec.name, { limit: CHART_READINGS })).data,
  });
  const stats = readings.data ? valueStats(readings.data) : null;
  return (
    <section className="card" aria-label={`Tracked value ${spec.name}`}>
      <h3>{spec.name}</h3>
      {readings.isPending ? (
        <Loading what={spec.name} />
      ) : readings.isError ? (
        <ErrorState error={readings.error} retry={() => void readings.refetch()} />
      ) : readings.data.length === 0 ? (
        <p className="muted">No reading yet: the next check records one.</p>
      ) : (
        <>
          <p>
            Last: <strong>{formatValue(readings.data[0]!.value)}</strong>
            {readings.data[0]!.value === null && readings.data[0]!.reason ? <span className="muted"> ({readings.data[0]!.reason})</span> : null}
            {stats ? (
              <span className="muted">
                {" "}
                · min {String(stats.min)} · max {String(stats.max)}
              </span>
            ) : null}
          </p>
          <Chart readings={readings.data} name={spec.name} />
        </>
      )}
    </section>
  );
}

/**
 * The monitor's tracked values (a chart of each over its recent checks, with min, max and last),
 * its alert conditions, and, for website monitors and members who may change them, the presets
 * "back in stock" and "price below".
 */
export function TrackedValues({ monitor }: { monitor: Monitor }): ReactNode {
  const client = useClient();
  const queryClient = useQueryClient();
  const canWrite = useCan("monitors:write");
  const [amount, setAmount] = useState("");
  const [editing, setEditing] = useState(false);
  const settings = useQuery({ queryKey: monitorKeys.settings(monitor.id), queryFn: async () => await client.settings.get(monitor.id) });
  const apply = useMutation({
    mutationFn: async (body: { track: TrackedValueSpec[]; alert: Alert }) => await client.settings.update(monitor.id, body),
    onSuccess: (updated) => {
      queryClient.setQueryData(monitorKeys.settings(monitor.id), updated);
      void queryClient.invalidateQueries({ queryKey: [...monitorKeys.detail(monitor.id), "values"] });
    },
  });
  const save = useMutation({
    mutationFn: async (alert: Alert | null) => await client.settings.update(monitor.id, { alert }),
    onSuccess: (updated) => queryClient.setQueryData(monitorKeys.settings(monitor.id), updated),
  });
  if (settings.isPending || settings.isError) return null;
  const s = settings.data;
  const presets = canWrite && monitor.type === "website";
  if (s.track.length === 0 && s.alert === null && !presets) return null;
  const below = Number(amount.replace(",", "."));
  return (
    <>
      <h2>Tracked values</h2>
      {s.alert !== null ? (
        <p>
          Alerts only when <strong>{describeAlert(s.alert)}</strong>.
        </p>
      ) : s.track.length > 0 ? (
        <p className="muted">No alert conditions: every change is sent.</p>
      ) : null}
      {s.track.length > 0 ? (
        <div className="cards">
          {s.track.map((spec) => (
            <ValueCard key={spec.name} monitorId={monitor.id} spec={spec} />
          ))}
        </div>
      ) : null}
      {presets ? (
        <div className="presets">
          <button type="button" disabled={apply.isPending} onClick={() => apply.mutate(presetSettings(s, { kind: "restock" }))}>
            Notify me when back in stock
          </button>
          <form
            onSubmit={(event) => {
              event.preventDefault();
              if (Number.isFinite(below) && amount.trim() !== "") apply.mutate(presetSettings(s, { kind: "price-below", amount: below }));
            }}
          >
            <label>
              When the price falls below <input inputMode="decimal" value={amount} onChange={(event) => setAmount(event.target.value)} aria-label="Price" size={8} />
            </label>{" "}
            <button type="submit" disabled={apply.isPending || amount.trim() === "" || !Number.isFinite(below)}>
              Notify me
            </button>
          </form>
        </div>
      ) : null}
      {canWrite && s.track.length > 0 ? (
        <div className="conditions">
          <button type="button" aria-expanded={editing} onClick={() => setEditing(!editing)}>
            {editing ? "Close the condition editor" : "Edit the alert conditions"}
          </button>
          {editing ? <ConditionEditor key={JSON.stringify(s.alert)} monitorId={monitor.id} settings={s} onSave={(alert) => save.mutate(alert)} /> : null}
        </div>
      ) : null}
      {apply.error ? <ErrorState error={apply.error} /> : null}
      {save.error ? <ErrorState error={save.error} /> : null}
    </>
  );
}
