import type { Token, TokenCreate } from "@driftwatch/client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent, type ReactNode } from "react";
import { allPages } from "../../api/all-pages";
import { useClient } from "../../api/context";
import { peopleKeys, tokenKeys } from "../../api/keys";
import { useSessionActions } from "../../auth/session-context";
import { MutationError } from "../../ui/FieldErrors";
import { Page } from "../../ui/Page";
import { RelativeTime } from "../../ui/RelativeTime";
import { ShownOnce } from "../../ui/Secret";
import { EmptyState, ErrorState, Loading } from "../../ui/states";

type Scope = TokenCreate["scopes"][number];
const SCOPES: Array<[Scope, string]> = [
  ["monitors:read", "Read monitors, diffs and settings"],
  ["monitors:write", "Create, change and check monitors"],
  ["webhooks:read", "Read webhooks and deliveries"],
  ["webhooks:write", "Manage webhooks"],
  ["admin", "Everything, including tokens"],
];

export function TokensPage(): ReactNode {
  const client = useClient();
  const queryClient = useQueryClient();
  const tokens = useQuery({ queryKey: tokenKeys.list(), queryFn: () => allPages(client.tokens.list({ limit: 100 }), 1000) });
  // Who created each token, by the member list (tokens of a removed member are revoked with them).
  const { me } = useSessionActions();
  const orgId = me?.org.id ?? null;
  const members = useQuery({
    queryKey: peopleKeys.members(orgId ?? ""),
    queryFn: () => allPages(client.orgs.members.list(orgId!, { limit: 100 }), 5000),
    enabled: orgId !== null,
  });
  const creatorOf = (t: Token): string => {
    if (t.createdBy === null) return "the CLI or the setup";
    const member = (members.data ?? []).find((m) => m.userId === t.createdBy);
    return member === undefined ? "a former member" : member.email;
  };
  const create = useMutation({
    mutationFn: async (body: TokenCreate) => await client.tokens.create(body),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: tokenKeys.list() }),
  });
  const revoke = useMutation({
    mutationFn: async (id: string) => await client.tokens.delete(id),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: tokenKeys.list() }),
  });
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<Scope[]>(["monitors:read"]);
  const [secret, setSecret] = useState<string | null>(null);
  function submit(event: FormEvent): void {
    event.preventDefault();
    create.mutate(
      { name: name.trim(), scopes },
      {
        onSuccess: (token) => {
          setSecret(token.token);
          setName("");
        },
      },
    );
  }
  const active = (tokens.data ?? []).filter((t: Token) => t.revokedAt === null);
  return (
    <Page title="API tokens">
      {secret ? <ShownOnce label="Your new token." value={secret} onDone={() => setSecret(null)} /> : null}
      {tokens.isPending ? (
        <Loading what="tokens" />
      ) : tokens.isError ? (
        <ErrorState error={tokens.error} retry={() => void tokens.refetch()} />
      ) : active.length === 0 ? (
        <EmptyState title="No active tokens">
          <p>Create one below for a script or a CI job.</p>
        </EmptyState>
      ) : (
        <ul className="cards">
          {active.map((t) => (
            <li key={t.id} className="card token">
              <h2>{t.name}</h2>
              <p>
                {t.scopes.map((s) => (
                  <span key={s} className="tag">
                    {s}
                  </span>
                ))}
              </p>
              <p className="muted">
                Created <RelativeTime value={t.createdAt} /> by {creatorOf(t)}, last used <RelativeTime value={t.lastUsedAt} />
              </p>
              <button
                type="button"
                className="danger"
                disabled={revoke.isPending}
                onClick={() => {
                  if (window.confirm(`Revoke ${t.name}? Programs using it stop working at once.`)) revoke.mutate(t.id);
                }}
              >
                Revoke<span className="sr-only"> {t.name}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <MutationError error={revoke.error} />
      <form className="form card" onSubmit={submit}>
        <h2>Create a token</h2>
        <label htmlFor="t-name">Name</label>
        <input id="t-name" required maxLength={200} value={name} placeholder="ci-deploy-check" onChange={(e) => setName(e.target.value)} />
        <fieldset>
          <legend>Scopes</legend>
          {SCOPES.map(([scope, label]) => (
            <label className="inline block" key={scope}>
              <input type="checkbox" checked={scopes.includes(scope)} onChange={(e) => setScopes((all) => (e.target.checked ? [...all, scope] : all.filter((s) => s !== scope)))} />{" "}
              <code>{scope}</code> {label}
            </label>
          ))}
        </fieldset>
        <MutationError error={create.error} />
        <button type="submit" className="primary" disabled={create.isPending || scopes.length === 0}>
          {create.isPending ? "Creating…" : "Create token"}
        </button>
      </form>
    </Page>
  );
}
