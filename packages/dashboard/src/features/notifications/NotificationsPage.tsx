import { useState, type FormEvent, type ReactNode } from "react";
import { Link } from "react-router";
import { useCan } from "../../auth/session-context";
import { MutationError } from "../../ui/FieldErrors";
import { Page } from "../../ui/Page";
import { RelativeTime } from "../../ui/RelativeTime";
import { SeverityBadge } from "../../ui/severity";
import { EmptyState, ErrorState, Loading } from "../../ui/states";
import { TagList } from "../../ui/Tags";
import { useChannels, useCreateChannel, type Channel } from "./api";
import { ChannelOptionsFields, defaultOptions, optionsBody, type ChannelOptionValues } from "./ChannelOptions";
import { buildServiceUrl, FORM_FIELDS, SERVICE_FORMS, serviceLabel, serviceOf, type ServiceForm } from "./services";

export function ChannelStatus({ channel: c }: { channel: Channel }): ReactNode {
  if (c.paused) return <span className="tag state-paused">paused</span>;
  if (c.status === "failing")
    return (
      <>
        <span className="tag state-failed">failing</span>
        {c.statusReason ? <span className="break"> {c.statusReason}</span> : null}
      </>
    );
  return <span className="tag state-succeeded">ok</span>;
}

export function NotificationsPage(): ReactNode {
  const channels = useChannels();
  const canWrite = useCan("webhooks:write");
  return (
    <Page title="Notifications">
      <p className="muted">
        Channels send each change to chat, mail, push or on-call services. Paste an{" "}
        <a href="https://github.com/caronc/apprise/wiki" rel="noreferrer">
          Apprise URL
        </a>{" "}
        or fill in a service's form.{" "}
        <Link to="/notifications/preview">Preview the messages</Link>
      </p>
      {channels.isPending ? (
        <Loading what="channels" />
      ) : channels.isError ? (
        <ErrorState error={channels.error} retry={() => void channels.refetch()} />
      ) : channels.data.length === 0 ? (
        <EmptyState title="No channels yet">
          <p>Add one below: changes then reach people where they already are.</p>
        </EmptyState>
      ) : (
        <ul className="cards" aria-label="Channels">
          {channels.data.map((c) => (
            <li key={c.id} className="card">
              <h2>
                <Link to={`/notifications/${c.id}`}>{c.name}</Link>
              </h2>
              <p>
                <span className="badge">{serviceLabel(c)}</span> <ChannelStatus channel={c} />
              </p>
              <p className="break muted">{c.url}</p>
              <div className="channel-facts">
                from <SeverityBadge severity={c.minSeverity} /> · {c.tags.length === 0 ? "all monitors" : <TagList tags={c.tags} />} ·{" "}
                {c.groupSeconds > 0 ? `grouped by ${String(c.groupSeconds)} s · ` : ""}
                {c.quietHours ? "quiet hours · " : ""}created <RelativeTime value={c.createdAt} />
              </div>
            </li>
          ))}
        </ul>
      )}
      {canWrite ? <AddChannel /> : null}
    </Page>
  );
}

function AddChannel(): ReactNode {
  const create = useCreateChannel();
  const [mode, setMode] = useState<"url" | ServiceForm>("url");
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [fields, setFields] = useState<Record<string, string>>({});
  const [options, setOptions] = useState<ChannelOptionValues>(defaultOptions);
  const [formError, setFormError] = useState<string | null>(null);
  const [added, setAdded] = useState<Channel | null>(null);

  function submit(event: FormEvent): void {
    event.preventDefault();
    let target = url.trim();
    if (mode !== "url") {
      const built = buildServiceUrl(mode, fields);
      if ("error" in built) {
        setFormError(built.error);
        return;
      }
      target = built.url;
    }
    setFormError(null);
    create.mutate(
      { name: name.trim() === "" ? serviceOf(target) : name.trim(), url: target, ...optionsBody(options) },
      {
        onSuccess: (channel) => {
          setAdded(channel);
          setName("");
          setUrl("");
          setFields({});
        },
      },
    );
  }

  return (
    <form className="form card" onSubmit={submit} aria-labelledby="add-channel">
      <h2 id="add-channel">Add a channel</h2>
      {added ? (
        <p className="state ok" role="status">
          Added <Link to={`/notifications/${added.id}`}>{added.name}</Link>. Send it a test message from its page.
        </p>
      ) : null}
      <label htmlFor="c-how">Service</label>
      <select
        id="c-how"
        value={mode}
        onChange={(e) => {
          setMode(e.target.value as "url" | ServiceForm);
          setFields({});
          setFormError(null);
        }}
      >
        <option value="url">Paste an Apprise URL</option>
        {SERVICE_FORMS.map((s) => (
          <option key={s.id} value={s.id}>
            {s.label}
          </option>
        ))}
      </select>
      <label htmlFor="c-name">Name</label>
      <input id="c-name" value={name} maxLength={200} placeholder="#alerts on Slack" onChange={(e) => setName(e.target.value)} />
      {mode === "url" ? (
        <>
          <label htmlFor="c-url">Apprise URL</label>
          <input
            id="c-url"
            required
            autoComplete="off"
            spellCheck={false}
            value={url}
            placeholder="slack://T000/B000/XXXX or tgram://bottoken/chat_id"
            aria-describedby="c-url-hint"
            onChange={(e) => setUrl(e.target.value)}
          />
          <p className="hint" id="c-url-hint">
            {url.trim() === "" ? "The same URL changedetection.io takes; a Slack or Discord webhook URL works too." : `Service: ${serviceOf(url)}`}
          </p>
        </>
      ) : (
        FORM_FIELDS[mode].map(([field, label, placeholder, secret]) => (
          <div key={`${mode}-${field}`}>
            <label htmlFor={`c-f-${field}`}>{label}</label>
            <input
              id={`c-f-${field}`}
              type={secret ? "password" : "text"}
              autoComplete="off"
              spellCheck={false}
              value={fields[field] ?? ""}
              placeholder={placeholder}
              onChange={(e) => setFields((old) => ({ ...old, [field]: e.target.value }))}
            />
          </div>
        ))
      )}
      <ChannelOptionsFields value={options} onChange={setOptions} />
      {formError ? (
        <p className="field-error" role="alert">
          {formError}
        </p>
      ) : null}
      <MutationError error={create.error} />
      <button type="submit" className="primary" disabled={create.isPending}>
        {create.isPending ? "Adding…" : "Add channel"}
      </button>
    </form>
  );
}
