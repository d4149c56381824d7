import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useMemo, useState, type ReactNode } from "react";
import { createBrowserRouter, Navigate, RouterProvider, type RouteObject } from "react-router";
import { ClientProvider } from "./api/context";
import { clientFor, readSession, signOut, type Session } from "./auth/session";
import { SessionContext } from "./auth/session-context";
import { SignInPage } from "./auth/SignInPage";
import { DiffPage } from "./features/diffs/DiffPage";
import { MonitorDetailPage } from "./features/monitors/MonitorDetailPage";
import { MonitorFormPage } from "./features/monitors/MonitorFormPage";
import { MonitorsPage } from "./features/monitors/MonitorsPage";
import { RulesPage } from "./features/rules/RulesPage";
import { SettingsPage } from "./features/settings/SettingsPage";
import { TokensPage } from "./features/tokens/TokensPage";
import { WebhookDetailPage } from "./features/webhooks/WebhookDetailPage";
import { WebhooksPage } from "./features/webhooks/WebhooksPage";
import { Layout } from "./ui/Layout";

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
      { path: "monitors/:monitorId/diffs/:diffId", element: <DiffPage /> },
      { path: "webhooks", element: <WebhooksPage /> },
      { path: "webhooks/:webhookId", element: <WebhookDetailPage /> },
      { path: "tokens", element: <TokensPage /> },
      { path: "settings", element: <SettingsPage /> },
      { path: "*", element: <Navigate to="/monitors" replace /> },
    ],
  },
];

function newQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        retry: (count, error) => count < 2 && ((error as { status?: number }).status ?? 500) >= 500,
        refetchOnWindowFocus: false,
      },
    },
  });
}

/** Signed in: the client, the query cache and the router; signed out: the sign-in page. */
export function App(): ReactNode {
  const [session, setSession] = useState<Session | null>(() => readSession());
  const router = useMemo(() => (session === null ? null : createBrowserRouter(routes)), [session]);
  const queryClient = useMemo(() => newQueryClient(), [session]);
  const client = useMemo(() => (session === null ? null : clientFor(session)), [session]);
  if (session === null || router === null || client === null) return <SignInPage onSignedIn={setSession} />;
  return (
    <QueryClientProvider client={queryClient}>
      <ClientProvider client={client}>
        <SessionContext.Provider
          value={{
            signOut: () => {
              signOut();
              queryClient.clear();
              setSession(null);
            },
          }}
        >
          <RouterProvider router={router} />
        </SessionContext.Provider>
      </ClientProvider>
    </QueryClientProvider>
  );
}
