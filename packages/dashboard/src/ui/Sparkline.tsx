import type { ReactNode } from "react";

/**
 * How many of `times` (ISO timestamps) fall on each of the last `days` days, oldest first; the last
 * entry is the 24 hours before `now`.
 */
export function countPerDay(times: readonly string[], now: number, days: number): number[] {
  const counts = new Array<number>(days).fill(0);
  for (const time of times) {
    const age = now - Date.parse(time);
    if (!(age >= 0)) continue;
    const day = Math.floor(age / 86_400_000);
    if (day < days) counts[days - 1 - day]! += 1;
  }
  return counts;
}

const BAR = 5;
const GAP = 2;
const HEIGHT = 18;

/** Bars of counts per day (no colour alone carries meaning: the label says the total). */
export function Sparkline({ counts, label }: { counts: readonly number[]; label: string }): ReactNode {
  const max = Math.max(1, ...counts);
  const width = counts.length * (BAR + GAP) - GAP;
  return (
    <svg className="sparkline" role="img" aria-label={label} width={width} height={HEIGHT} viewBox={`0 0 ${String(width)} ${String(HEIGHT)}`}>
      <title>{label}</title>
      <line x1={0} x2={width} y1={HEIGHT - 0.5} y2={HEIGHT - 0.5} className="sparkline-base" />
      {counts.map((count, i) =>
        count === 0 ? null : (
          <rect key={i} x={i * (BAR + GAP)} width={BAR} y={HEIGHT - 1 - Math.max(2, Math.round((count / max) * (HEIGHT - 1)))} height={Math.max(2, Math.round((count / max) * (HEIGHT - 1)))} rx={1} />
        ),
      )}
    </svg>
  );
}
