import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { createNotifier, createTestNotification, groupDiffNotifications, type Notification } from "../src/index.js";
import { GUARD, allStrings, diffNotification, failingNotification, hostileNotification, recoveredNotification, startFakeService, type FakeService, type RecordedRequest } from "./helpers.js";
import { SERVICES, WEBHOOK_SECRET, type ServiceSpec } from "./services.js";

// Every channel against a local server that checks the request against the service's documented
// schema and limits (test/services.ts) and plays back its error answers.

let fake: FakeService | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function setup(spec: ServiceSpec) {
  fake = await startFakeService(spec.route, spec.isSend);
  const notifier = createNotifier({ env: { ...spec.env?.(fake), DRIFTWATCH_PUBLIC_URL: "https://driftwatch.example.com/" }, guard: GUARD });
  const sends = (): RecordedRequest[] => (fake as FakeService).requests.filter((r) => spec.isSend?.(r) ?? true);
  return { notifier, fake, sends, url: spec.url(fake) };
}

describe.each(SERVICES)("$name", (spec) => {
  it("delivers a message of the documented shape", async () => {
    const { notifier, sends, url } = await setup(spec);
    const result = await notifier.send(url, diffNotification());
    expect(result).toMatchObject({ outcome: "delivered" });
    expect(sends().length).toBeGreaterThan(0);
    spec.check?.(sends());
    // The message says what changed and links to the diff.
    const text = sends().map((s) => s.text).join("\n");
    if (spec.name !== "webhook") {
      expect(text).toContain("Orders API");
      expect(text).toContain("price");
      expect(text).toContain("https://driftwatch.example.com/monitors/mon_orders/diffs/dif_42");
      expect(text).toMatch(/and 1[13] more/);
    }
    await notifier.close();
  });

  it("delivers the sample change that `notify test` and POST /api/channels/{id}/test send", async () => {
    const { notifier, sends, url } = await setup(spec);
    const result = await notifier.send(url, createTestNotification(new Date("2026-11-28T06:00:00.000Z")));
    expect(result).toMatchObject({ outcome: "delivered" });
    expect(sends().length).toBeGreaterThan(0);
    await notifier.close();
  });

  it("retries after the time a rate-limit answer asks for", async () => {
    const { notifier, url } = await setup(spec);
    (fake as FakeService).queue.push(spec.retry[0]);
    const result = await notifier.send(url, diffNotification());
    expect(result.outcome).toBe("retry");
    const expected = Number.isNaN(spec.retry[1]) ? undefined : spec.retry[1];
    expect(result.outcome === "retry" ? result.afterSeconds : null).toBe(expected);
    await notifier.close();
  });

  it("says gone when the service says the destination is gone", async () => {
    const { notifier, url } = await setup(spec);
    (fake as FakeService).queue.push(spec.gone);
    const result = await notifier.send(url, diffNotification());
    expect(result.outcome).toBe("gone");
    await notifier.close();
  });

  it("fails a bad request with the service's reason", async () => {
    const { notifier, url } = await setup(spec);
    (fake as FakeService).queue.push(spec.bad[0]);
    const result = await notifier.send(url, diffNotification());
    expect(result.outcome).toBe(spec.name === "webhook" ? "retry" : "failed");
    expect(result.outcome === "delivered" ? "" : result.reason).toContain(spec.bad[1]);
    await notifier.close();
  });

  it("sends hostile target content as data, within the service's limits", async () => {
    const { notifier, sends, url } = await setup(spec);
    const result = await notifier.send(url, hostileNotification());
    expect(result).toMatchObject({ outcome: "delivered" });
    for (const request of sends()) {
      expect(Buffer.byteLength(request.body)).toBeLessThan(64 * 1024);
      if (spec.name === "webhook") continue; // the envelope carries paths as JSON data, verbatim
      for (const text of allStrings(request.json ?? request.body)) expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
    }
    spec.hostile?.(sends());
    await notifier.close();
  });
});

describe("grouped messages", () => {
  it("the JSON POST names each monitor of a group in `monitors`, beside the group's `monitor`", async () => {
    const spec = SERVICES.find((s) => s.name === "json") as ServiceSpec;
    const { notifier, sends, url } = await setup(spec);
    const a = diffNotification();
    const b = { ...diffNotification(), id: "evt_other", monitor: { id: "mon_prices", name: "Prices" }, diff: { ...diffNotification().diff, id: "dif_other" } };
    expect(await notifier.send(url, groupDiffNotifications([a, b]))).toMatchObject({ outcome: "delivered" });
    const body = sends()[0]?.json as { monitor: { name: string }; monitors: Array<{ id: string; name: string }> };
    expect(body.monitor.name).toMatch(/changes on 2 monitors$/);
    expect(body.monitors.map((m) => m.id)).toEqual([a.monitor.id, "mon_prices"]);
    await notifier.close();
  });
});

describe("monitor health events", () => {
  it("PagerDuty triggers on failing and resolves on recovery with the monitor's health key, apart from its changes' incident", async () => {
    const spec = SERVICES.find((s) => s.name === "pagerduty") as ServiceSpec;
    const { notifier, sends, url } = await setup(spec);
    expect(await notifier.send(url, diffNotification())).toMatchObject({ outcome: "delivered" });
    expect(await notifier.send(url, failingNotification())).toMatchObject({ outcome: "delivered" });
    expect(await notifier.send(url, recoveredNotification())).toMatchObject({ outcome: "delivered" });
    const [change, trigger, resolve] = sends();
    expect(change?.json).toMatchObject({ event_action: "trigger", dedup_key: "driftwatch:mon_orders" });
    expect(trigger?.json).toMatchObject({ event_action: "trigger", dedup_key: "driftwatch:mon_orders:health", payload: { severity: "error" } });
    // a recovery resolves the health incident only: the change's incident stays open for someone to look at
    expect(resolve?.json).toEqual({ routing_key: expect.any(String), event_action: "resolve", dedup_key: "driftwatch:mon_orders:health" });
    await notifier.close();
  });

  it("Opsgenie closes the monitor's health alert on recovery, not its changes' alert", async () => {
    const spec = SERVICES.find((s) => s.name === "opsgenie") as ServiceSpec;
    const { notifier, sends, url } = await setup(spec);
    expect(await notifier.send(url, diffNotification())).toMatchObject({ outcome: "delivered" });
    expect(await notifier.send(url, failingNotification())).toMatchObject({ outcome: "delivered" });
    expect(await notifier.send(url, recoveredNotification())).toMatchObject({ outcome: "delivered" });
    const [change, failing, close] = sends();
    expect(change?.json).toMatchObject({ alias: "driftwatch-mon_orders" });
    expect(failing?.json).toMatchObject({ alias: "driftwatch-mon_orders-health" });
    expect(close?.path).toBe("/v2/alerts/driftwatch-mon_orders-health/close");
    await notifier.close();
  });

  it("a signed webhook refuses health events (it carries diff.detected only)", async () => {
    const spec = SERVICES.find((s) => s.name === "webhook") as ServiceSpec;
    const { notifier, url } = await setup(spec);
    await expect(notifier.send(url, recoveredNotification())).rejects.toMatchObject({ code: "unsupported_event" });
    await notifier.close();
  });

  it.each(SERVICES.filter((s) => s.name !== "webhook" && s.name !== "pagerduty" && s.name !== "opsgenie"))("$name sends a failing monitor", async (spec) => {
    const { notifier, sends, url } = await setup(spec);
    expect(await notifier.send(url, failingNotification())).toMatchObject({ outcome: "delivered" });
    expect(sends().map((s) => s.text).join("")).toContain("timeout after 30 s");
    await notifier.close();
  });
});

describe("the signed webhook", () => {
  it("is verified by the standardwebhooks package", async () => {
    const spec = SERVICES.find((s) => s.name === "webhook") as ServiceSpec;
    const { notifier, sends, url } = await setup(spec);
    expect(await notifier.send(url, diffNotification())).toMatchObject({ outcome: "delivered" });
    const request = sends()[0] as RecordedRequest;
    const event = new Webhook(WEBHOOK_SECRET.slice("whsec_".length)).verify(request.body, request.headers as Record<string, string>) as Record<string, unknown>;
    expect(event).toMatchObject({ eventType: "diff.detected", eventId: "evt_0001", monitorId: "mon_orders", diffId: "dif_42", snapshotId: "snp_7" });
    await notifier.close();
  });
});

describe("API base override and the SSRF guard", () => {
  it("keeps a path prefix of DRIFTWATCH_<SERVICE>_API_URL before the service's own path", async () => {
    fake = await startFakeService((r) => (r.path.startsWith("/proxy/bot") ? { status: 200, body: { ok: true } } : { status: 404, body: { ok: false } }));
    const notifier = createNotifier({ env: { DRIFTWATCH_TELEGRAM_API_URL: `${fake.url}/proxy/` }, guard: GUARD });
    expect(await notifier.send("tgram://123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/42", diffNotification())).toMatchObject({ outcome: "delivered" });
    expect(fake.requests[0]?.path).toBe("/proxy/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage");
    await notifier.close();
  });

  it("refuses a loopback destination by default, as for webhooks, and names the guard", async () => {
    fake = await startFakeService(() => ({ status: 200, body: "ok" }));
    const notifier = createNotifier({ env: { DRIFTWATCH_SLACK_API_URL: fake.url } });
    const result = await notifier.send("slack://T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7", diffNotification());
    expect(result).toMatchObject({ outcome: "failed", reason: expect.stringContaining("unsafe_url") });
    expect(fake.requests).toHaveLength(0);
    await notifier.close();
  });

  it("passes every URL through a checkUrl hook given by the host", async () => {
    fake = await startFakeService(() => ({ status: 200, body: "ok" }));
    const seen: string[] = [];
    const notifier = createNotifier({ guard: GUARD, checkUrl: async (u) => void seen.push(u) });
    await notifier.send(`mmost://127.0.0.1:${fake.port}/3ccdd113474722377935511fc85d3dd4`, diffNotification());
    expect(seen).toEqual([`http://127.0.0.1:${fake.port}/hooks/3ccdd113474722377935511fc85d3dd4`]);
    await notifier.close();
  });

  it("retries when the service does not answer", async () => {
    fake = await startFakeService(() => ({ status: 200 }));
    const port = fake.port;
    await fake.close();
    fake = undefined;
    const notifier = createNotifier({ guard: GUARD });
    const result = await notifier.send(`gotify://127.0.0.1:${port}/AbCdEfGhIjKlMn`, diffNotification());
    expect(result).toMatchObject({ outcome: "retry", reason: expect.stringContaining("connection_failed") });
    expect(result.outcome === "retry" ? result.reason : "").not.toContain("AbCdEfGhIjKlMn");
    await notifier.close();
  });

  it("rejects an invalid API base override at creation", () => {
    expect(() => createNotifier({ env: { DRIFTWATCH_SLACK_API_URL: "ftp://x" } })).toThrow(/DRIFTWATCH_SLACK_API_URL/);
  });
});

describe("custom channels", () => {
  it("an embedder registers a channel of its own", async () => {
    const sent: string[] = [];
    const notifier = createNotifier({
      builtins: false,
      channels: [
        {
          service: "pager",
          title: "Pager",
          schemes: ["pager"],
          parse: (raw) => ({ options: { number: raw.slice("pager://".length) }, secrets: [] }),
          format: (message) => message.title,
          send: async (payload: string) => {
            sent.push(payload);
            return { outcome: "delivered" };
          },
        },
      ],
    });
    const notification: Notification = diffNotification();
    expect(await notifier.send("pager://555", notification)).toEqual({ outcome: "delivered" });
    expect(sent).toEqual(["[CRITICAL] Orders API: schema change"]);
    expect(() => notifier.parse("slack://a/b/c")).toThrow(/no channel takes slack/);
    await notifier.close();
  });

  it("a scheme cannot be taken twice", () => {
    expect(() => createNotifier({ channels: [{ service: "x", title: "X", schemes: ["slack"], parse: () => ({ options: {}, secrets: [] }), format: () => "", send: async () => ({ outcome: "delivered" }) }] })).toThrow(/taken by slack/);
  });
});

describe("templates in channels", () => {
  it("Slack: the template's markup is kept, the values are escaped", async () => {
    const spec = SERVICES.find((s) => s.name === "slack") as ServiceSpec;
    const { notifier, sends, url } = await setup(spec);
    const notification = diffNotification({ monitor: { id: "mon_1", name: "<!channel> Shop" } });
    expect(await notifier.send(url, notification, { template: "*{{monitor.name}}*: {{#changes}}`{{path}}` {{/changes}}" })).toMatchObject({ outcome: "delivered" });
    const section = sends()[0]?.json.blocks[1];
    expect(section.text.text).toBe("*&lt;!channel&gt; Shop*: `$.items[0].price` `$.items[0].sku` `$.updatedAt` ");
    await notifier.close();
  });

  it("JSON: values are JSON-escaped and the output must be JSON", async () => {
    const spec = SERVICES.find((s) => s.name === "json") as ServiceSpec;
    fake = await startFakeService(() => ({ status: 200 }));
    const notifier = createNotifier({ guard: GUARD });
    const url = `json://127.0.0.1:${fake.port}/in`;
    const notification = diffNotification({ monitor: { id: "mon_1", name: 'say "hi"\n\\' } });
    expect(await notifier.send(url, notification, { template: '{"text": "{{monitor.name}}", "top": "{{severity}}"}' })).toMatchObject({ outcome: "delivered" });
    expect(fake.requests[0]?.json).toEqual({ text: 'say "hi" \\', top: "critical" });
    await expect(notifier.send(url, notification, { template: '{"text": {{monitor.name}}}' })).rejects.toMatchObject({ code: "invalid_template" });
    expect(spec.name).toBe("json");
    await notifier.close();
  });

  it("an invalid template is a typed error before anything is sent", async () => {
    const spec = SERVICES.find((s) => s.name === "discord") as ServiceSpec;
    const { notifier, url } = await setup(spec);
    await expect(notifier.send(url, diffNotification(), { template: "{{#changes}}" })).rejects.toMatchObject({ code: "invalid_template" });
    expect((fake as FakeService).requests).toHaveLength(0);
    await notifier.close();
  });
});

describe("a template whose output is far over a service's limit", () => {
  const big = `{{#changes}}${"{{path}} {{before}} to {{after}} *{{monitor.name}}* ".repeat(40)}\n{{/changes}}`;
  it.each(SERVICES.filter((s) => s.name !== "webhook" && s.name !== "json"))("$name still sends a message within the limits", async (spec) => {
    const { notifier, sends, url } = await setup(spec);
    const result = await notifier.send(url, hostileNotification(), { template: big });
    expect(result).toEqual(expect.objectContaining({ outcome: "delivered" }));
    spec.hostile?.(sends());
    await notifier.close();
  });

  it("Google Chat replies in the thread named in the URL", async () => {
    const spec = SERVICES.find((s) => s.name === "gchat") as ServiceSpec;
    fake = await startFakeService(spec.route);
    const notifier = createNotifier({ env: spec.env?.(fake), guard: GUARD });
    expect(await notifier.send("gchat://AAAAk6lGXyM/AIzaSyDdI0hCZtE6vySjMm/O7b1nyri_waOpLMSzbF/orders-thread", diffNotification())).toMatchObject({ outcome: "delivered" });
    expect(fake.requests[0]?.query.get("messageReplyOption")).toBe("REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD");
    expect(fake.requests[0]?.json.thread).toEqual({ threadKey: "orders-thread" });
    await notifier.close();
  });
});
