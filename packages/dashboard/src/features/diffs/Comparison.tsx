import type { ComparePolicy, SnapshotCompare } from "@driftwatch/client";
import { useQuery, type UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { useClient } from "../../api/context";
import { monitorKeys } from "../../api/keys";
import { SeverityBadge } from "../../ui/severity";
import { ErrorState, Loading } from "../../ui/states";
import { valueText } from "../../ui/value";

/** Two stored snapshots compared again by the server under `policy` (nothing is stored). */
export function useComparison(monitorId: string, from: string | null, to: string, policy: ComparePolicy, enabled = true): UseQueryResult<SnapshotCompare> {
  const client = useClient();
  return useQuery({
    queryKey: monitorKeys.compare(monitorId, from ?? "", to, policy),
    queryFn: async () => await client.monitors.compare(monitorId, { from: from!, to, policy }),
    enabled: enabled && from !== null,
    staleTime: 60_000,
    retry: false,
  });
}

/** A comparison's remaining changes, as a plain list (path, severity, before and after). */
export function ComparisonResult({ comparison, empty }: { comparison: UseQueryResult<SnapshotCompare>; empty: string }): ReactNode {
  if (comparison.isPending) return <Loading what="the comparison" />;
  if (comparison.isError) return <ErrorState error={comparison.error} />;
  const diff = comparison.data.diff;
  if (diff === null) return <p className="hint">{empty}</p>;
  return (
    <ul className="compare-changes" aria-label="Changes without the learned policy">
      {diff.changes.map((change) => (
        <li key={`${change.op}${change.path}`}>
          <SeverityBadge severity={change.severity} /> <span className="tag">{change.op}</span> <code className="break">{change.path}</code>
          {change.op !== "add" ? (
            <span className="before">
              {" "}
              <span className="sr-only">before </span>
              {valueText(change.before)}
            </span>
          ) : null}
          {change.op !== "remove" ? (
            <span className="after">
              {" → "}
              <span className="sr-only">after </span>
              {valueText(change.after)}
            </span>
          ) : null}
        </li>
      ))}
      {diff.truncated ? <li className="muted">… the first {diff.changes.length} changes</li> : null}
    </ul>
  );
}
