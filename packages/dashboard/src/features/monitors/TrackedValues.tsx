import type { Alert, Monitor, Settings, TrackedValue, TrackedValueReading, TrackedValueSpec } from "@driftwatch/client";
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
  const settings = useQuery({ queryKey: monitorKeys.settings(monitor.id), queryFn: async () => await client.settings.get(monitor.id) });
  const apply = useMutation({
    mutationFn: async (body: { track: TrackedValueSpec[]; alert: Alert }) => await client.settings.update(monitor.id, body),
    onSuccess: (updated) => {
      queryClient.setQueryData(monitorKeys.settings(monitor.id), updated);
      void queryClient.invalidateQueries({ queryKey: [...monitorKeys.detail(monitor.id), "values"] });
    },
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
      {apply.error ? <ErrorState error={apply.error} /> : null}
    </>
  );
}
