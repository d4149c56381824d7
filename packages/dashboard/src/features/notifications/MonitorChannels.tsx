import type { ReactNode } from "react";
import { Link } from "react-router";
import { SeverityBadge } from "../../ui/severity";
import { ErrorState, Loading } from "../../ui/states";
import { useChannels, type Channel } from "./api";
import { serviceLabel } from "./services";

/**
 * The channels that get a monitor's changes, as the server routes them: a channel naming no tags
 * takes every monitor, else the monitors with one of its tags; only for `diff.detected`.
 */
export function channelsFor(tags: readonly string[], channels: readonly Channel[]): Channel[] {
  return channels.filter((c) => c.events.includes("diff.detected") && (c.tags.length === 0 || c.tags.some((t) => tags.includes(t))));
}

export function MonitorChannels({ tags }: { tags: readonly string[] }): ReactNode {
  const channels = useChannels();
  if (channels.isPending) return <Loading what="notification channels" />;
  // a server without notification channels (an older version) answers 404
  if (channels.isError && (channels.error as { status?: number }).status === 404) return <p className="muted">This server has no notification channels.</p>;
  if (channels.isError) return <ErrorState error={channels.error} retry={() => void channels.refetch()} />;
  const routed = channelsFor(tags, channels.data);
  if (routed.length === 0)
    return (
      <p className="muted">
        No notification channel gets this monitor's changes. <Link to="/notifications">Add one</Link>.
      </p>
    );
  return (
    <ul className="channel-list" aria-label="Channels that get its changes">
      {routed.map((c) => (
        <li key={c.id}>
          <Link to={`/notifications/${c.id}`}>{c.name}</Link> <span className="muted">({serviceLabel(c)})</span>: changes from{" "}
          <SeverityBadge severity={c.minSeverity} />
          {c.tags.length === 0 ? " (all monitors)" : ` (tag ${c.tags.filter((t) => tags.includes(t)).join(", ")})`}
          {c.paused ? <span className="tag state-paused"> paused</span> : c.status === "failing" ? <span className="tag state-failed"> failing</span> : null}
        </li>
      ))}
    </ul>
  );
}
