import { API_VERSION } from "@driftwatch/client";
import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { useClient } from "../../api/context";
import { useSessionActions } from "../../auth/session-context";
import { SignOutButton } from "../../auth/SignOutButton";
import { Page } from "../../ui/Page";
import { ErrorState, Loading } from "../../ui/states";
import { Fact } from "../../ui/Fact";

/**
 * The organization as this token sees it: the server, the API version, what the token may do.
 * (Members, invites and roles come with user accounts.)
 */
export function SettingsPage(): ReactNode {
  const client = useClient();
  const { session } = useSessionActions();
  const access = useQuery({
    queryKey: ["access"],
    queryFn: async () => {
      const probe = async (call: () => Promise<unknown>): Promise<boolean> => {
        try {
          await call();
          return true;
        } catch (error) {
          if ((error as { status?: number }).status === 403) return false;
          throw error;
        }
      };
      const [monitors, webhooks, admin] = await Promise.all([
        probe(async () => await client.monitors.list({ limit: 1 })),
        probe(async () => await client.webhooks.list({ limit: 1 })),
        probe(async () => await client.tokens.list({ limit: 1 })),
      ]);
      return { monitors, webhooks, admin };
    },
  });
  return (
    <Page title="Settings">
      <section className="card" aria-labelledby="s-server">
        <h2 id="s-server">Server</h2>
        <dl className="summary">
          <Fact label="API" valueClass="break">
            {client.http.baseUrl}/api
          </Fact>
          <Fact label="API version">{API_VERSION}</Fact>
          <Fact label="Reference">
            <a href="/api/openapi.json">OpenAPI document</a>
          </Fact>
        </dl>
      </section>
      <section className="card" aria-labelledby="s-access">
        <h2 id="s-access">This session</h2>
        {access.isPending ? <Loading what="access" /> : null}
        {access.isError ? <ErrorState error={access.error} /> : null}
        {access.data ? (
          <ul>
            <li>Monitors: {access.data.monitors ? "can read" : "no access"}</li>
            <li>Webhooks: {access.data.webhooks ? "can read" : "no access"}</li>
            <li>Tokens: {access.data.admin ? "can manage (admin)" : "no access"}</li>
          </ul>
        ) : null}
        <p className="hint">
          {session?.kind === "account"
            ? "Signed in with your account (a session cookie the page cannot read). Signing out ends the session on the server."
            : "Signed in with an API token kept in this browser tab only. Signing out forgets it here; the token stays valid until revoked."}
        </p>
        <SignOutButton />
      </section>
      <section className="card" aria-labelledby="s-theme">
        <h2 id="s-theme">Appearance</h2>
        <p>The dashboard follows your system’s light or dark setting.</p>
      </section>
    </Page>
  );
}
