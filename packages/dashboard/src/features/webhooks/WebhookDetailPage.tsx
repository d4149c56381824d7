import type { Delivery } from "@driftwatch/client";
import { useState, type ReactNode } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { useCan } from "../../auth/session-context";
import { MutationError } from "../../ui/FieldErrors";
import { Page } from "../../ui/Page";
import { RelativeTime } from "../../ui/RelativeTime";
import { ShownOnce } from "../../ui/Secret";
import { SeverityBadge } from "../../ui/severity";
import { EmptyState, ErrorState, Loading } from "../../ui/states";
import { valueText } from "../../ui/value";
import { useDeleteWebhook, useDeliveries, useDeliveryDetail, useReplayDelivery, useRotateSecret, useUpdateWebhook, useWebhook } from "./api";
import { Fact } from "../../ui/Fact";

export function WebhookDetailPage(): ReactNode {
  const { webhookId = "" } = useParams();
  const webhook = useWebhook(webhookId);
  const deliveries = useDeliveries(webhookId);
  const update = useUpdateWebhook(webhookId);
  const rotate = useRotateSecret(webhookId);
  const remove = useDeleteWebhook();
  const replay = useReplayDelivery(webhookId);
  const navigate = useNavigate();
  const [secret, setSecret] = useState<string | null>(null);
  const canWrite = useCan("webhooks:write");
  if (webhook.isPending) return <Loading what="the webhook" />;
  if (webhook.isError) return <ErrorState error={webhook.error} retry={() => void webhook.refetch()} />;
  const w = webhook.data;
  return (
    <Page
      title={w.description ?? "Webhook"}
      actions={
        canWrite ? (
        <>
          <button type="button" disabled={update.isPending} onClick={() => update.mutate({ enabled: !w.enabled })}>
            {w.enabled ? "Disable" : "Enable"}
          </button>
          <button
            type="button"
            disabled={rotate.isPending}
            onClick={() => {
              if (window.confirm("Rotate the signing secret? The old secret keeps signing for 24 hours.")) rotate.mutate(undefined, { onSuccess: (r) => setSecret(r.secret) });
            }}
          >
            Rotate secret
          </button>
          <button
            type="button"
            className="danger"
            onClick={() => {
              if (window.confirm("Delete this webhook and its delivery log?")) remove.mutate(w.id, { onSuccess: () => void navigate("/webhooks") });
            }}
          >
            Delete
          </button>
        </>
        ) : null
      }
    >
      <p>
        <Link to="/webhooks">← Webhooks</Link>
      </p>
      {secret ? <ShownOnce label="New signing secret." value={secret} onDone={() => setSecret(null)} /> : null}
      <MutationError error={update.error ?? rotate.error ?? remove.error} />
      <dl className="summary">
        <Fact label="Endpoint" wide valueClass="break">
          {w.url}
        </Fact>
        <Fact label="State">{w.enabled ? "enabled" : "disabled"}</Fact>
        <Fact label="Events">{w.events.join(", ")}</Fact>
        <Fact label="From severity">
          <SeverityBadge severity={w.minSeverity} />
        </Fact>
      </dl>
      <h2>Delivery log</h2>
      <MutationError error={replay.error} />
      {deliveries.isPending ? (
        <Loading what="deliveries" />
      ) : deliveries.isError ? (
        <ErrorState error={deliveries.error} retry={() => void deliveries.refetch()} />
      ) : deliveries.data.length === 0 ? (
        <EmptyState title="Nothing delivered yet">
          <p>A delivery appears here when a monitor this webhook covers records a change.</p>
        </EmptyState>
      ) : (
        <ol className="deliveries">
          {deliveries.data.map((d) => (
            <DeliveryItem key={d.id} delivery={d} busy={replay.isPending && replay.variables === d.id} onReplay={() => replay.mutate(d.id)} />
          ))}
        </ol>
      )}
    </Page>
  );
}

/** The payload as sent and every attempt with the receiver's answer, loaded when opened. */
function DeliveryDetails({ delivery: d }: { delivery: Delivery }): ReactNode {
  const [open, setOpen] = useState(false);
  const detail = useDeliveryDetail(d.webhookId, d.id, open, d.attempts);
  return (
    <details onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>Payload and attempts</summary>
      {detail.isPending && open ? <Loading what="the delivery" /> : null}
      {detail.isError ? <ErrorState error={detail.error} /> : null}
      {detail.data ? (
        <>
          <h3>Attempts</h3>
          {detail.data.attemptLog.length === 0 ? (
            <p className="muted">Not attempted yet.</p>
          ) : (
            <ol className="attempts">
              {detail.data.attemptLog.map((a) => (
                <li key={a.attempt}>
                  #{a.attempt} <RelativeTime value={a.at} />: {a.responseStatus === null ? "no response" : `HTTP ${String(a.responseStatus)}`} in {a.durationMs} ms
                  {a.error ? <span className="break"> ({a.error})</span> : null}
                </li>
              ))}
            </ol>
          )}
          <h3>Payload</h3>
          <pre className="payload">{valueText(detail.data.payload)}</pre>
        </>
      ) : null}
    </details>
  );
}

function DeliveryItem({ delivery: d, busy, onReplay }: { delivery: Delivery; busy: boolean; onReplay: () => void }): ReactNode {
  const canWrite = useCan("webhooks:write");
  return (
    <li className={`delivery d-${d.state}`}>
      <div className="delivery-head">
        <span className={`tag state-${d.state}`}>{d.state}</span> <code>{d.eventType}</code> <RelativeTime value={d.createdAt} />
      </div>
      <dl className="summary compact">
        <Fact label="Attempts">{d.attempts}</Fact>
        <Fact label="Response">{d.lastResponseStatus === null ? <span className="muted">none</span> : `HTTP ${String(d.lastResponseStatus)}`}</Fact>
        <Fact label="Last attempt">
          <RelativeTime value={d.lastAttemptAt} />
        </Fact>
        {d.state === "pending" && d.nextAttemptAt ? (
          <Fact label="Next attempt">
            <RelativeTime value={d.nextAttemptAt} />
          </Fact>
        ) : null}
      </dl>
      {d.lastError ? (
        <p className="detail">
          Error: <span className="break">{d.lastError}</span>
        </p>
      ) : null}
      <p className="detail">
        Event <code>{d.eventId}</code> of <Link to={`/monitors/${d.monitorId}/diffs/${d.diffId}`}>this diff</Link>.
      </p>
      <DeliveryDetails delivery={d} />
      {canWrite ? (
        <button type="button" disabled={busy} onClick={onReplay}>
          {busy ? "Replaying…" : "Replay"}
          <span className="sr-only"> delivery {d.id}</span>
        </button>
      ) : null}
    </li>
  );
}
