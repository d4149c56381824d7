import type { Diff, Monitor } from "@driftwatch/client";
import { useQueries, useQueryClient } from "@tanstack/react-query";
import { useWindowVirtualizer } from "@tanstack/react-virtual";
import { useDeferredValue, useMemo, useState, type ReactNode } from "react";
import { Link } from "react-router";
import { useClient } from "../../api/context";
import { useCan } from "../../auth/session-context";
import { monitorKeys } from "../../api/keys";
import { Page } from "../../ui/Page";
import { RelativeTime } from "../../ui/RelativeTime";
import { SeverityBadge, SeverityOptions } from "../../ui/severity";
import { EmptyState, ErrorState, Loading } from "../../ui/states";
import { Sparkline, countPerDay } from "../../ui/Sparkline";
import { latestDiffQuery, SPARKLINE_DAYS, useCheckNow, useLatestDiff, useMonitors, useRecentDiffs, useSetMonitorState } from "./api";
import { filterMonitors, NO_FILTER, type MonitorFilter } from "./filter";
import { Fact } from "../../ui/Fact";

/** With a severity filter on, the newest diffs of at most this many changed monitors are fetched. */
const SEVERITY_LOOKUPS = 200;

export function MonitorsPage(): ReactNode {
  const canWrite = useCan("monitors:write");
  const monitors = useMonitors();
  const [filter, setFilter] = useState<MonitorFilter>(NO_FILTER);
  const deferred = useDeferredValue(filter);
  const client = useClient();
  const queryClient = useQueryClient();
  const all = monitors.data ?? [];
  // severity is a property of a monitor's newest diff: look it up for the changed monitors
  const candidates = useMemo(() => (deferred.minSeverity === "" ? [] : all.filter((m) => m.lastChangedAt !== null).slice(0, SEVERITY_LOOKUPS)), [all, deferred.minSeverity]);
  const lookups = useQueries({ queries: candidates.map((m) => latestDiffQuery(client, m)) });
  const lookupsDone = lookups.filter((q) => !q.isPending).length;
  const shown = useMemo(
    () => filterMonitors(all, deferred, (id) => queryClient.getQueryData<Diff | null>(monitorKeys.latestDiff(id))),
    // lookupsDone: the cache read above changes as the severity lookups arrive
    [all, deferred, queryClient, lookupsDone],
  );
  const set = <K extends keyof MonitorFilter>(key: K, value: MonitorFilter[K]): void => setFilter((f) => ({ ...f, [key]: value }));

  return (
    <Page
      title="Monitors"
      actions={
        canWrite ? (
          <Link className="button primary" to="/monitors/new">
            New monitor
          </Link>
        ) : null
      }
    >
      <form className="filters" role="search" aria-label="Filter monitors" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search
          <input type="search" value={filter.search} placeholder="Name, URL or id" onChange={(e) => set("search", e.target.value)} />
        </label>
        <label>
          Type
          <select value={filter.type} onChange={(e) => set("type", e.target.value as MonitorFilter["type"])}>
            <option value="">All</option>
            <option value="api">API</option>
            <option value="website">Website</option>
          </select>
        </label>
        <label>
          Status
          <select value={filter.state} onChange={(e) => set("state", e.target.value as MonitorFilter["state"])}>
            <option value="">All</option>
            <option value="active">Active</option>
            <option value="failing">Failing</option>
            <option value="paused">Paused</option>
          </select>
        </label>
        <label>
          Latest change at least
          <select value={filter.minSeverity} onChange={(e) => set("minSeverity", e.target.value as MonitorFilter["minSeverity"])}>
            <option value="">Any severity</option>
            <SeverityOptions />
          </select>
        </label>
      </form>
      {monitors.isPending ? (
        <Loading what="monitors" />
      ) : monitors.isError ? (
        <ErrorState error={monitors.error} retry={() => void monitors.refetch()} />
      ) : all.length === 0 ? (
        <EmptyState title="No monitors yet">
          <p>
            A monitor checks a JSON API or a web page on a schedule and records what changed.{" "}
            {canWrite ? <Link to="/monitors/new">Create your first monitor</Link> : "Your role can read monitors; a member or admin creates them."}
          </p>
        </EmptyState>
      ) : (
        <>
          <p className="muted" aria-live="polite">
            {shown.length === all.length ? `${String(all.length)} monitors` : `${String(shown.length)} of ${String(all.length)} monitors`}
            {filter.minSeverity !== "" && lookupsDone < candidates.length ? ` (reading severities: ${String(lookupsDone)} of ${String(candidates.length)})` : ""}
          </p>
          {shown.length === 0 ? <EmptyState title="No monitor matches these filters" /> : <MonitorRows monitors={shown} />}
        </>
      )}
    </Page>
  );
}

/** The rows, virtualised on the window's scroll: 10,000 monitors render as a screenful. */
function MonitorRows({ monitors }: { monitors: Monitor[] }): ReactNode {
  const virtualizer = useWindowVirtualizer({ count: monitors.length, estimateSize: () => 76, overscan: 8, getItemKey: (i) => monitors[i]!.id });
  const items = virtualizer.getVirtualItems();
  return (
    <div className="rows" role="list" aria-label="Monitors" style={{ height: virtualizer.getTotalSize() }}>
      {items.map((item) => (
        <div
          key={item.key}
          role="listitem"
          className="row-slot"
          data-index={item.index}
          ref={virtualizer.measureElement}
          style={{ transform: `translateY(${String(item.start - virtualizer.options.scrollMargin)}px)` }}
        >
          <MonitorRow monitor={monitors[item.index]!} />
        </div>
      ))}
    </div>
  );
}

function stateLabel(m: Monitor): string {
  if (m.state === "failing") return `failing (${String(m.consecutiveFailures)}×)`;
  return m.state;
}

export function MonitorRow({ monitor }: { monitor: Monitor }): ReactNode {
  const latest = useLatestDiff(monitor);
  const recent = useRecentDiffs(monitor);
  const perDay = countPerDay((recent.data ?? []).map((d) => d.createdAt), Date.now(), SPARKLINE_DAYS);
  const total = perDay.reduce((a, b) => a + b, 0);
  const setState = useSetMonitorState();
  const check = useCheckNow();
  const paused = monitor.state === "paused";
  const canWrite = useCan("monitors:write");
  const error = setState.error ?? check.error;
  return (
    <article className="monitor-row" aria-labelledby={`m-${monitor.id}`}>
      <div className="main">
        <h2 id={`m-${monitor.id}`}>
          <Link to={`/monitors/${monitor.id}`}>{monitor.name}</Link>
        </h2>
        <p className="url" title={monitor.url}>
          <span className="badge">{monitor.type === "api" ? "API" : "Website"}</span> {monitor.url}
        </p>
      </div>
      <dl className="facts">
        <Fact label="Status">
          <span className={`dot state-${monitor.state}`} aria-hidden="true" />
          {stateLabel(monitor)}
          {monitor.lastError ? <span className="sr-only">: {monitor.lastError}</span> : null}
        </Fact>
        <Fact label="Last check">
          <RelativeTime value={monitor.lastCheckedAt} />
        </Fact>
        <Fact label="Last change">
          <RelativeTime value={monitor.lastChangedAt} />
          {monitor.lastChangedAt === null ? null : (
            <Sparkline counts={perDay} label={`${String(total)}${recent.data?.length === 100 ? " or more" : ""} change${total === 1 ? "" : "s"} in the last ${String(SPARKLINE_DAYS)} days`} />
          )}
        </Fact>
        <Fact label="Top severity">{monitor.lastChangedAt === null ? <span className="muted">none</span> : <SeverityBadge severity={latest.data?.topSeverity} />}</Fact>
      </dl>
      {canWrite ? (
      <div className="row-actions">
        <button type="button" disabled={setState.isPending} onClick={() => setState.mutate({ id: monitor.id, state: paused ? "active" : "paused" })}>
          {paused ? "Resume" : "Pause"}
          <span className="sr-only"> {monitor.name}</span>
        </button>
        <button type="button" disabled={check.isPending} onClick={() => check.mutate(monitor.id)}>
          {check.isPending ? "Checking…" : "Check now"}
          <span className="sr-only"> {monitor.name}</span>
        </button>
      </div>
      ) : null}
      {error ? (
        <p className="row-error" role="alert">
          {(error as { detail?: string }).detail ?? error.message}
          {(error as { requestId?: string | null }).requestId ? ` (request ${(error as { requestId?: string }).requestId ?? ""})` : ""}
        </p>
      ) : null}
    </article>
  );
}
