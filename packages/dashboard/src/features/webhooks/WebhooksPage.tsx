import type { Severity } from "@driftwatch/client";
import { useState, type FormEvent, type ReactNode } from "react";
import { Link } from "react-router";
import { useCan } from "../../auth/session-context";
import { MutationError } from "../../ui/FieldErrors";
import { Page } from "../../ui/Page";
import { RelativeTime } from "../../ui/RelativeTime";
import { ShownOnce } from "../../ui/Secret";
import { SeverityBadge, SeverityOptions } from "../../ui/severity";
import { EmptyState, ErrorState, Loading } from "../../ui/states";
import { useCreateWebhook, useWebhooks } from "./api";

export function WebhooksPage(): ReactNode {
  const webhooks = useWebhooks();
  const create = useCreateWebhook();
  const canWrite = useCan("webhooks:write");
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [minSeverity, setMinSeverity] = useState<Severity>("info");
  const [secret, setSecret] = useState<string | null>(null);
  function submit(event: FormEvent): void {
    event.preventDefault();
    create.mutate(
      { url: url.trim(), description: description.trim() === "" ? null : description.trim(), minSeverity },
      {
        onSuccess: (hook) => {
          setSecret(hook.secret);
          setUrl("");
          setDescription("");
        },
      },
    );
  }
  return (
    <Page title="Webhooks">
      {secret ? <ShownOnce label="Signing secret of the new webhook." value={secret} onDone={() => setSecret(null)} /> : null}
      {webhooks.isPending ? (
        <Loading what="webhooks" />
      ) : webhooks.isError ? (
        <ErrorState error={webhooks.error} retry={() => void webhooks.refetch()} />
      ) : webhooks.data.length === 0 ? (
        <EmptyState title="No webhooks yet">
          <p>A webhook receives a signed diff.detected event each time a monitor changes. Add one below.</p>
        </EmptyState>
      ) : (
        <ul className="cards">
          {webhooks.data.map((w) => (
            <li key={w.id} className="card">
              <h2>
                <Link to={`/webhooks/${w.id}`}>{w.description ?? w.url}</Link>
              </h2>
              <p className="break muted">{w.url}</p>
              <p>
                {w.enabled ? "Enabled" : "Disabled"} · from <SeverityBadge severity={w.minSeverity} /> ·{" "}
                {w.monitorIds === null ? "all monitors" : `${String(w.monitorIds.length)} monitors`} · created <RelativeTime value={w.createdAt} />
              </p>
            </li>
          ))}
        </ul>
      )}
      {canWrite ? (
      <form className="form card" onSubmit={submit}>
        <h2>Add a webhook</h2>
        <label htmlFor="w-url">Endpoint URL</label>
        <input id="w-url" type="url" required value={url} placeholder="https://example.com/hooks/driftwatch" onChange={(e) => setUrl(e.target.value)} />
        <label htmlFor="w-desc">Description</label>
        <input id="w-desc" value={description} maxLength={500} onChange={(e) => setDescription(e.target.value)} />
        <label htmlFor="w-sev">Only changes at least</label>
        <select id="w-sev" value={minSeverity} onChange={(e) => setMinSeverity(e.target.value as Severity)}>
          <SeverityOptions />
        </select>
        <MutationError error={create.error} />
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? "Adding…" : "Add webhook"}
        </button>
      </form>
      ) : null}
    </Page>
  );
}
