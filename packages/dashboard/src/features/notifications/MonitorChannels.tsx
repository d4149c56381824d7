import type { ReactNode } from "react";
import { Link } from "react-router";
import { SeverityBadge } from "../../ui/severity";
import { ErrorState, Loading } from "../../ui/states";
import { useMonitorChannels } from "./api";
import { serviceLabel } from "./services";

/**
 * The channels that get a monitor's changes, as the server routes them
 * (`GET /api/monitors/{id}/channels`: by tags and events, with the effective minimum severity
 * and the channel's state); only those that take `diff.detected`.
 */
export function MonitorChannels({ monitorId }: { monitorId: string }): ReactNode {
  const routes = useMonitorChannels(monitorId);
  if (routes.isPending) return <Loading what="notification channels" />;
  // a server without notification channels (an older version) answers 404
  if (routes.isError && (routes.error as { status?: number }).status === 404) return <p className="muted">This server has no notification channels.</p>;
  if (routes.isError) return <ErrorState error={routes.error} retry={() => void routes.refetch()} />;
  const routed = routes.data.filter((r) => r.events.includes("diff.detected"));
  if (routed.length === 0)
    return (
      <p className="muted">
        No notification channel gets this monitor's changes. <Link to="/notifications">Add one</Link>.
      </p>
    );
  return (
    <ul className="channel-list" aria-label="Channels that get its changes">
      {routed.map(({ channel: c, minSeverity, matchedTags, state }) => (
        <li key={c.id}>
          <Link to={`/notifications/${c.id}`}>{c.name}</Link> <span className="muted">({serviceLabel(c)})</span>: changes from{" "}
          <SeverityBadge severity={minSeverity} />
          {matchedTags.length === 0 ? " (all monitors)" : ` (tag ${matchedTags.join(", ")})`}
          {state === "paused" ? <span className="tag state-paused"> paused</span> : state === "failing" ? <span className="tag state-failed"> failing</span> : null}
        </li>
      ))}
    </ul>
  );
}
