import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fakeClient, meAs, monitor, renderPage, type Call } from "../../test-support";
import { MonitorsPage } from "../monitors/MonitorsPage";
import { AccountPage } from "./AccountPage";
import { AuditPage } from "./AuditPage";
import { MembersPage } from "./MembersPage";
import { OrgPage } from "./OrgPage";

afterEach(() => vi.restoreAllMocks());

const at = "2026-11-20T10:00:00.000Z";
const members = [
  { userId: "usr_self", email: "self@example.com", displayName: "Self", role: "owner", createdAt: at },
  { userId: "usr_owner2", email: "o2@example.com", displayName: "Other Owner", role: "owner", createdAt: at },
  { userId: "usr_bob", email: "bob@example.com", displayName: "Bob", role: "viewer", createdAt: at },
];
const invite = { id: "inv_1", email: "carol@example.com", role: "member", status: "pending", createdAt: at, expiresAt: "2026-12-01T00:00:00.000Z", invitedBy: "usr_self", acceptedAt: null, revokedAt: null };

function peopleServer() {
  return fakeClient((call: Call) => {
    const path = call.path.split("?")[0];
    if (call.method === "GET" && path === "/api/orgs/org_1/members") return { body: { data: members, nextCursor: null } };
    if (call.method === "PATCH" && path === "/api/orgs/org_1/members/usr_bob") return { body: { ...members[2], ...(call.body as object) } };
    if (call.method === "POST" && path === "/api/orgs/org_1/transfer-ownership") return { body: { ...members[2], role: "owner" } };
    if (call.method === "DELETE" && path === "/api/orgs/org_1/members/usr_bob") return { status: 204 };
    if (call.method === "GET" && path === "/api/invites") return { body: { data: [invite], nextCursor: null } };
    if (call.method === "POST" && path === "/api/invites")
      return { status: 201, body: { invite: { ...invite, id: "inv_2", ...(call.body as object), mailed: false }, url: "http://dw.test/invite#token=secret-link" } };
    if (call.method === "DELETE" && path === "/api/invites/inv_1") return { body: { ...invite, status: "revoked", revokedAt: at } };
    return undefined;
  });
}

describe("members and invitations", () => {
  it("an owner changes a role, transfers ownership, invites (link shown once, copied) and revokes", async () => {
    vi.spyOn(window, "confirm").mockReturnValue(true);
    const { client, calls } = peopleServer();
    renderPage(<MembersPage />, client, "/members", "*", meAs("owner"));
    const user = userEvent.setup();
    const bob = (await screen.findByRole("heading", { name: "Bob" })).closest("li")!;
    await user.selectOptions(within(bob).getByLabelText("Role of Bob"), "admin");
    await waitFor(() => expect(calls.find((c) => c.method === "PATCH")).toEqual({ method: "PATCH", path: "/api/orgs/org_1/members/usr_bob", body: { role: "admin" } }));
    await user.click(within(bob).getByRole("button", { name: "Make owner Bob" }));
    await waitFor(() => expect(calls.find((c) => c.path.endsWith("/transfer-ownership"))?.body).toEqual({ userId: "usr_bob" }));
    // the owner's own row: no transfer to oneself, and "Leave" instead of "Remove"
    const self = screen.getByRole("heading", { name: "Self (you)" }).closest("li")!;
    expect(within(self).queryByRole("button", { name: /Make owner/ })).toBeNull();
    expect(within(self).getByRole("button", { name: "Leave Self" })).toBeInTheDocument();

    await user.type(screen.getByLabelText("Email"), "dave@example.com");
    await user.selectOptions(screen.getByRole("combobox", { name: "Role" }), "viewer");
    await user.click(screen.getByRole("button", { name: "Create invitation" }));
    const shown = await screen.findByText("http://dw.test/invite#token=secret-link");
    expect(calls.find((c) => c.method === "POST" && c.path === "/api/invites")?.body).toEqual({ email: "dave@example.com", role: "viewer" });
    await user.click(screen.getByRole("button", { name: "Copy" }));
    expect(await navigator.clipboard.readText()).toBe("http://dw.test/invite#token=secret-link");
    await user.click(screen.getByRole("button", { name: "Done" }));
    expect(shown).not.toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Revoke the invitation of carol@example.com" }));
    await waitFor(() => expect(calls.some((c) => c.method === "DELETE" && c.path === "/api/invites/inv_1")).toBe(true));
  });

  it("an admin cannot touch owners nor invite one", async () => {
    const { client } = peopleServer();
    renderPage(<MembersPage />, client, "/members", "*", meAs("admin", { user: { id: "usr_admin", email: "a@example.com", displayName: "Admin", createdAt: at } }));
    const owner = (await screen.findByRole("heading", { name: "Other Owner" })).closest("li")!;
    expect(within(owner).queryByRole("combobox")).toBeNull();
    expect(within(owner).queryByRole("button")).toBeNull();
    const bob = screen.getByRole("heading", { name: "Bob" }).closest("li")!;
    const options = within(within(bob).getByLabelText("Role of Bob")).getAllByRole("option").map((o) => o.textContent);
    expect(options).toEqual(["viewer", "member", "admin"]);
    expect(within(bob).queryByRole("button", { name: /Make owner/ })).toBeNull();
    expect(within(screen.getByRole("combobox", { name: "Role" })).queryByRole("option", { name: /^Owner/ })).toBeNull();
  });

  it("a viewer sees no member management and sends no request", () => {
    const { client, calls } = peopleServer();
    renderPage(<MembersPage />, client, "/members", "*", meAs("viewer"));
    expect(screen.getByText("Only admins manage members")).toBeInTheDocument();
    expect(screen.queryByRole("button")).toBeNull();
    expect(calls).toEqual([]);
  });

  it("shows the API's error with its request id", async () => {
    const { client } = fakeClient(() => ({ status: 500, body: { type: "x", title: "Internal", status: 500, detail: "boom", code: "internal_error", requestId: "req_members500" } }));
    renderPage(<MembersPage />, client, "/members", "*", meAs("owner"));
    const alerts = await screen.findAllByRole("alert");
    expect(alerts.some((a) => a.textContent?.includes("req_members500"))).toBe(true);
  });
});

describe("organization", () => {
  it("renames; an owner deletes only after typing the organization's name", async () => {
    const { client, calls } = fakeClient((call) => {
      if (call.method === "PATCH" && call.path === "/api/orgs/org_1") return { body: { id: "org_1", slug: "acme", name: "Acme Corp", createdAt: at } };
      if (call.method === "DELETE" && call.path === "/api/orgs/org_1") return { status: 204 };
      if (call.path === "/api/auth/me") return { body: meAs("owner") };
      return undefined;
    });
    renderPage(<OrgPage />, client, "/org", "*", meAs("owner"));
    const user = userEvent.setup();
    const name = screen.getByLabelText("Name");
    await user.clear(name);
    await user.type(name, "Acme Corp");
    await user.click(screen.getByRole("button", { name: "Save name" }));
    await screen.findByText("Saved.");
    expect(calls.find((c) => c.method === "PATCH")?.body).toEqual({ name: "Acme Corp" });
    const remove = screen.getByRole("button", { name: "Delete organization" });
    expect(remove).toBeDisabled();
    await user.type(screen.getByLabelText(/to confirm/), "Acme");
    expect(remove).not.toBeDisabled();
    await user.click(remove);
    await waitFor(() => expect(calls.some((c) => c.method === "DELETE" && c.path === "/api/orgs/org_1")).toBe(true));
  });

  it("an admin may rename but sees no delete; a viewer neither", () => {
    const { client } = fakeClient(() => undefined);
    const admin = renderPage(<OrgPage />, client, "/org", "*", meAs("admin"));
    expect(screen.getByRole("button", { name: "Save name" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Delete organization" })).toBeNull();
    admin.unmount();
    renderPage(<OrgPage />, client, "/org", "*", meAs("viewer"));
    expect(screen.queryByRole("button")).toBeNull();
  });
});

describe("audit log", () => {
  it("pages older and newer with the cursor, values as text", async () => {
    const entry = (id: string, data: Record<string, unknown> = {}) => ({ id, at, actor: { type: "user", id: "usr_self" }, action: "member.role_changed", targetId: "usr_bob", data, ip: "127.0.0.1" });
    const { client, calls } = fakeClient((call) => {
      const url = new URL(`http://x${call.path}`);
      if (url.pathname !== "/api/audit") return undefined;
      return url.searchParams.get("cursor") === "c2"
        ? { body: { data: [entry("aud_old")], nextCursor: null } }
        : { body: { data: [entry("aud_new", { role: "<img src=x onerror=alert(1)>" })], nextCursor: "c2" } };
    });
    const { container } = renderPage(<AuditPage />, client, "/audit", "*", meAs("admin"));
    const user = userEvent.setup();
    await screen.findByText(/onerror=alert/);
    expect(container.querySelector("img")).toBeNull();
    expect(screen.getByRole("button", { name: "Newer" })).toBeDisabled();
    await user.click(screen.getByRole("button", { name: "Older" }));
    await waitFor(() => expect(screen.queryByText(/onerror=alert/)).toBeNull());
    expect(calls.map((c) => c.path)).toEqual(["/api/audit?limit=50", "/api/audit?limit=50&cursor=c2"]);
    expect(screen.getByRole("button", { name: "Older" })).toBeDisabled();
    await user.click(screen.getByRole("button", { name: "Newer" }));
    await screen.findByText(/onerror=alert/);
  });
});

describe("account", () => {
  it("changes the password and switches organization", async () => {
    const other = { id: "org_2", slug: "beta", name: "Beta", role: "viewer" as const };
    const me = meAs("owner", { orgs: [{ id: "org_1", slug: "acme", name: "Acme", role: "owner" }, other] });
    const switched = { ...me, org: { id: "org_2", slug: "beta", name: "Beta", createdAt: at }, role: "viewer" as const };
    const { client, calls } = fakeClient((call) => {
      if (call.path === "/api/auth/password") return { status: 204 };
      if (call.path === "/api/auth/org") return { body: switched };
      return undefined;
    });
    renderPage(<AccountPage />, client, "/account", "*", me);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText("Current password"), "old password");
    await user.type(screen.getByLabelText("New password"), "a much better password");
    await user.click(screen.getByRole("button", { name: "Change password" }));
    await screen.findByText(/Password changed/);
    expect(calls[0]).toEqual({ method: "POST", path: "/api/auth/password", body: { currentPassword: "old password", newPassword: "a much better password" } });
    await user.click(screen.getByRole("button", { name: "Switch to Beta" }));
    await waitFor(() => expect(calls[1]).toEqual({ method: "POST", path: "/api/auth/org", body: { orgId: "org_2" } }));
  });
});

describe("what a viewer sees", () => {
  it("no create, pause, resume or check controls on the monitors list", async () => {
    const { client } = fakeClient((call) => (call.path.startsWith("/api/monitors?") ? { body: { data: [monitor(1, { name: "Prices" })], nextCursor: null } } : undefined));
    renderPage(<MonitorsPage />, client, "/monitors", "*", meAs("viewer"));
    await screen.findByRole("article", { name: "Prices" });
    expect(screen.queryByRole("link", { name: "New monitor" })).toBeNull();
    expect(screen.queryByRole("button", { name: /Pause|Resume|Check now/ })).toBeNull();
  });

  it("a member sees them", async () => {
    const { client } = fakeClient((call) => (call.path.startsWith("/api/monitors?") ? { body: { data: [monitor(1, { name: "Prices" })], nextCursor: null } } : undefined));
    renderPage(<MonitorsPage />, client, "/monitors", "*", meAs("member"));
    await screen.findByRole("article", { name: "Prices" });
    expect(screen.getByRole("link", { name: "New monitor" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Check now Prices" })).toBeInTheDocument();
  });
});
