import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { ReactNode } from "react";
import { MemoryRouter } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { meAs } from "../test-support";
import { InvitePage } from "./InvitePage";
import { currentCsrfToken } from "./session";
import { SetupPage } from "./SetupPage";

/** vi.waitFor gives up after 1 s by default: too soon for a render and a request on a loaded machine. */
const WAIT = { timeout: 20_000 };

type Seen = { method: string; url: string; body: unknown };

/** The server as global fetch: `routes` answers "METHOD /path" (query and fragment left out). */
function serve(routes: Record<string, { status: number; body?: unknown }>): Seen[] {
  const seen: Seen[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: string, init: RequestInit) => {
      const url = new URL(input);
      seen.push({ method: init.method ?? "GET", url: url.pathname + url.search, body: typeof init.body === "string" ? JSON.parse(init.body) : undefined });
      const answer = routes[`${init.method ?? "GET"} ${url.pathname}`] ?? { status: 404, body: { status: 404, code: "not_found", detail: "no route", requestId: "req_nf" } };
      return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
        status: answer.status,
        headers: { "content-type": "application/json", "x-request-id": "req_public" },
      });
    }),
  );
  return seen;
}

function open(hash: string, page: ReactNode): void {
  window.history.replaceState(null, "", `/somewhere${hash}`);
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter>{page}</MemoryRouter>
    </QueryClientProvider>,
  );
}

const problem = (status: number, code: string, detail: string) => ({ status, body: { type: "x", title: code, status, detail, code, requestId: "req_public" } });

afterEach(() => {
  vi.unstubAllGlobals();
  window.history.replaceState(null, "", "/");
});

describe("first-run setup", () => {
  it("creates the owner from the link's token and signs in, dropping the secret from the address", async () => {
    const seen = serve({ "GET /api/auth/setup": { status: 200, body: { open: true } }, "POST /api/auth/setup": { status: 201, body: { ...meAs("owner"), csrfToken: "csrf_setup", expiresAt: "2026-12-25T00:00:00.000Z" } } });
    const onSignedIn = vi.fn();
    open("#token=setup-secret", <SetupPage onSignedIn={onSignedIn} />);
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText("Your name"), "Ada");
    await user.type(screen.getByLabelText("Email"), "ada@example.com");
    await user.type(screen.getByLabelText("Password"), "correct horse battery");
    await user.type(screen.getByLabelText("Organization name (optional)"), "Acme");
    await user.click(screen.getByRole("button", { name: "Create the owner account" }));
    await vi.waitFor(() => expect(onSignedIn).toHaveBeenCalledWith(expect.objectContaining({ kind: "account" })), WAIT);
    expect(seen[1]).toEqual({
      method: "POST",
      url: "/api/auth/setup",
      body: { token: "setup-secret", email: "ada@example.com", displayName: "Ada", password: "correct horse battery", orgName: "Acme" },
    });
    expect(currentCsrfToken()).toBe("csrf_setup");
    expect(window.location.pathname).toBe("/monitors");
    expect(window.location.hash).toBe("");
  });

  it("says so when setup is closed, and asks for the link without a token", async () => {
    serve({ "GET /api/auth/setup": { status: 200, body: { open: false } } });
    open("#token=x", <SetupPage onSignedIn={vi.fn()} />);
    expect(await screen.findByText("Setup is already done.")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Create the owner account" })).toBeNull();
  });

  it("without the token in the fragment, explains where the link is", async () => {
    serve({ "GET /api/auth/setup": { status: 200, body: { open: true } } });
    open("", <SetupPage onSignedIn={vi.fn()} />);
    expect(await screen.findByRole("alert")).toHaveTextContent("/setup#token=");
  });

  it("shows a refused password with the request id", async () => {
    serve({ "GET /api/auth/setup": { status: 200, body: { open: true } }, "POST /api/auth/setup": problem(422, "weak_password", "at least 12 characters") });
    const onSignedIn = vi.fn();
    open("#token=t", <SetupPage onSignedIn={onSignedIn} />);
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText("Your name"), "Ada");
    await user.type(screen.getByLabelText("Email"), "ada@example.com");
    await user.type(screen.getByLabelText("Password"), "short");
    await user.click(screen.getByRole("button", { name: "Create the owner account" }));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Choose a stronger password: at least 12 characters");
    expect(alert).toHaveTextContent("req_public");
    expect(onSignedIn).not.toHaveBeenCalled();
  });
});

describe("accepting an invitation", () => {
  const offer = (userExists: boolean) => ({ status: 200, body: { email: "bob@example.com", role: "viewer", org: { id: "org_1", slug: "acme", name: "Acme <b>Corp</b>" }, expiresAt: "2026-12-01T00:00:00.000Z", userExists } });
  const accepted = { status: 200, body: { ...meAs("viewer"), expiresAt: "2026-12-25T00:00:00.000Z" } };

  it("a new user chooses a name and a password; the organization's name is text", async () => {
    const seen = serve({ "GET /api/invites/lookup": offer(false), "POST /api/invites/accept": accepted });
    const onSignedIn = vi.fn();
    open("#token=inv-secret", <InvitePage onSignedIn={onSignedIn} />);
    const user = userEvent.setup();
    expect(await screen.findByText("Acme <b>Corp</b>")).toBeInTheDocument();
    expect(document.querySelector("b")).toBeNull();
    expect(seen[0]!.url).toBe("/api/invites/lookup?token=inv-secret");
    await user.type(screen.getByLabelText("Your name"), "Bob");
    await user.type(screen.getByLabelText("Choose a password"), "a long enough password");
    await user.click(screen.getByRole("button", { name: "Join Acme <b>Corp</b>" }));
    await vi.waitFor(() => expect(onSignedIn).toHaveBeenCalled(), WAIT);
    expect(seen[1]!.body).toEqual({ token: "inv-secret", displayName: "Bob", password: "a long enough password" });
  });

  it("an existing user enters their password only", async () => {
    const seen = serve({ "GET /api/invites/lookup": offer(true), "POST /api/invites/accept": accepted });
    open("#token=inv-secret", <InvitePage onSignedIn={vi.fn()} />);
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText("Password"), "my existing password");
    expect(screen.queryByLabelText("Your name")).toBeNull();
    await user.click(screen.getByRole("button", { name: /^Join/ }));
    await vi.waitFor(() => expect(seen[1]?.body).toEqual({ token: "inv-secret", password: "my existing password" }), WAIT);
  });

  it("an expired or used invitation says why", async () => {
    serve({ "GET /api/invites/lookup": problem(410, "invite_invalid", "The invitation expired.") });
    open("#token=old", <InvitePage onSignedIn={vi.fn()} />);
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("This invitation cannot be used: The invitation expired.");
    expect(alert).toHaveTextContent("req_public");
  });
});
