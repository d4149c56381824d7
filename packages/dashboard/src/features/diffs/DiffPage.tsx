import type { Change, Diff, Severity } from "@driftwatch/client";
import { useQuery } from "@tanstack/react-query";
import { memo, useCallback, useMemo, useState, useTransition, type ReactNode } from "react";
import { Link, useParams } from "react-router";
import { useClient } from "../../api/context";
import { useCan } from "../../auth/session-context";
import { monitorKeys } from "../../api/keys";
import { MutationError } from "../../ui/FieldErrors";
import { Page } from "../../ui/Page";
import { RelativeTime } from "../../ui/RelativeTime";
import { SEVERITIES, SeverityBadge, SeverityOptions } from "../../ui/severity";
import { ErrorState, Loading } from "../../ui/states";
import { jsonText, valueText } from "../../ui/value";
import { useMonitor } from "../monitors/api";
import { diffSummary } from "../monitors/MonitorDetailPage";
import { useChangePolicy, withRuleFirst, type PolicyRule } from "../rules/api";
import { toJsonPatch } from "./json-patch";
import { Fact } from "../../ui/Fact";
import { ComparisonResult, useComparison } from "./Comparison";
import { visualOf } from "../visual/api";
import { VisualCompare } from "../visual/VisualCompare";
import { recordedExcerpts, schemaExcerpt, shallow, useContractDocuments, type ExcerptOf } from "./contract-excerpt";

/** Changes rendered per severity group before "Show more" (a 5,000-change diff stays responsive). */
const PAGE = 200;

export function DiffPage(): ReactNode {
  const { monitorId = "", diffId = "" } = useParams();
  const client = useClient();
  const monitor = useMonitor(monitorId);
  const diff = useQuery({ queryKey: monitorKeys.diff(monitorId, diffId), queryFn: async () => await client.diffs.get(monitorId, diffId), staleTime: Infinity });
  if (diff.isPending) return <Loading what="the diff" />;
  if (diff.isError) return <ErrorState error={diff.error} retry={() => void diff.refetch()} />;
  return <DiffViewer diff={diff.data} monitorName={monitor.data?.name ?? monitorId} />;
}

export function groupBySeverity(changes: readonly Change[]): Array<[Severity, Change[]]> {
  const groups = new Map<Severity, Change[]>();
  for (const change of changes) {
    const list = groups.get(change.severity);
    if (list) list.push(change);
    else groups.set(change.severity, [change]);
  }
  return SEVERITIES.filter((s) => groups.has(s)).map((s) => [s, groups.get(s)!]);
}

const LEVEL_RANK: Record<string, number> = { breaking: 0, "potentially-breaking": 1, "non-breaking": 2 };

/**
 * An OpenAPI diff's changes by operation (document-wide changes under "Whole document"): the
 * operations with a breaking change first, then potentially breaking, then the rest; within one,
 * breaking changes first.
 */
export function groupByOperation(changes: readonly Change[]): Array<{ operation: string; worst: number; changes: Change[] }> {
  const groups = new Map<string, Change[]>();
  for (const change of changes) {
    const key = change.operation ?? "Whole document";
    const list = groups.get(key);
    if (list) list.push(change);
    else groups.set(key, [change]);
  }
  const rank = (change: Change): number => LEVEL_RANK[change.level ?? "non-breaking"] ?? 2;
  return [...groups]
    .map(([operation, list]) => ({ operation, worst: Math.min(...list.map(rank)), changes: [...list].sort((a, b) => rank(a) - rank(b)) }))
    .sort((a, b) => a.worst - b.worst || a.operation.localeCompare(b.operation));
}

export function DiffViewer({ diff, monitorName }: { diff: Diff; monitorName: string }): ReactNode {
  const website = diff.classification === "content_change" || diff.classification === "visual_change";
  const [layout, setLayout] = useState<"side" | "inline">("side");
  const groups = useMemo(() => groupBySeverity(diff.changes), [diff.changes]);
  const visual = visualOf(diff);
  // a violation's schema excerpt is recorded with it (once per schema location in a diff: the
  // other violations there share it); older violations of a contract whose document is a stored
  // openapi monitor read it from that monitor's snapshot
  const recorded = useMemo(() => recordedExcerpts(diff.changes), [diff.changes]);
  const hasContract = useMemo(
    () => diff.changes.some((c) => c.category === "contract" && c.schemaPath !== undefined && !recorded.has(c.schemaPath)),
    [diff.changes, recorded],
  );
  const contractDocs = useContractDocuments(diff, hasContract).data ?? null;
  const excerptOf = useCallback(
    (change: Change): unknown =>
      change.category !== "contract" || change.schemaPath === undefined
        ? undefined
        : recorded.has(change.schemaPath)
          ? recorded.get(change.schemaPath)
          : contractDocs !== null
            ? schemaExcerpt(contractDocs, change.schemaPath)
            : undefined,
    [recorded, contractDocs],
  );
  const changePolicy = useChangePolicy(diff.monitorId);
  const [notice, setNotice] = useState<string | null>(null);
  const { mutate } = changePolicy;
  // stable, so that the (memoised) change items do not re-render when the page state changes
  const addRule = useCallback(
    (rule: PolicyRule, what: string): void => {
      setNotice(null);
      mutate((policy) => withRuleFirst(policy, rule), {
        onSuccess: () => setNotice(`${what} Future checks use it; see it in the rules editor.`),
      });
    },
    [mutate],
  );
  const exportPatch = (): void => {
    const { patch } = toJsonPatch(diff.changes);
    const url = URL.createObjectURL(new Blob([JSON.stringify(patch, null, 2)], { type: "application/json-patch+json" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = `${diff.id}.json-patch.json`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  return (
    <Page
      title={`Change to ${monitorName}`}
      actions={
        <>
          {website ? (
            <div className="segmented" role="group" aria-label="Layout">
              <button type="button" aria-pressed={layout === "side"} onClick={() => setLayout("side")}>
                Side by side
              </button>
              <button type="button" aria-pressed={layout === "inline"} onClick={() => setLayout("inline")}>
                Inline
              </button>
            </div>
          ) : (
            <button type="button" onClick={exportPatch}>
              Export JSON Patch
            </button>
          )}
          <Link className="button" to={`/monitors/${diff.monitorId}/rules`}>
            Rules
          </Link>
        </>
      }
    >
      <p>
        <Link to={`/monitors/${diff.monitorId}`}>← {monitorName}</Link>
      </p>
      <dl className="summary">
        <Fact label="Top severity">
          <SeverityBadge severity={diff.topSeverity} />
        </Fact>
        <Fact label="Kind">{diff.classification.replace("_", " ")}</Fact>
        <Fact label="Changes">{diffSummary(diff)}</Fact>
        <Fact label="Detected">
          <RelativeTime value={diff.createdAt} />
        </Fact>
        <Fact label="Fingerprint">
          <code title={diff.diffFingerprint}>{diff.diffFingerprint.slice(7, 19)}…</code>
        </Fact>
      </dl>
      {diff.truncated ? <p className="state">This diff was too large to store whole: the first {diff.changes.length} changes are listed; the counts cover all.</p> : null}
      <div aria-live="polite">{notice ? <p className="state ok">{notice}</p> : null}</div>
      <MutationError error={changePolicy.error} />
      {diff.learning ? (
        <p className="state">Recorded while the monitor was still learning its target's noise: sent to webhooks only if something was removed or changed type.</p>
      ) : null}
      <WithoutLearned diff={diff} />
      {visual ? <VisualCompare monitorId={diff.monitorId} beforeId={diff.previousSnapshotId} afterId={diff.snapshotId} visual={visual} /> : null}
      {diff.classification === "api_change"
        ? groupByOperation(diff.changes).map((group) => (
            <section key={group.operation} className="sev-group" aria-label={group.operation}>
              <h2>
                <code>{group.operation}</code> {group.changes.length} change{group.changes.length === 1 ? "" : "s"}
                {group.worst === 0 ? <span className="muted"> · breaking</span> : group.worst === 1 ? <span className="muted"> · potentially breaking</span> : null}
              </h2>
              <ol className="changes">
                {group.changes.map((change, i) => (
                  <ChangeItem key={`${change.rule ?? ""}:${change.path}:${String(i)}`} change={change} website={false} layout={layout} busy={changePolicy.isPending} onRule={addRule} excerptOf={excerptOf} />
                ))}
              </ol>
            </section>
          ))
        : groups.map(([severity, changes]) => (
            <SeverityGroup key={severity} severity={severity} changes={changes} website={website} layout={layout} onRule={addRule} busy={changePolicy.isPending} excerptOf={excerptOf} />
          ))}
    </Page>
  );
}

/** The same two snapshots compared with the user's rules only: what the learned policy hid shows again. */
function WithoutLearned({ diff }: { diff: Diff }): ReactNode {
  const [on, setOn] = useState(false);
  const comparison = useComparison(diff.monitorId, diff.previousSnapshotId, diff.snapshotId, "user", on);
  if (diff.previousSnapshotId === null) return null;
  return (
    <section className="card without-learned" aria-labelledby={`wl-${diff.id}`}>
      <label className="inline" id={`wl-${diff.id}`}>
        <input type="checkbox" checked={on} onChange={(e) => setOn(e.target.checked)} /> Show this change without the learned policy (your rules only)
      </label>
      {on ? <ComparisonResult comparison={comparison} empty="Nothing changed under your rules alone." /> : null}
    </section>
  );
}

function SeverityGroup(props: {
  severity: Severity;
  changes: Change[];
  website: boolean;
  layout: "side" | "inline";
  busy: boolean;
  onRule: (rule: PolicyRule, what: string) => void;
  excerptOf: ExcerptOf;
}): ReactNode {
  const [limit, setLimit] = useState(PAGE);
  // the next changes render in a transition: the click paints at once, the list follows
  const [pending, startTransition] = useTransition();
  const { severity, changes, website, layout, busy, onRule, excerptOf } = props;
  return (
    <section className="sev-group" aria-labelledby={`g-${severity}`}>
      <h2 id={`g-${severity}`}>
        <SeverityBadge severity={severity} /> {changes.length} change{changes.length === 1 ? "" : "s"}
      </h2>
      <ol className="changes">
        {changes.slice(0, limit).map((change, i) => (
          <ChangeItem key={`${change.op}:${change.path}:${String(i)}`} change={change} website={website} layout={layout} busy={busy} onRule={onRule} excerptOf={excerptOf} />
        ))}
      </ol>
      {changes.length > limit ? (
        <button type="button" disabled={pending} onClick={() => startTransition(() => setLimit((l) => l + PAGE))}>
          {pending ? "Showing more…" : `Show ${String(Math.min(PAGE, changes.length - limit))} more of ${String(changes.length - limit)}`}
        </button>
      ) : null}
    </section>
  );
}

const ChangeItem = memo(function ChangeItem({
  change,
  website,
  layout,
  onRule,
  busy,
  excerptOf,
}: {
  change: Change;
  website: boolean;
  layout: "side" | "inline";
  busy: boolean;
  onRule: (rule: PolicyRule, what: string) => void;
  /** The schema excerpt of a contract violation (recorded in the diff, or read from the contract's stored document). */
  excerptOf?: ExcerptOf;
}): ReactNode {
  const [severity, setSeverity] = useState<Severity>(change.severity);
  const [copied, setCopied] = useState(false);
  const canWrite = useCan("monitors:write");
  const target: PolicyRule = website ? { selector: change.path } : { path: change.path };
  const hasBefore = "before" in change && change.before !== undefined;
  const hasAfter = "after" in change && change.after !== undefined;
  const excerpt = excerptOf?.(change);
  const schemaParent = change.schemaPath?.replace(/\/[^/]*$/, "");
  return (
    <li className="change">
      <div className="change-head">
        <span className={`op op-${change.op}`}>{change.op}</span>
        <code className="path">{change.path}</code>
        {change.from ? (
          <span className="muted">
            {" "}
            from <code>{change.from}</code>
          </span>
        ) : null}
        <span className="muted"> · {change.category}</span>
        {change.level ? <span className="muted"> · {change.level}</span> : null}
        {change.rule ? (
          <span className="muted">
            {" "}
            · <code>{change.rule}</code>
          </span>
        ) : null}
      </div>
      {change.detail ? <p className="detail">{change.detail}</p> : null}
      {change.category === "contract" ? (
        <div className={layout === "side" ? "values side" : "values inline"}>
          <div className="before">
            <span className="label">
              Schema ({change.keyword}){change.schemaPath ? <code title={change.schemaPath}> {change.schemaPath}</code> : null}
            </span>
            <pre>{valueText(change.expected)}</pre>
            {excerpt !== undefined ? (
              <>
                <span className="label">In the schema{schemaParent ? <code> {schemaParent}</code> : null}</span>
                <pre className="schema-excerpt" role="region" tabIndex={0} aria-label={`Schema excerpt for ${change.path}`}>
                  {JSON.stringify(shallow(excerpt), null, 2)}
                </pre>
              </>
            ) : null}
          </div>
          <div className="after">
            <span className="label">Value{change.operation ? ` (${change.operation})` : ""}</span>
            {/* the value as JSON: a string "1" where the schema wants an integer shows its quotes */}
            <pre>{"actual" in change && change.actual !== undefined ? jsonText(change.actual) : "(missing)"}</pre>
          </div>
        </div>
      ) : null}
      {hasBefore || hasAfter ? (
        <div className={layout === "side" ? "values side" : "values inline"}>
          {hasBefore ? (
            <div className="before">
              <span className="label">Before</span>
              <pre>{valueText(change.before)}</pre>
            </div>
          ) : null}
          {hasAfter ? (
            <div className="after">
              <span className="label">After</span>
              <pre>{valueText(change.after)}</pre>
            </div>
          ) : null}
        </div>
      ) : null}
      <div className="change-actions">
        <button
          type="button"
          onClick={() => {
            void navigator.clipboard?.writeText(change.path).then(
              () => setCopied(true),
              () => setCopied(false),
            );
          }}
        >
          {copied ? "Copied" : website ? "Copy selector" : "Copy JSONPath"}
        </button>
        {canWrite ? (
        <>
        <button type="button" disabled={busy} onClick={() => onRule({ ...target, action: "ignore" }, `Rule added: ignore ${change.path}.`)}>
          Ignore this {website ? "block" : "path"}
        </button>
        <label className="inline">
          <span className="sr-only">Severity for {change.path}</span>
          <select value={severity} onChange={(e) => setSeverity(e.target.value as Severity)}>
            <SeverityOptions />
          </select>
        </label>
        <button type="button" disabled={busy || severity === change.severity} onClick={() => onRule({ ...target, severity }, `Rule added: ${change.path} is ${severity}.`)}>
          Set severity
        </button>
        </>
        ) : null}
      </div>
    </li>
  );
});
