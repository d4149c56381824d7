import type { Diff, Monitor, Snapshot } from "@driftwatch/client";
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useMemo, useState, type ReactNode } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { useClient } from "../../api/context";
import { useCan } from "../../auth/session-context";
import { monitorKeys } from "../../api/keys";
import { Page } from "../../ui/Page";
import { RelativeTime } from "../../ui/RelativeTime";
import { SeverityBadge } from "../../ui/severity";
import { EmptyState, ErrorState, Loading } from "../../ui/states";
import { useCheckNow, useDeleteMonitor, useMonitor, useSetMonitorState } from "./api";
import { Fact } from "../../ui/Fact";
import { TagList } from "../../ui/Tags";
import { ComparisonResult, useComparison } from "../diffs/Comparison";
import { MonitorChannels } from "../notifications/MonitorChannels";
import { monitorStepFailure } from "../visual/api";
import { useTracking } from "../conditions/api";
import { TrackedValues } from "../conditions/ValueChart";
import { ScreenshotTimeline, StepFailureNote } from "../visual/ScreenshotTimeline";
import { InferredSchema } from "./InferredSchema";

type TimelineEntry = { kind: "diff"; at: string; diff: Diff } | { kind: "snapshot"; at: string; snapshot: Snapshot };

const plural = (n: number, what: string): string => `${String(n)} ${what}${n === 1 ? "" : "s"}`;

/** "1 schema change and 3 value changes", "2 added, 1 modified". */
export function diffSummary(diff: Diff): string {
  if ("summary" in diff) {
    const s = diff.summary;
    const parts = [
      s.additions > 0 ? `${String(s.additions)} added` : "",
      s.removals > 0 ? `${String(s.removals)} removed` : "",
      s.modifications > 0 ? `${String(s.modifications)} modified` : "",
    ].filter(Boolean);
    return parts.length === 0 ? (diff.classification === "visual_change" ? "looks different" : "content changed") : parts.join(", ");
  }
  const visual = (diff as { visual?: { changedPercent: number } | null }).visual;
  if ((diff.classification as string) === "visual_change" && visual) return `${visual.changedPercent.toFixed(2)} % of the page changed`;
  const parts = [diff.schemaChanges > 0 ? plural(diff.schemaChanges, "schema change") : "", diff.valueChanges > 0 ? plural(diff.valueChanges, "value change") : ""].filter(Boolean);
  return parts.join(" and ");
}

export function MonitorDetailPage(): ReactNode {
  const { monitorId = "" } = useParams();
  const client = useClient();
  const navigate = useNavigate();
  const monitor = useMonitor(monitorId);
  const setState = useSetMonitorState();
  const check = useCheckNow();
  const canWrite = useCan("monitors:write");
  const remove = useDeleteMonitor();
  const tracking = useTracking(monitorId);
  const diffs = useInfiniteQuery({
    queryKey: monitorKeys.diffs(monitorId),
    queryFn: async ({ pageParam }) => {
      const page = await client.diffs.list(monitorId, pageParam === undefined ? { limit: 25 } : { limit: 25, cursor: pageParam });
      return { data: page.data, nextCursor: page.nextCursor };
    },
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const snapshots = useQuery({
    queryKey: [...monitorKeys.detail(monitorId), "snapshots"],
    queryFn: async () => (await client.snapshots.list(monitorId, { limit: 25 })).data,
  });
  const timeline = useMemo(() => {
    const entries: TimelineEntry[] = [];
    const diffed = new Set<string>();
    for (const page of diffs.data?.pages ?? []) {
      for (const diff of page.data) {
        entries.push({ kind: "diff", at: diff.createdAt, diff });
        diffed.add(diff.snapshotId);
      }
    }
    for (const snapshot of snapshots.data ?? []) if (!diffed.has(snapshot.id)) entries.push({ kind: "snapshot", at: snapshot.fetchedAt, snapshot });
    return entries.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  }, [diffs.data, snapshots.data]);

  if (monitor.isPending) return <Loading what="the monitor" />;
  if (monitor.isError) return <ErrorState error={monitor.error} retry={() => void monitor.refetch()} />;
  const m = monitor.data;
  const paused = m.state === "paused";
  const stepFailure = monitorStepFailure(m);
  const screenshots = ((m.browserOptionsJson as { screenshot?: string } | null)?.screenshot ?? "off") !== "off";
  return (
    <Page
      title={m.name}
      actions={
        canWrite ? (
        <>
          <button type="button" onClick={() => check.mutate(m.id)} disabled={check.isPending}>
            {check.isPending ? "Checking…" : "Check now"}
          </button>
          <button type="button" onClick={() => setState.mutate({ id: m.id, state: paused ? "active" : "paused" })} disabled={setState.isPending}>
            {paused ? "Resume" : "Pause"}
          </button>
          <Link className="button" to={`/monitors/${m.id}/rules`}>
            Rules
          </Link>
          <Link className="button" to={`/monitors/${m.id}/alerts`}>
            Alerts
          </Link>
          <Link className="button" to={`/monitors/${m.id}/edit`}>
            Edit
          </Link>
          <button
            type="button"
            className="danger"
            onClick={() => {
              if (window.confirm(`Delete ${m.name} with its snapshots and diffs?`)) remove.mutate(m.id, { onSuccess: () => void navigate("/monitors") });
            }}
          >
            Delete
          </button>
        </>
        ) : (
          <>
            <Link className="button" to={`/monitors/${m.id}/rules`}>
              Rules
            </Link>
            <Link className="button" to={`/monitors/${m.id}/alerts`}>
              Alerts
            </Link>
          </>
        )
      }
    >
      {check.error || setState.error || remove.error ? <ErrorState error={check.error ?? setState.error ?? remove.error} /> : null}
      <dl className="summary">
        <Fact label="URL" wide valueClass="break">
          {m.url}
        </Fact>
        <Fact label="Type">{m.type === "api" ? "API (JSON)" : m.type === "openapi" ? "OpenAPI document" : m.browserOptionsJson ? "Website (browser)" : "Website"}</Fact>
        <Fact label="Status">
          <span className={`dot state-${m.state}`} aria-hidden="true" />
          {m.state}
          {m.lastStatus !== null ? `, HTTP ${String(m.lastStatus)}` : ""}
        </Fact>
        <Fact label="Tags">
          <TagList tags={m.tags} empty={<span className="muted">none</span>} />
        </Fact>
        {m.type === "api" ? (
          <Fact label="Contract" valueClass="break">
            {m.contract ? <ContractFact contract={m.contract} /> : <span className="muted">none</span>}
          </Fact>
        ) : null}
        <Fact label="Every">{formatInterval(m.intervalSeconds)}</Fact>
        <Fact label="Last check">
          <RelativeTime value={m.lastCheckedAt} />
        </Fact>
        <Fact label="Next check">
          <RelativeTime value={paused ? null : m.nextCheckAt} empty={paused ? "paused" : "not scheduled"} />
        </Fact>
      </dl>
      {stepFailure ? (
        <StepFailureNote failure={stepFailure} />
      ) : m.lastError ? (
        <div className="state error">
          <p>
            <strong>Last error:</strong> {m.lastFailure ? `${m.lastFailure.reason}: ${m.lastFailure.message}` : m.lastError}
          </p>
        </div>
      ) : null}
      {tracking.data?.track?.length ? (
        <>
          <h2>Tracked values</h2>
          <TrackedValues monitorId={m.id} track={tracking.data.track} />
        </>
      ) : null}
      {screenshots ? (
        <>
          <h2>Screenshots</h2>
          {snapshots.data ? <ScreenshotTimeline monitorId={m.id} snapshots={snapshots.data} /> : <Loading what="the checks" />}
        </>
      ) : null}
      {m.type === "api" ? (
        <>
          <h2>Inferred schema</h2>
          <InferredSchema monitorId={m.id} />
        </>
      ) : null}
      <h2>Notifications</h2>
      <MonitorChannels monitorId={m.id} />
      <h2>Timeline</h2>
      {diffs.isPending || snapshots.isPending ? (
        <Loading what="the timeline" />
      ) : diffs.isError ? (
        <ErrorState error={diffs.error} retry={() => void diffs.refetch()} />
      ) : timeline.length === 0 ? (
        <EmptyState title="Nothing checked yet">
          <p>Press “Check now”, or wait for the first scheduled check. Each new content and each change appears here as it happens.</p>
        </EmptyState>
      ) : (
        <ol className="timeline" aria-label="Checks and changes, newest first">
          {timeline.map((entry) =>
            entry.kind === "diff" ? (
              <li key={entry.diff.id} className="t-diff">
                <SeverityBadge severity={entry.diff.topSeverity} /> <Link to={`/monitors/${m.id}/diffs/${entry.diff.id}`}>{diffSummary(entry.diff)}</Link>{" "}
                {entry.diff.learning ? (
                  <span className="badge learning" title="Recorded while the monitor was still learning its target's noise: not sent to webhooks unless something was removed or changed type">
                    learning
                  </span>
                ) : null}{" "}
                <RelativeTime value={entry.at} />
              </li>
            ) : entry.snapshot.silenced ? (
              <SilencedEntry key={entry.snapshot.id} monitorId={m.id} snapshot={entry.snapshot} />
            ) : (
              <li key={entry.snapshot.id} className="t-snapshot">
                <span className="badge">content</span> New content, HTTP {entry.snapshot.status}, {formatBytes(entry.snapshot.size)}, {entry.snapshot.latencyMs} ms{" "}
                <RelativeTime value={entry.at} />
              </li>
            ),
          )}
        </ol>
      )}
      {diffs.hasNextPage ? (
        <button type="button" onClick={() => void diffs.fetchNextPage()} disabled={diffs.isFetchingNextPage}>
          {diffs.isFetchingNextPage ? "Loading…" : "Older changes"}
        </button>
      ) : null}
    </Page>
  );
}

/** A check that found only noise: what it hid, by which entry, and the diff without the learned policy on demand. */
function SilencedEntry({ monitorId, snapshot }: { monitorId: string; snapshot: Snapshot }): ReactNode {
  const silenced = snapshot.silenced!;
  const [open, setOpen] = useState(false);
  const comparison = useComparison(monitorId, silenced.previousSnapshotId, snapshot.id, "user", open);
  const others = silenced.count - silenced.changes.length;
  const byLearned = silenced.learnedCount === silenced.count ? "all by learned noise" : `${String(silenced.learnedCount)} by learned noise`;
  return (
    <li className="t-silenced">
      <span className="badge silenced">silenced</span> {plural(silenced.count, "change")} hidden ({byLearned}), no diff recorded{" "}
      <RelativeTime value={snapshot.fetchedAt} />
      <details>
        <summary>What was silenced</summary>
        <ul className="silenced-changes">
          {silenced.changes.map((change) => (
            <li key={`${change.rule}${change.path}`}>
              <code className="break">{change.path}</code> <span className="tag">{change.outcome}</span>{" "}
              {change.learned ? (
                <span>
                  by learned <code>{`${change.learned.kind}[${String(change.learned.index)}]`}</code>
                  {change.learned.path ?? change.learned.selector ? (
                    <>
                      {" "}
                      <code className="break">{change.learned.path ?? change.learned.selector}</code>
                    </>
                  ) : null}
                </span>
              ) : (
                <span>
                  by your rule <code>{change.rule}</code>
                </span>
              )}
            </li>
          ))}
          {others > 0 ? <li className="muted">and {plural(others, "more change")}</li> : null}
        </ul>
        <p className="actions">
          <button type="button" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
            {open ? "Hide the diff without learned noise" : "Show the diff without learned noise"}
          </button>
          <Link to={`/monitors/${monitorId}/rules`}>Review what was learned</Link>
        </p>
        {open ? <ComparisonResult comparison={comparison} empty="Your own rules hide these changes too." /> : null}
      </details>
    </li>
  );
}

/** The contract, its stored OpenAPI document by the monitor's name (a link to it). */
function ContractFact({ contract }: { contract: NonNullable<Monitor["contract"]> }): ReactNode {
  const client = useClient();
  const documentId = typeof contract.document === "string" ? null : contract.document.monitorId;
  const source = useQuery({ queryKey: monitorKeys.detail(documentId ?? ""), queryFn: async () => await client.monitors.get(documentId!), enabled: documentId !== null });
  return (
    <>
      {contractOperation(contract)} in{" "}
      {documentId === null ? contract.document as string : <Link to={`/monitors/${documentId}`}>{source.data?.name ?? documentId}</Link>}
    </>
  );
}

/** "getPet (200)", "GET /pets/{id}": a contract's operation and status as read. */
export function contractOperation(contract: NonNullable<Monitor["contract"]>): string {
  const op = typeof contract.operation === "string" ? contract.operation : `${contract.operation.method} ${contract.operation.path}`;
  return contract.status === undefined ? op : `${op} (${String(contract.status)})`;
}

export function formatInterval(seconds: number): string {
  if (seconds % 86400 === 0) return `${String(seconds / 86400)} d`;
  if (seconds % 3600 === 0) return `${String(seconds / 3600)} h`;
  if (seconds % 60 === 0) return `${String(seconds / 60)} min`;
  return `${String(seconds)} s`;
}

function formatBytes(n: number): string {
  return n < 1024 ? `${String(n)} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}
