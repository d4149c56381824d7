import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readSession } from "./session";
import { SignInPage } from "./SignInPage";

afterEach(() => vi.unstubAllGlobals());

function answer(status: number, body: unknown): void {
  vi.stubGlobal(
    "fetch",
    vi.fn(async () => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "x-request-id": "req_signin" } })),
  );
}

describe("signing in with a token", () => {
  it("keeps a token the server accepts in this tab's sessionStorage", async () => {
    answer(200, { data: [], nextCursor: null });
    const onSignedIn = vi.fn();
    render(<SignInPage onSignedIn={onSignedIn} />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText("API token"), "dw_abcdefghijklmnopqrstuvwxyz012345");
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect(onSignedIn).toHaveBeenCalledWith({ token: "dw_abcdefghijklmnopqrstuvwxyz012345" });
    expect(readSession()).toEqual({ token: "dw_abcdefghijklmnopqrstuvwxyz012345" });
    expect(localStorage.length).toBe(0);
  });

  it("says why a token is refused, with the request id, and keeps nothing", async () => {
    answer(401, { type: "x", title: "Invalid token", status: 401, detail: "Unknown token.", code: "invalid_token", requestId: "req_signin" });
    const onSignedIn = vi.fn();
    render(<SignInPage onSignedIn={onSignedIn} />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText("API token"), "dw_abcdefghijklmnopqrstuvwxyz012345");
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("The server does not know this token");
    expect(alert).toHaveTextContent("req_signin");
    expect(onSignedIn).not.toHaveBeenCalled();
    expect(readSession()).toBeNull();
  });

  it("refuses something that is not a token without asking the server", async () => {
    const fetch = vi.fn();
    vi.stubGlobal("fetch", fetch);
    render(<SignInPage onSignedIn={vi.fn()} />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText("API token"), "hunter2");
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("tokens start with dw_");
    expect(fetch).not.toHaveBeenCalled();
  });
});
