// The Notifications page: channels listed with their service and status, added from a pasted
// Apprise URL or a service's form, tested, paused, their deliveries replayed; the channels a
// monitor's changes reach; the message previews.
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { fakeClient, meAs, monitor, renderPage } from "../../test-support";
import { MonitorDetailPage } from "../monitors/MonitorDetailPage";
import type { Channel, ChannelDelivery } from "./api";
import { ChannelDetailPage } from "./ChannelDetailPage";
import { MessagePreview, previewModel, SAMPLE_NOTIFICATION } from "./MessagePreview";
import { NotificationsPage } from "./NotificationsPage";
import { buildServiceUrl, serviceOf } from "./services";

function channel(id: string, patch: Partial<Channel> = {}): Channel {
  return {
    id,
    name: `Channel ${id}`,
    service: "slack",
    url: "slack://T000/B000/***",
    minSeverity: "info",
    tags: [],
    events: ["diff.detected"],
    groupSeconds: 0,
    quietHours: null,
    template: null,
    status: "ok",
    statusReason: null,
    paused: false,
    createdAt: "2026-11-20T00:00:00.000Z",
    ...patch,
  };
}

const SLACK = channel("chn_1", { name: "#alerts" });
const DISCORD = channel("chn_2", { name: "ops discord", service: "discord", url: "discord://1234/***", status: "failing", statusReason: "Discord answered 404: Unknown Webhook", tags: ["payments"], minSeverity: "high" });
const MAIL = channel("chn_3", { name: "mail", service: "email", url: "mailtos://alerts:***@smtp.example.com?to=team@example.com", paused: true, tags: ["web"] });

describe("services", () => {
  it("names the service of a URL from its scheme or the provider's own URL", () => {
    expect(serviceOf("tgram://123:abc/456")).toBe("Telegram");
    expect(serviceOf("mailtos://u:p@smtp.example.com")).toBe("E-mail");
    expect(serviceOf("https://hooks.slack.com/services/T/B/X")).toBe("Slack");
    expect(serviceOf("https://discord.com/api/webhooks/1/abc")).toBe("Discord");
    expect(serviceOf("https://example.com/hook")).toBe("Signed webhook");
    expect(serviceOf("not a url")).toBe("unknown");
  });

  it("builds Apprise URLs from the forms and refuses what is not the service's", () => {
    expect(buildServiceUrl("slack", { webhook: "https://hooks.slack.com/services/T1/B2/xyz" })).toEqual({ url: "slack://T1/B2/xyz" });
    expect(buildServiceUrl("discord", { webhook: "https://discord.com/api/webhooks/987/tok-en" })).toEqual({ url: "discord://987/tok-en" });
    expect(buildServiceUrl("slack", { webhook: "https://example.com/x" })).toHaveProperty("error");
    expect(buildServiceUrl("email", { host: "smtp.example.com", port: "587", user: "a@b.c", password: "p@ss/w", to: "t@example.com" })).toEqual({
      url: "mailto://a%40b.c:p%40ss%2Fw@smtp.example.com:587?to=t%40example.com",
    });
    expect(buildServiceUrl("ntfy", { topic: "alerts" })).toEqual({ url: "ntfys://ntfy.sh/alerts" });
    expect(buildServiceUrl("json", { url: "https://example.com/in" })).toEqual({ url: "jsons://example.com/in" });
    expect(buildServiceUrl("telegram", { token: "123:AA" })).toEqual({ error: "Chat id is required" });
  });
});

describe("the Notifications page", () => {
  it("lists each channel with its service, status and reason, and pause", async () => {
    const { client } = fakeClient((call) => (call.path.startsWith("/api/channels") ? { body: { data: [SLACK, DISCORD, MAIL], nextCursor: null } } : undefined));
    renderPage(<NotificationsPage />, client, "/notifications", "*", meAs("viewer"));
    const list = await screen.findByRole("list", { name: "Channels" });
    const [slack, discord, mail] = within(list).getAllByRole("listitem").filter((li) => li.parentElement === list);
    expect(slack!.textContent).toContain("Slack");
    expect(slack!.textContent).toContain("ok");
    expect(discord!.textContent).toContain("Discord");
    expect(discord!.textContent).toContain("failing Discord answered 404: Unknown Webhook");
    expect(mail!.textContent).toContain("E-mail");
    expect(mail!.textContent).toContain("paused");
    // a viewer cannot add one
    expect(screen.queryByRole("form", { name: "Add a channel" })).toBeNull();
  });

  it("adds a Telegram channel from its form with routing options, after refusing a bad bot token", async () => {
    const { client, calls } = fakeClient((call) => {
      if (call.method === "POST" && call.path === "/api/channels") return { status: 201, body: channel("chn_9", { name: "Telegram", service: "telegram", url: "tgram://***/-100" }) };
      if (call.path.startsWith("/api/channels")) return { body: { data: [], nextCursor: null } };
      return undefined;
    });
    renderPage(<NotificationsPage />, client, "/notifications", "*", meAs("member"));
    const user = userEvent.setup();
    const form = await screen.findByRole("form", { name: "Add a channel" });
    await user.selectOptions(within(form).getByLabelText("Service"), "telegram");
    await user.type(within(form).getByLabelText("Bot token"), "not-a-token");
    await user.type(within(form).getByLabelText("Chat id"), "-100");
    await user.click(within(form).getByRole("button", { name: "Add channel" }));
    expect(within(form).getByRole("alert").textContent).toContain("A bot token looks like");
    expect(calls.some((c) => c.method === "POST")).toBe(false);

    await user.clear(within(form).getByLabelText("Bot token"));
    await user.type(within(form).getByLabelText("Bot token"), "123456:AAbb-cc");
    await user.selectOptions(within(form).getByLabelText("Only changes at least"), "high");
    await user.type(within(form).getByLabelText("Monitors with these tags"), "payments, web");
    await user.type(within(form).getByLabelText("Group changes for (seconds)"), "60");
    await user.click(within(form).getByLabelText(/Quiet hours/));
    await user.clear(within(form).getByLabelText("Time zone"));
    await user.type(within(form).getByLabelText("Time zone"), "Europe/Berlin");
    await user.click(within(form).getByRole("button", { name: "Add channel" }));
    await within(form).findByText(/Added/);
    const post = calls.find((c) => c.method === "POST");
    expect(post!.body).toEqual({
      name: "Telegram",
      url: "tgram://123456:AAbb-cc/-100",
      minSeverity: "high",
      tags: ["payments", "web"],
      events: ["diff.detected"],
      groupSeconds: 60,
      quietHours: { timeZone: "Europe/Berlin", windows: [{ start: "22:00", end: "07:00" }], minSeverity: "critical" },
      template: null,
    });
  });

  it("sends a pasted Apprise URL as is and shows the server's 422", async () => {
    const { client, calls } = fakeClient((call) => {
      if (call.method === "POST")
        return { status: 422, body: { type: "about:blank", title: "Invalid", status: 422, detail: "template: unclosed tag at 1:3", code: "invalid_template", errors: [{ path: "template", message: "unclosed tag at 1:3" }] } };
      return { body: { data: [], nextCursor: null } };
    });
    renderPage(<NotificationsPage />, client, "/notifications", "*", meAs("member"));
    const user = userEvent.setup();
    const form = await screen.findByRole("form", { name: "Add a channel" });
    await user.type(within(form).getByLabelText("Apprise URL"), "ntfys://ntfy.sh/alerts");
    expect(within(form).getByText("Service: ntfy")).toBeInTheDocument();
    await user.type(within(form).getByLabelText("Template (optional)"), "{{{{oops");
    await user.click(within(form).getByRole("button", { name: "Add channel" }));
    expect(await within(form).findByText(/unclosed tag at 1:3/, { selector: "li" })).toBeInTheDocument();
    expect(calls.find((c) => c.method === "POST")!.body).toMatchObject({ name: "ntfy", url: "ntfys://ntfy.sh/alerts", template: "{{oops" });
  });
});

describe("a channel's page", () => {
  const delivery: ChannelDelivery = {
    id: "cdl_1",
    channelId: DISCORD.id,
    eventType: "diff.detected",
    state: "failed",
    attempts: 3,
    lastAttemptAt: "2026-11-25T09:00:00.000Z",
    lastResponseStatus: 404,
    lastError: "Unknown Webhook",
    monitorId: "mon_000001",
    diffId: "dif_1",
    createdAt: "2026-11-25T08:59:00.000Z",
  };

  it("tests the channel and shows what the service answered; pauses it; replays a delivery", async () => {
    let current = DISCORD;
    const { client, calls } = fakeClient((call) => {
      if (call.path === `/api/channels/${DISCORD.id}` && call.method === "GET") return { body: current };
      if (call.path === `/api/channels/${DISCORD.id}` && call.method === "PATCH") {
        current = { ...current, ...(call.body as Partial<Channel>) };
        return { body: current };
      }
      if (call.path === `/api/channels/${DISCORD.id}/test`) return { body: { outcome: "gone", status: 404, reason: 'Discord answered 404: {"message": "Unknown Webhook", "code": 10015}', retryAfterSeconds: null } };
      if (call.path.startsWith(`/api/channels/${DISCORD.id}/deliveries?`)) return { body: { data: [delivery], nextCursor: null } };
      if (call.path === `/api/channels/${DISCORD.id}/deliveries/cdl_1/retry`) return { body: { ...delivery, state: "pending" } };
      return undefined;
    });
    renderPage(<ChannelDetailPage />, client, `/notifications/${DISCORD.id}`, "/notifications/:channelId", meAs("member"));
    const user = userEvent.setup();
    await screen.findByRole("heading", { name: "ops discord" });
    await user.click(screen.getByRole("button", { name: "Send a test" }));
    const answer = await screen.findByText(/The service says this hook is gone/);
    expect(answer.closest("[role=status]")!.textContent).toContain("HTTP 404");
    expect(answer.closest("[role=status]")!.textContent).toContain('"Unknown Webhook", "code": 10015');

    await user.click(screen.getByRole("button", { name: "Pause" }));
    await screen.findByRole("button", { name: "Resume" });
    expect(calls.find((c) => c.method === "PATCH")!.body).toEqual({ paused: true });

    await user.click(await screen.findByRole("button", { name: "Replay delivery cdl_1" }));
    await waitFor(() => expect(calls.some((c) => c.method === "POST" && c.path === `/api/channels/${DISCORD.id}/deliveries/cdl_1/retry`)).toBe(true));
    // the message as Discord shows it
    expect(screen.getByText("How a message looks in Discord")).toBeInTheDocument();
  });
});

describe("editing a channel", () => {
  it("shows the stored options and saves the changed ones with PATCH, the URL only when a new one is typed", async () => {
    const stored = channel("chn_5", { name: "night desk", tags: ["web"], groupSeconds: 300, quietHours: { timeZone: "Europe/Berlin", windows: [{ start: "21:00", end: "06:30" }], minSeverity: "high" } });
    const { client, calls } = fakeClient((call) => {
      if (call.path === "/api/channels/chn_5" && call.method === "GET") return { body: stored };
      if (call.path === "/api/channels/chn_5" && call.method === "PATCH") return { body: { ...stored, ...(call.body as object), updatedAt: "2026-11-28T00:00:00.000Z" } };
      if (call.path.startsWith("/api/channels/chn_5/deliveries")) return { body: { data: [], nextCursor: null } };
      return undefined;
    });
    renderPage(<ChannelDetailPage />, client, "/notifications/chn_5", "/notifications/:channelId", meAs("member"));
    const user = userEvent.setup();
    await user.click(await screen.findByText("Edit the channel"));
    const form = screen.getByRole("form", { name: "Edit the channel" });
    expect(within(form).getByLabelText<HTMLInputElement>("Monitors with these tags").value).toBe("web");
    expect(within(form).getByLabelText<HTMLInputElement>("From").value).toBe("21:00");
    expect(within(form).getByLabelText<HTMLSelectElement>("Send anyway from").value).toBe("high");
    await user.clear(within(form).getByLabelText("Group changes for (seconds)"));
    await user.click(within(form).getByLabelText(/Quiet hours/));
    await user.click(within(form).getByRole("button", { name: "Save changes" }));
    await within(form).findByText("Saved.");
    expect(calls.find((c) => c.method === "PATCH")!.body).toEqual({
      name: "night desk",
      minSeverity: "info",
      tags: ["web"],
      events: ["diff.detected"],
      groupSeconds: 0,
      quietHours: null,
      template: null,
    });
  });
});

describe("which channels get a monitor's changes", () => {
  it("lists them on the monitor's page as the server routes them, with the minimum severity and state", async () => {
    const mon = monitor(1, { tags: ["payments"] });
    const health = channel("chn_4", { events: ["monitor.failing"] });
    const { client, calls } = fakeClient((call) => {
      if (call.path === `/api/monitors/${mon.id}`) return { body: mon };
      if (call.path === `/api/monitors/${mon.id}/channels`)
        return {
          body: {
            data: [
              { channel: SLACK, events: ["diff.detected"], minSeverity: "medium", matchedTags: [], state: "active" },
              { channel: DISCORD, events: ["diff.detected"], minSeverity: "high", matchedTags: ["payments"], state: "failing" },
              { channel: { ...MAIL, tags: ["payments"] }, events: ["diff.detected"], minSeverity: "info", matchedTags: ["payments"], state: "paused" },
              { channel: health, events: ["monitor.failing"], minSeverity: "info", matchedTags: [], state: "active" },
            ],
            policyMinSeverity: "medium",
          },
        };
      if (call.path.startsWith(`/api/monitors/${mon.id}/`)) return { body: { data: [], nextCursor: null } };
      return undefined;
    });
    renderPage(<MonitorDetailPage />, client, `/monitors/${mon.id}`, "/monitors/:monitorId", meAs("viewer"));
    const list = await screen.findByRole("list", { name: "Channels that get its changes" });
    const items = within(list).getAllByRole("listitem");
    expect(items.map((li) => li.textContent)).toEqual([
      "#alerts (Slack): changes from medium (all monitors)",
      "ops discord (Discord): changes from high (tag payments) failing",
      "mail (E-mail): changes from info (tag payments) paused",
    ]);
    // the server's routing, not the channel list
    expect(calls.some((c) => c.path.startsWith("/api/channels"))).toBe(false);
  });

  it("says so when the server has no channel route (an older server)", async () => {
    const mon = monitor(1, { tags: ["payments"] });
    const { client } = fakeClient((call) => {
      if (call.path === `/api/monitors/${mon.id}`) return { body: mon };
      if (call.path === `/api/monitors/${mon.id}/channels`) return { status: 404, body: { type: "about:blank", title: "Not Found", status: 404, code: "not_found", detail: "no route" } };
      if (call.path.startsWith(`/api/monitors/${mon.id}/`)) return { body: { data: [], nextCursor: null } };
      return undefined;
    });
    renderPage(<MonitorDetailPage />, client, `/monitors/${mon.id}`, "/monitors/:monitorId", meAs("viewer"));
    expect(await screen.findByText("This server has no notification channels.")).toBeTruthy();
  });
});

describe("message previews", () => {
  it("orders the most severe changes first and says how many more", () => {
    const m = previewModel({ ...SAMPLE_NOTIFICATION, totalChanges: 14 }, 2);
    expect(m.title).toBe("[HIGH] Payments API /v1/status: schema change");
    expect(m.changes.map((c) => c.severity)).toEqual(["high", "medium"]);
    expect(m.more).toBe(12);
    expect(m.summary).toBe("14 changes (1 high, 1 medium, 1 info)");
  });

  it("renders hostile target content as text in each style", () => {
    const hostile = { ...SAMPLE_NOTIFICATION, monitorName: '<img src=x onerror="alert(1)"> <!channel> @everyone', changes: [{ path: "$.a", op: "replace" as const, severity: "high" as const, before: "<b>x</b>", after: "<script>1</script>" }] };
    for (const style of ["slack", "discord", "teams"] as const) {
      const { container, unmount } = render(<MessagePreview style={style} notification={hostile} />);
      expect(container.querySelector("img, script, b")).toBeNull();
      expect(container.textContent).toContain('<img src=x onerror="alert(1)"> <!channel> @everyone');
      expect(container.textContent).toContain("<b>x</b> -> <script>1</script>");
      unmount();
    }
  });
});
