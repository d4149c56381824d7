import { useState, type FormEvent, type ReactNode } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { useCan } from "../../auth/session-context";
import { Fact } from "../../ui/Fact";
import { MutationError } from "../../ui/FieldErrors";
import { Page } from "../../ui/Page";
import { RelativeTime } from "../../ui/RelativeTime";
import { SeverityBadge } from "../../ui/severity";
import { EmptyState, ErrorState, Loading } from "../../ui/states";
import { TagList } from "../../ui/Tags";
import { useChannel, useChannelDeliveries, useDeleteChannel, useReplayChannelDelivery, useTestChannel, useUpdateChannel, type ChannelTestResult } from "./api";
import { MessagePreview, previewStyleOf } from "./MessagePreview";
import { ChannelOptionsFields, optionsBody, optionsOf } from "./ChannelOptions";
import { ChannelStatus } from "./NotificationsPage";
import type { Channel } from "./api";
import { serviceLabel } from "./services";

function TestAnswer({ result }: { result: ChannelTestResult }): ReactNode {
  const ok = result.outcome === "delivered";
  const headline = ok
    ? "Delivered."
    : result.outcome === "gone"
      ? "The service says this hook is gone."
      : result.outcome === "retry"
        ? "The service asked to try again later."
        : "Not delivered.";
  return (
    <div className={`state ${ok ? "ok" : "error"}`} role="status">
      <p>
        <strong>{headline}</strong> {result.status != null ? `HTTP ${String(result.status)}` : "No HTTP answer"}
        {result.retryAfterSeconds != null ? `, retry after ${String(result.retryAfterSeconds)} s` : ""}
      </p>
      {result.reason ? (
        <p>
          The service answered: <code className="break">{result.reason}</code>
        </p>
      ) : null}
    </div>
  );
}

export function ChannelDetailPage(): ReactNode {
  const { channelId = "" } = useParams();
  const channel = useChannel(channelId);
  const deliveries = useChannelDeliveries(channelId);
  const update = useUpdateChannel(channelId);
  const remove = useDeleteChannel();
  const test = useTestChannel(channelId);
  const replay = useReplayChannelDelivery(channelId);
  const navigate = useNavigate();
  const canWrite = useCan("webhooks:write");
  if (channel.isPending) return <Loading what="the channel" />;
  if (channel.isError) return <ErrorState error={channel.error} retry={() => void channel.refetch()} />;
  const c = channel.data;
  const service = serviceLabel(c);
  const style = previewStyleOf(service);
  return (
    <Page
      title={c.name}
      actions={
        canWrite ? (
          <>
            <button type="button" disabled={test.isPending} onClick={() => test.mutate()}>
              {test.isPending ? "Sending…" : "Send a test"}
            </button>
            <button type="button" disabled={update.isPending} onClick={() => update.mutate({ paused: !c.paused })}>
              {c.paused ? "Resume" : "Pause"}
            </button>
            <button
              type="button"
              className="danger"
              onClick={() => {
                if (window.confirm(`Delete ${c.name} and its deliveries?`)) remove.mutate(c.id, { onSuccess: () => void navigate("/notifications") });
              }}
            >
              Delete
            </button>
          </>
        ) : null
      }
    >
      <p>
        <Link to="/notifications">← Notifications</Link>
      </p>
      {test.data ? <TestAnswer result={test.data} /> : null}
      <MutationError error={test.error ?? update.error ?? remove.error} />
      <dl className="summary">
        <Fact label="URL" wide valueClass="break">
          {c.url}
        </Fact>
        <Fact label="Service">{service}</Fact>
        <Fact label="Status">
          <ChannelStatus channel={c} />
        </Fact>
        <Fact label="From severity">
          <SeverityBadge severity={c.minSeverity} />
        </Fact>
        <Fact label="Monitors">{c.tags.length === 0 ? "all" : <TagList tags={c.tags} />}</Fact>
        <Fact label="Events">{c.events.join(", ")}</Fact>
        <Fact label="Grouping">{c.groupSeconds > 0 ? `${String(c.groupSeconds)} s` : "none"}</Fact>
        <Fact label="Quiet hours">
          {c.quietHours
            ? `${c.quietHours.windows.map((w) => `${w.start}–${w.end}`).join(", ")} ${c.quietHours.timeZone}${c.quietHours.minSeverity ? `, ${c.quietHours.minSeverity} and above sent anyway` : ""}`
            : "none"}
        </Fact>
        <Fact label="Template">{c.template ? <code className="break">{c.template}</code> : "the service's default message"}</Fact>
      </dl>
      {canWrite ? <EditChannel key={c.updatedAt ?? c.id} channel={c} /> : null}
      {style ? (
        <details>
          <summary>How a message looks in {service}</summary>
          <MessagePreview style={style} />
        </details>
      ) : null}
      <h2>Deliveries</h2>
      <MutationError error={replay.error} />
      {deliveries.isPending ? (
        <Loading what="deliveries" />
      ) : deliveries.isError ? (
        <ErrorState error={deliveries.error} retry={() => void deliveries.refetch()} />
      ) : deliveries.data.length === 0 ? (
        <EmptyState title="Nothing delivered yet">
          <p>A delivery appears here when a monitor this channel covers records a change.</p>
        </EmptyState>
      ) : (
        <ol className="deliveries">
          {deliveries.data.map((d) => (
            <li key={d.id} className={`delivery d-${d.state}`}>
              <div className="delivery-head">
                <span className={`tag state-${d.state}`}>{d.state}</span> <code>{d.eventType}</code> <RelativeTime value={d.createdAt} />
              </div>
              <dl className="summary compact">
                <Fact label="Attempts">{d.attempts}</Fact>
                <Fact label="Response">{d.lastResponseStatus === null ? <span className="muted">none</span> : `HTTP ${String(d.lastResponseStatus)}`}</Fact>
                <Fact label="Last attempt">
                  <RelativeTime value={d.lastAttemptAt} />
                </Fact>
                {d.changes !== undefined ? <Fact label="Changes">{d.changes}</Fact> : null}
              </dl>
              {d.lastError ? (
                <p className="detail">
                  Error: <span className="break">{d.lastError}</span>
                </p>
              ) : null}
              {d.monitorId && d.diffId ? (
                <p className="detail">
                  <Link to={`/monitors/${d.monitorId}/diffs/${d.diffId}`}>The diff</Link>
                </p>
              ) : null}
              {canWrite ? (
                <button type="button" disabled={replay.isPending && replay.variables === d.id} onClick={() => replay.mutate(d.id)}>
                  {replay.isPending && replay.variables === d.id ? "Replaying…" : "Replay"}
                  <span className="sr-only"> delivery {d.id}</span>
                </button>
              ) : null}
            </li>
          ))}
        </ol>
      )}
    </Page>
  );
}

/** Name, URL (a new one replaces the stored secret; empty keeps it) and options, saved with PATCH. */
function EditChannel({ channel: c }: { channel: Channel }): ReactNode {
  const update = useUpdateChannel(c.id);
  const [name, setName] = useState(c.name);
  const [url, setUrl] = useState("");
  const [options, setOptions] = useState(() => optionsOf(c));
  const [saved, setSaved] = useState(false);
  function submit(event: FormEvent): void {
    event.preventDefault();
    setSaved(false);
    update.mutate({ name: name.trim(), ...(url.trim() === "" ? {} : { url: url.trim() }), ...optionsBody(options) }, { onSuccess: () => setSaved(true) });
  }
  return (
    <details className="edit-channel">
      <summary>Edit the channel</summary>
      <form className="form card" onSubmit={submit} aria-label="Edit the channel">
        <label htmlFor="e-name">Name</label>
        <input id="e-name" required value={name} maxLength={200} onChange={(e) => setName(e.target.value)} />
        <label htmlFor="e-url">New URL</label>
        <input id="e-url" value={url} autoComplete="off" spellCheck={false} placeholder="keep the stored one" aria-describedby="e-url-hint" onChange={(e) => setUrl(e.target.value)} />
        <p className="hint" id="e-url-hint">
          The stored URL holds secrets and is never shown whole; type a new one to replace it.
        </p>
        <ChannelOptionsFields value={options} onChange={setOptions} />
        <MutationError error={update.error} />
        <div aria-live="polite">{saved ? <p className="state ok">Saved.</p> : null}</div>
        <button type="submit" className="primary" disabled={update.isPending}>
          {update.isPending ? "Saving…" : "Save changes"}
        </button>
      </form>
    </details>
  );
}
