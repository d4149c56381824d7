import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MemoryRouter } from "react-router";
import { currentCsrfToken, readSession, restoreSession } from "./session";
import { SignInPage } from "./SignInPage";

afterEach(() => vi.unstubAllGlobals());

type Seen = { url: string; init: RequestInit };

function answer(status: number, body: unknown): Seen[] {
  const seen: Seen[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string, init: RequestInit) => {
      seen.push({ url, init });
      return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "x-request-id": "req_signin" } });
    }),
  );
  return seen;
}

const me = {
  via: "session",
  user: { id: "usr_1", email: "ada@example.com", displayName: "Ada", createdAt: "2026-11-25T00:00:00.000Z" },
  org: { id: "org_1", slug: "default", name: "Acme", createdAt: "2026-11-25T00:00:00.000Z" },
  role: "owner",
  scopes: ["admin"],
  orgs: [{ id: "org_1", slug: "default", name: "Acme", role: "owner" }],
  csrfToken: "csrf-from-sign-in",
};

function renderSignIn(onSignedIn = vi.fn()): ReturnType<typeof vi.fn> {
  render(
    <MemoryRouter>
      <SignInPage onSignedIn={onSignedIn} />
    </MemoryRouter>,
  );
  return onSignedIn;
}

describe("signing in with an account", () => {
  it("posts email and password with the cookie, keeps the CSRF token in memory only", async () => {
    const seen = answer(200, { ...me, expiresAt: "2026-12-25T00:00:00.000Z" });
    const onSignedIn = renderSignIn();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText("Email"), " ada@example.com ");
    await user.type(screen.getByLabelText("Password"), "correct horse battery");
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect(onSignedIn).toHaveBeenCalledWith(expect.objectContaining({ kind: "account", me: expect.objectContaining({ csrfToken: "csrf-from-sign-in" }) }));
    expect(seen[0]!.url).toMatch(/\/api\/auth\/sign-in$/);
    expect(seen[0]!.init.credentials).toBe("same-origin");
    expect(JSON.parse(String(seen[0]!.init.body))).toEqual({ email: "ada@example.com", password: "correct horse battery" });
    expect((seen[0]!.init.headers as Record<string, string>).authorization).toBeUndefined();
    expect(currentCsrfToken()).toBe("csrf-from-sign-in");
    expect(sessionStorage.length).toBe(0);
    expect(localStorage.length).toBe(0);
  });

  it("says wrong email or password, with the request id", async () => {
    answer(401, { type: "x", title: "Invalid credentials", status: 401, detail: "Wrong email or password.", code: "invalid_credentials", requestId: "req_signin" });
    const onSignedIn = renderSignIn();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText("Email"), "ada@example.com");
    await user.type(screen.getByLabelText("Password"), "nope");
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Wrong email or password.");
    expect(alert).toHaveTextContent("req_signin");
    expect(onSignedIn).not.toHaveBeenCalled();
  });

  it("asks nothing on a signed-out load (no dw_signed_in cookie): no 401 in the console", async () => {
    const seen = answer(401, { type: "x", title: "Unauthenticated", status: 401, detail: "No session.", code: "unauthenticated", requestId: "req_signin" });
    expect(await restoreSession()).toBeNull();
    expect(seen).toHaveLength(0);
  });

  it("restores a cookie session on load from GET /api/auth/me, and is signed out on 401", async () => {
    document.cookie = "dw_signed_in=1; path=/";
    const seen = answer(200, { ...me, csrfToken: "csrf-after-reload" });
    expect(await restoreSession()).toEqual({ kind: "account", me: expect.objectContaining({ csrfToken: "csrf-after-reload" }) });
    expect(seen[0]!.url).toMatch(/\/api\/auth\/me$/);
    expect(currentCsrfToken()).toBe("csrf-after-reload");
    answer(401, { type: "x", title: "Unauthenticated", status: 401, detail: "No session.", code: "unauthenticated", requestId: "req_signin" });
    expect(await restoreSession()).toBeNull();
    document.cookie = "dw_signed_in=; path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT";
  });
});

describe("signing in with a token (the second way)", () => {
  it("keeps a token the server accepts in this tab's sessionStorage", async () => {
    answer(200, { data: [], nextCursor: null });
    const onSignedIn = renderSignIn();
    const user = userEvent.setup();
    await user.click(screen.getByText("Sign in with an API token instead"));
    await user.type(screen.getByLabelText("API token"), "dw_abcdefghijklmnopqrstuvwxyz012345");
    await user.click(screen.getByRole("button", { name: "Sign in with token" }));
    expect(onSignedIn).toHaveBeenCalledWith({ kind: "token", token: "dw_abcdefghijklmnopqrstuvwxyz012345" });
    expect(readSession()).toEqual({ kind: "token", token: "dw_abcdefghijklmnopqrstuvwxyz012345" });
    expect(localStorage.length).toBe(0);
  });

  it("says why a token is refused, with the request id, and keeps nothing", async () => {
    answer(401, { type: "x", title: "Invalid token", status: 401, detail: "Unknown token.", code: "invalid_token", requestId: "req_signin" });
    const onSignedIn = renderSignIn();
    const user = userEvent.setup();
    await user.click(screen.getByText("Sign in with an API token instead"));
    await user.type(screen.getByLabelText("API token"), "dw_abcdefghijklmnopqrstuvwxyz012345");
    await user.click(screen.getByRole("button", { name: "Sign in with token" }));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("The server does not know this token");
    expect(alert).toHaveTextContent("req_signin");
    expect(onSignedIn).not.toHaveBeenCalled();
    expect(readSession()).toBeNull();
  });

  it("refuses something that is not a token without asking the server", async () => {
    const fetch = vi.fn();
    vi.stubGlobal("fetch", fetch);
    renderSignIn();
    const user = userEvent.setup();
    await user.click(screen.getByText("Sign in with an API token instead"));
    await user.type(screen.getByLabelText("API token"), "hunter2");
    await user.click(screen.getByRole("button", { name: "Sign in with token" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("tokens start with dw_");
    expect(fetch).not.toHaveBeenCalled();
  });
});
