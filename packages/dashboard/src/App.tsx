import type { Me } from "@driftwatch/client";
import { QueryCache, QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useState, type ReactNode } from "react";
import { createBrowserRouter, Navigate, RouterProvider, type RouteObject } from "react-router";
import { ClientProvider } from "./api/context";
import { AccountPage } from "./features/people/AccountPage";
import { AuditPage } from "./features/people/AuditPage";
import { MembersPage } from "./features/people/MembersPage";
import { OrgPage } from "./features/people/OrgPage";
import { InvitePage } from "./auth/InvitePage";
import { accountSession, clientFor, restoreSession, signOut, type Session } from "./auth/session";
import { SessionContext } from "./auth/session-context";
import { SetupPage } from "./auth/SetupPage";
import { SignInPage } from "./auth/SignInPage";
import { AlertsPage } from "./features/conditions/AlertsPage";
import { DiffPage } from "./features/diffs/DiffPage";
import { MonitorDetailPage } from "./features/monitors/MonitorDetailPage";
import { MonitorFormPage } from "./features/monitors/MonitorFormPage";
import { MonitorsPage } from "./features/monitors/MonitorsPage";
import { RulesPage } from "./features/rules/RulesPage";
import { SettingsPage } from "./features/settings/SettingsPage";
import { TokensPage } from "./features/tokens/TokensPage";
import { WebhookDetailPage } from "./features/webhooks/WebhookDetailPage";
import { WebhooksPage } from "./features/webhooks/WebhooksPage";
import { ChannelDetailPage } from "./features/notifications/ChannelDetailPage";
import { NotificationsPage } from "./features/notifications/NotificationsPage";
import { PreviewPage } from "./features/notifications/PreviewPage";
import { Layout } from "./ui/Layout";
import { ErrorState, Loading } from "./ui/states";

export const routes: RouteObject[] = [
  {
    element: <Layout />,
    children: [
      { index: true, element: <Navigate to="/monitors" replace /> },
      { path: "monitors", element: <MonitorsPage /> },
      { path: "monitors/new", element: <MonitorFormPage /> },
      { path: "monitors/:monitorId", element: <MonitorDetailPage /> },
      { path: "monitors/:monitorId/edit", element: <MonitorFormPage /> },
      { path: "monitors/:monitorId/rules", element: <RulesPage /> },
      { path: "monitors/:monitorId/alerts", element: <AlertsPage /> },
      { path: "monitors/:monitorId/diffs/:diffId", element: <DiffPage /> },
      { path: "webhooks", element: <WebhooksPage /> },
      { path: "webhooks/:webhookId", element: <WebhookDetailPage /> },
      { path: "notifications", element: <NotificationsPage /> },
      { path: "notifications/preview", element: <PreviewPage /> },
      { path: "notifications/:channelId", element: <ChannelDetailPage /> },
      { path: "members", element: <MembersPage /> },
      { path: "org", element: <OrgPage /> },
      { path: "audit", element: <AuditPage /> },
      { path: "account", element: <AccountPage /> },
      { path: "tokens", element: <TokensPage /> },
      { path: "settings", element: <SettingsPage /> },
      { path: "*", element: <Navigate to="/monitors" replace /> },
    ],
  },
];

/** The pages a signed-out visitor reaches: first-run setup, an invitation, else sign-in. */
function publicRoutes(onSignedIn: (session: Session) => void): RouteObject[] {
  return [
    { path: "setup", element: <SetupPage onSignedIn={onSignedIn} /> },
    { path: "invite", element: <InvitePage onSignedIn={onSignedIn} /> },
    { path: "*", element: <SignInPage onSignedIn={onSignedIn} /> },
  ];
}

function newQueryClient(onUnauthenticated: () => void): QueryClient {
  return new QueryClient({
    // a session that ended (expired, revoked, signed out elsewhere) goes back to sign-in
    queryCache: new QueryCache({ onError: (error) => void ((error as { status?: number }).status === 401 && onUnauthenticated()) }),
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        retry: (count, error) => count < 2 && ((error as { status?: number }).status ?? 500) >= 500,
        refetchOnWindowFocus: false,
      },
    },
  });
}

type Phase = { state: "restoring" } | { state: "failed"; error: unknown } | { state: "ready"; session: Session | null };

/** Signed in: the client, the query cache and the router; signed out: sign-in, setup and invitations. */
export function App(): ReactNode {
  const [phase, setPhase] = useState<Phase>({ state: "restoring" });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    restoreSession().then(
      (session) => live && setPhase({ state: "ready", session }),
      (error: unknown) => live && setPhase({ state: "failed", error }),
    );
    return () => {
      live = false;
    };
  }, [attempt]);
  const session = phase.state === "ready" ? phase.session : null;
  const setSession = (next: Session | null): void => setPhase({ state: "ready", session: next });
  const queryClient = useMemo(() => newQueryClient(() => void signOut(null).then(() => setSession(null))), [session]);
  const router = useMemo(() => (phase.state !== "ready" ? null : createBrowserRouter(session === null ? publicRoutes(setSession) : routes)), [phase]);
  if (phase.state === "restoring") return <main className="signin" id="main"><Loading what="your session" /></main>;
  if (phase.state === "failed") return <main className="signin" id="main"><ErrorState error={phase.error} retry={() => setAttempt((a) => a + 1)} /></main>;
  if (router === null) return null;
  return (
    <QueryClientProvider client={queryClient}>
      {session === null ? (
        <RouterProvider router={router} />
      ) : (
        <SignedIn
          session={session}
          onSignOut={() => {
            void signOut(session).then(() => {
              queryClient.clear();
              setSession(null);
            });
          }}
          onSwitched={(me) => setSession(accountSession(me))}
        >
          <RouterProvider router={router} />
        </SignedIn>
      )}
    </QueryClientProvider>
  );
}

/** Provides the client and who is signed in (`GET /api/auth/me`, also for a token). */
function SignedIn({ session, onSignOut, onSwitched, children }: { session: Session; onSignOut: () => void; onSwitched: (me: Me) => void; children: ReactNode }): ReactNode {
  const client = useMemo(() => clientFor(session), [session]);
  const me = useQuery({
    queryKey: ["me"],
    queryFn: async (): Promise<Me | null> => {
      try {
        const answer = await client.auth.me();
        if (answer.via === "session") accountSession(answer);
        return answer;
      } catch (error) {
        // a server without accounts: permissions unknown, the server still enforces them
        if ((error as { status?: number }).status === 404) return null;
        throw error;
      }
    },
    ...(session.kind === "account" ? { initialData: session.me } : {}),
  });
  return (
    <ClientProvider client={client}>
      <SessionContext.Provider value={{ session, me: me.data ?? null, signOut: onSignOut, switched: onSwitched }}>{children}</SessionContext.Provider>
    </ClientProvider>
  );
}
