import type { Severity } from "@driftwatch/client";
import type { ReactNode } from "react";

export const SEVERITIES: readonly Severity[] = ["critical", "high", "medium", "low", "info"];
const RANK: Record<Severity, number> = { info: 0, low: 1, medium: 2, high: 3, critical: 4 };

export function severityRank(severity: Severity): number {
  return RANK[severity];
}

export function SeverityBadge({ severity }: { severity: Severity | null | undefined }): ReactNode {
  if (severity == null) return <span className="muted">none</span>;
  return <span className={`badge sev-${severity}`}>{severity}</span>;
}

/** The severities as `<option>`s, most severe first. */
export function SeverityOptions(): ReactNode {
  return SEVERITIES.map((s) => (
    <option key={s} value={s}>
      {s}
    </option>
  ));
}
