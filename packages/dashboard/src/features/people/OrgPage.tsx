import type { LearningSettings, OrgUpdate } from "@driftwatch/client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent, type ReactNode } from "react";
import { useClient } from "../../api/context";
import { useCan, useIsOwnerSession, useSessionActions } from "../../auth/session-context";
import { Fact } from "../../ui/Fact";
import { MutationError } from "../../ui/FieldErrors";
import { Page } from "../../ui/Page";
import { RelativeTime } from "../../ui/RelativeTime";
import { EmptyState } from "../../ui/states";
import { LearningFields, YoungMonitorsRule } from "../rules/LearningFields";
import { describeLearning, learningDraftOf, parseLearningDraft, sameLearning } from "../rules/learning-settings";

/**
 * The active organization: rename it and set what new monitors start with (admins), delete it
 * (owners, after typing its name).
 */
export function OrgPage(): ReactNode {
  const client = useClient();
  const queryClient = useQueryClient();
  const { me, signOut } = useSessionActions();
  const isAdmin = useCan("admin");
  const isOwner = useIsOwnerSession();
  const [name, setName] = useState(me?.org.name ?? "");
  const [confirm, setConfirm] = useState("");
  const [saved, setSaved] = useState(false);
  const rename = useMutation({
    mutationFn: async (orgId: string) => await client.orgs.update(orgId, { name: name.trim() }),
    onSuccess: () => {
      setSaved(true);
      void queryClient.invalidateQueries({ queryKey: ["me"] });
    },
  });
  const remove = useMutation({ mutationFn: async (orgId: string) => await client.orgs.delete(orgId), onSuccess: signOut });
  if (me === null) {
    return (
      <Page title="Organization">
        <EmptyState title="This server does not say which organization you are in" />
      </Page>
    );
  }
  const org = me.org;
  function submit(event: FormEvent): void {
    event.preventDefault();
    setSaved(false);
    rename.mutate(org.id);
  }
  return (
    <Page title="Organization">
      <section className="card" aria-labelledby="o-facts">
        <h2 id="o-facts" className="break">{org.name}</h2>
        <dl className="summary">
          <Fact label="Slug" valueClass="break">
            {org.slug}
          </Fact>
          <Fact label="Id" valueClass="break">
            <code>{org.id}</code>
          </Fact>
          <Fact label="Created">
            <RelativeTime value={org.createdAt} />
          </Fact>
          <Fact label="Your role">{me.role ?? "API token"}</Fact>
          <Fact label="New monitors learn">{org.learnNoiseByDefault ? "yes" : "no"}</Fact>
          <Fact label="Their first fetches">{org.learningDefaults === null ? "the service’s defaults" : describeLearning(org.learningDefaults)}</Fact>
        </dl>
      </section>
      {isAdmin ? (
        <form className="form card" onSubmit={submit} aria-labelledby="o-rename">
          <h2 id="o-rename">Rename</h2>
          <label htmlFor="o-name">Name</label>
          <input id="o-name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
          <MutationError error={rename.error} />
          {saved ? (
            <p className="state ok" role="status">
              Saved.
            </p>
          ) : null}
          <button type="submit" className="primary" disabled={rename.isPending || name.trim() === ""}>
            {rename.isPending ? "Saving…" : "Save name"}
          </button>
        </form>
      ) : null}
      {isAdmin ? <NewMonitorDefaults key={org.id} orgId={org.id} learnNoiseByDefault={org.learnNoiseByDefault} learningDefaults={org.learningDefaults} /> : null}
      {isOwner ? (
        <form
          className="form card danger-zone"
          aria-labelledby="o-delete"
          onSubmit={(e) => {
            e.preventDefault();
            remove.mutate(org.id);
          }}
        >
          <h2 id="o-delete">Delete this organization</h2>
          <p className="break">Deletes every monitor, diff, webhook, token, member and invitation of {org.name}, for good. There is no undo.</p>
          <label htmlFor="o-confirm" className="break">
            Type <code>{org.name}</code> to confirm
          </label>
          <input id="o-confirm" autoComplete="off" value={confirm} onChange={(e) => setConfirm(e.target.value)} />
          <MutationError error={remove.error} />
          <button type="submit" className="danger" disabled={remove.isPending || confirm !== org.name}>
            {remove.isPending ? "Deleting…" : "Delete organization"}
          </button>
        </form>
      ) : null}
    </Page>
  );
}

/**
 * What the organization's new monitors start with (`learnNoiseByDefault`, `learningDefaults`, admins):
 * existing monitors keep their own settings.
 */
function NewMonitorDefaults(props: { orgId: string; learnNoiseByDefault: boolean; learningDefaults: LearningSettings | null }): ReactNode {
  const client = useClient();
  const queryClient = useQueryClient();
  const [learns, setLearns] = useState(props.learnNoiseByDefault);
  const [draft, setDraft] = useState(() => learningDraftOf(props.learningDefaults));
  const parsed = parseLearningDraft(draft);
  const learningChanged = parsed.ok && !sameLearning(parsed.value, props.learningDefaults);
  const dirty = learns !== props.learnNoiseByDefault || learningChanged;
  const save = useMutation({
    mutationFn: async (body: OrgUpdate) => await client.orgs.update(props.orgId, body),
    onSuccess: async () => await queryClient.invalidateQueries({ queryKey: ["me"] }),
  });
  const fieldErrors = (save.error as { errors?: Array<{ path: string }> } | null)?.errors ?? [];
  const otherError = fieldErrors.length > 0 && fieldErrors.every((f) => f.path.startsWith("learningDefaults.")) ? null : save.error;
  function submit(event: FormEvent): void {
    event.preventDefault();
    if (!parsed.ok || !dirty) return;
    save.mutate({
      ...(learns !== props.learnNoiseByDefault ? { learnNoiseByDefault: learns } : {}),
      ...(learningChanged ? { learningDefaults: parsed.value } : {}),
    });
  }
  return (
    <form className="form card" onSubmit={submit} aria-labelledby="o-defaults" noValidate>
      <h2 id="o-defaults">New monitors</h2>
      <p className="hint">What a monitor created from now on starts with; existing monitors keep their own settings (change them on each monitor’s rules page).</p>
      <label className="inline">
        <input type="checkbox" checked={learns} onChange={(e) => setLearns(e.target.checked)} /> New monitors learn their noise from their own snapshots and apply it
      </label>
      <fieldset>
        <legend>Their first fetches</legend>
        <p className="hint">Leave a field empty for the service’s default.</p>
        <LearningFields idPrefix="o-learning" draft={draft} onChange={setDraft} errors={parsed.ok ? {} : parsed.errors} serverError={save.error} errorBase="learningDefaults" />
      </fieldset>
      <p className="hint">
        A young monitor’s diffs are recorded as <code>learning</code> diffs and <YoungMonitorsRule />
      </p>
      <MutationError error={otherError} />
      <div className="actions">
        <button type="submit" className="primary" disabled={!dirty || !parsed.ok || save.isPending}>
          {save.isPending ? "Saving…" : "Save defaults"}
        </button>
        {save.isSuccess && !dirty ? <span role="status">Saved.</span> : null}
      </div>
    </form>
  );
}
