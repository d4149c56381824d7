import type { ReactNode } from "react";
import { RelativeTime } from "../../ui/RelativeTime";
import { ErrorState, Loading } from "../../ui/states";
import { AVAILABILITIES, useValues, type Availability, type Price, type TrackSpec, type TrackedValue, type ValuePoint } from "./api";
import { showValue } from "./evaluate";

const W = 600;
const H = 140;
const PAD = 6;

const isPrice = (v: TrackedValue | null): v is Price => typeof v === "object" && v !== null && typeof (v as Price).amount === "number";
const amount = (v: TrackedValue | null): number | null => (typeof v === "number" ? v : isPrice(v) ? v.amount : null);
const isAvailability = (v: TrackedValue | null): v is Availability => typeof v === "string" && (AVAILABILITIES as readonly string[]).includes(v);

const AVAILABILITY_LABEL: Record<Availability, string> = { in_stock: "in stock", out_of_stock: "out of stock", preorder: "preorder", unknown: "unknown" };

function format(v: TrackedValue | null): string {
  if (v === null) return "missing";
  if (isAvailability(v)) return AVAILABILITY_LABEL[v];
  if (isPrice(v)) return v.currency ? new Intl.NumberFormat(undefined, { style: "currency", currency: v.currency }).format(v.amount) : String(v.amount);
  return typeof v === "string" ? showValue(v) : String(v);
}

/** The kind of chart a value's history takes: a line (numbers, prices), a band (availability), else a list. */
export function chartKind(spec: TrackSpec, points: readonly ValuePoint[]): "line" | "band" | "list" {
  if (spec.extract === "availability" || (points.length > 0 && points.every((p) => p.value === null || isAvailability(p.value)) && points.some((p) => p.value !== null))) return "band";
  if (spec.extract === "price" || spec.extract === "number" || (points.some((p) => p.value !== null) && points.every((p) => p.value === null || amount(p.value) !== null))) return "line";
  return "list";
}

/** Min, max and last of the numeric points (oldest first). */
export function stats(points: readonly ValuePoint[]): { min: ValuePoint; max: ValuePoint; last: ValuePoint } | null {
  const numeric = points.filter((p) => amount(p.value) !== null);
  if (numeric.length === 0) return null;
  let min = numeric[0]!;
  let max = numeric[0]!;
  for (const p of numeric) {
    if (amount(p.value)! < amount(min.value)!) min = p;
    if (amount(p.value)! > amount(max.value)!) max = p;
  }
  return { min, max, last: points[points.length - 1]! };
}

function Line({ points }: { points: readonly ValuePoint[] }): ReactNode {
  const s = stats(points)!;
  const lo = amount(s.min.value)!;
  const hi = amount(s.max.value)!;
  const t0 = Date.parse(points[0]!.at);
  const t1 = Date.parse(points[points.length - 1]!.at);
  const x = (at: string): number => (t1 === t0 ? W / 2 : PAD + ((Date.parse(at) - t0) / (t1 - t0)) * (W - 2 * PAD));
  const y = (v: number): number => (hi === lo ? H / 2 : H - PAD - ((v - lo) / (hi - lo)) * (H - 2 * PAD));
  // a gap where the value was missing
  const segments: string[] = [];
  let current = "";
  for (const p of points) {
    const v = amount(p.value);
    if (v === null) {
      if (current) segments.push(current);
      current = "";
      continue;
    }
    current += `${current ? "L" : "M"}${x(p.at).toFixed(1)},${y(v).toFixed(1)}`;
  }
  if (current) segments.push(current);
  return (
    <svg className="value-chart" viewBox={`0 0 ${String(W)} ${String(H)}`} preserveAspectRatio="none" aria-hidden="true">
      {segments.map((d, i) => (
        <path key={i} d={d} className="value-line" vectorEffect="non-scaling-stroke" />
      ))}
      {points
        .filter((p) => amount(p.value) !== null)
        .map((p, i) => (
          <circle key={i} cx={x(p.at)} cy={y(amount(p.value)!)} r={2.5} className="value-dot" />
        ))}
    </svg>
  );
}

function Band({ points }: { points: readonly ValuePoint[] }): ReactNode {
  const t0 = Date.parse(points[0]!.at);
  const t1 = Date.parse(points[points.length - 1]!.at);
  const span = Math.max(1, t1 - t0);
  const x = (at: string): number => ((Date.parse(at) - t0) / span) * W;
  return (
    <svg className="value-band" viewBox={`0 0 ${String(W)} 28`} preserveAspectRatio="none" aria-hidden="true">
      {points.map((p, i) => {
        const start = points.length === 1 ? 0 : x(p.at);
        const end = i + 1 < points.length ? x(points[i + 1]!.at) : W;
        const state = isAvailability(p.value) ? p.value : "unknown";
        return <rect key={i} x={start} y={0} width={Math.max(end - start, 1)} height={28} className={`band-${state}`} />;
      })}
    </svg>
  );
}

/** One tracked value over time: a line for numbers and prices, a band for availability; min, max and last. */
export function ValueChart({ monitorId, spec }: { monitorId: string; spec: TrackSpec }): ReactNode {
  const values = useValues(monitorId, spec.name);
  if (values.isPending) return <Loading what={`the values of ${spec.name}`} />;
  if (values.isError) return <ErrorState error={values.error} retry={() => void values.refetch()} />;
  const points = [...values.data].reverse();
  const kind = chartKind(spec, points);
  const s = kind === "line" ? stats(points) : null;
  const last = points[points.length - 1];
  return (
    <figure className="value card" aria-labelledby={`value-${spec.name}`}>
      <figcaption id={`value-${spec.name}`}>
        <strong>{spec.name}</strong> <span className="muted">({points.length} checks)</span>
      </figcaption>
      {points.length === 0 ? (
        <p className="muted">Not recorded yet: the next check records it.</p>
      ) : (
        <>
          {kind === "line" && s ? <Line points={points} /> : null}
          {kind === "band" ? (
            <>
              <Band points={points} />
              <p className="band-legend" aria-hidden="true">
                {AVAILABILITIES.map((a) => (
                  <span key={a} className={`band-key band-${a}`}>
                    {AVAILABILITY_LABEL[a]}
                  </span>
                ))}
              </p>
            </>
          ) : null}
          <dl className="summary compact value-stats">
            {s ? (
              <>
                <div>
                  <dt>Min</dt>
                  <dd>{format(s.min.value)}</dd>
                </div>
                <div>
                  <dt>Max</dt>
                  <dd>{format(s.max.value)}</dd>
                </div>
              </>
            ) : null}
            <div>
              <dt>Last</dt>
              <dd>
                {format(last!.value)} <RelativeTime value={last!.at} />
              </dd>
            </div>
          </dl>
          {kind === "band" ? (
            <p className="sr-only">
              {points.map((p) => `${format(p.value)} at ${p.at}`).join("; ")}
            </p>
          ) : null}
        </>
      )}
    </figure>
  );
}

/** The charts of every tracked value of a monitor. */
export function TrackedValues({ monitorId, track }: { monitorId: string; track: readonly TrackSpec[] }): ReactNode {
  return (
    <div className="values-grid">
      {track.map((spec) => (
        <ValueChart key={spec.name} monitorId={monitorId} spec={spec} />
      ))}
    </div>
  );
}
