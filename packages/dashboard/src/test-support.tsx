import { Driftwatch, type Me, type MonitorFailure } from "@driftwatch/client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, type RenderResult } from "@testing-library/react";
import type { ReactNode } from "react";
import { MemoryRouter, Route, Routes } from "react-router";
import { ClientProvider } from "./api/context";
import { SessionContext } from "./auth/session-context";

export interface Call {
  method: string;
  path: string;
  body: unknown;
  /** The request's headers (not enumerable: tests compare calls without them). */
  readonly headers: Record<string, string>;
}

export type Answer = { status?: number; body?: unknown; headers?: Record<string, string> };
/** The server's answer to a call; a promise holds the request in flight until it settles. */
export type Handler = (call: Call) => Answer | undefined | Promise<Answer | undefined>;

/** A client whose fetch answers from `handler` (and records every call), as the server would. */
export function fakeClient(handler: Handler): { client: Driftwatch; calls: Call[] } {
  const calls: Call[] = [];
  const fetch = async (input: string, init: RequestInit): Promise<Response> => {
    const url = new URL(input);
    const call = { method: init.method ?? "GET", path: url.pathname + url.search, body: typeof init.body === "string" ? JSON.parse(init.body) : undefined } as Call;
    Object.defineProperty(call, "headers", { value: { ...(init.headers as Record<string, string> | undefined) }, enumerable: false });
    calls.push(call);
    const answer = (await handler(call)) ?? {
      status: 404,
      body: { type: "about:blank", title: "Not found", status: 404, detail: `no fake for ${call.method} ${call.path}`, code: "not_found", requestId: "req_fake404" },
    };
    const status = answer.status ?? 200;
    // bytes (a screenshot) go out as they are, with the type the answer names
    if (answer.body instanceof Uint8Array) return new Response(answer.body as Uint8Array<ArrayBuffer>, { status, headers: { "content-type": "image/png", "x-request-id": "req_fake", ...answer.headers } });
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
      status,
      headers: { "content-type": status >= 400 ? "application/problem+json" : "application/json", "x-request-id": "req_fake", ...answer.headers },
    });
  };
  return { client: new Driftwatch({ baseUrl: "http://dw.test", token: "dw_test", fetch, maxRetries: 0 }), calls };
}

/**
 * Renders `element` at `path` (matching `pattern`) with a fresh query cache and the client; `me`
 * (who is signed in, from `meAs`) when the page depends on the role.
 */
export function renderPage(element: ReactNode, client: Driftwatch, path = "/", pattern = "*", me: Me | null = null): RenderResult & { queryClient: QueryClient } {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const session = me === null ? null : ({ kind: "account", me } as const);
  const result = render(
    <QueryClientProvider client={queryClient}>
      <ClientProvider client={client}>
        <SessionContext.Provider value={{ session, me, signOut: () => undefined, switched: () => undefined }}>
          <MemoryRouter initialEntries={[path]}>
            <Routes>
              <Route path={pattern} element={element} />
            </Routes>
          </MemoryRouter>
        </SessionContext.Provider>
      </ClientProvider>
    </QueryClientProvider>,
  );
  return { ...result, queryClient };
}

export function monitor(i: number, patch: Record<string, unknown> = {}) {
  return {
    id: `mon_${String(i).padStart(6, "0")}`,
    type: "api" as const,
    name: `Monitor ${String(i)}`,
    url: `https://api.example.com/${String(i)}`,
    method: "GET" as const,
    headers: {},
    body: null,
    intervalSeconds: 300,
    selector: null,
    browserOptionsJson: null,
    contract: null,
    tags: [] as string[],
    state: "active" as const,
    consecutiveFailures: 0,
    lastCheckedAt: "2026-11-25T09:00:00.000Z",
    lastChangedAt: null,
    nextCheckAt: null,
    lastStatus: 200,
    lastError: null,
    lastFailure: null as MonitorFailure | null,
    createdAt: "2026-11-01T00:00:00.000Z",
    updatedAt: "2026-11-01T00:00:00.000Z",
    ...patch,
  };
}

const SCOPES_OF = {
  viewer: ["monitors:read", "webhooks:read"],
  member: ["monitors:read", "monitors:write", "webhooks:read", "webhooks:write"],
  admin: ["admin"],
  owner: ["admin"],
} as const;

/** Who is signed in, as `GET /api/auth/me` answers for a session with `role` in org_1. */
export function meAs(role: keyof typeof SCOPES_OF, patch: Partial<Me> = {}): Me {
  return {
    via: "session",
    user: { id: "usr_self", email: "self@example.com", displayName: "Self", createdAt: "2026-11-01T00:00:00.000Z" },
    org: { id: "org_1", slug: "acme", name: "Acme", learnNoiseByDefault: true, learningDefaults: null, createdAt: "2026-11-01T00:00:00.000Z" },
    role,
    scopes: [...SCOPES_OF[role]],
    orgs: [{ id: "org_1", slug: "acme", name: "Acme", role }],
    csrfToken: "csrf_test",
    ...patch,
  };
}
