import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createSecretBox, generateSecretKey, parseSecretKeys } from "@driftwatch/core";
import { createNotifier } from "@driftwatch/notify";
import { AUDIT_ACTIONS } from "@driftwatch/schema";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { channelSecretContext } from "../../src/routes/channels.js";
import { apiMonitor, createHarness, expectProblem, json, type Harness } from "./harness.js";

const TOKENS = "T0CHANNELS/B0CHANNELS/s3cr3tW3bh00kT0kenValue";
const SLACK_URL = `slack://${TOKENS}`;
const SECRET = "s3cr3tW3bh00kT0kenValue";

/** A local server speaking Slack's incoming-webhook API: records requests, answers what the test queues. */
interface FakeSlack {
  url: string;
  requests: Array<{ path: string; body: Record<string, unknown> }>;
  answers: Array<{ status: number; body: string; headers?: Record<string, string> }>;
  close(): Promise<void>;
}

async function fakeSlack(): Promise<FakeSlack> {
  const requests: FakeSlack["requests"] = [];
  const answers: FakeSlack["answers"] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = "";
    req.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    req.on("end", () => {
      requests.push({ path: req.url ?? "", body: JSON.parse(text) as Record<string, unknown> });
      const answer = answers.shift() ?? { status: 200, body: "ok" };
      res.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    answers,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let slack: FakeSlack;
let h: Harness;
const box = createSecretBox(parseSecretKeys(generateSecretKey()));

beforeAll(async () => {
  slack = await fakeSlack();
  h = await createHarness({
    secrets: { box, source: "env" },
    // The service's API base points at the local server; the guard of the test lets loopback through.
    notifier: createNotifier({ env: { DRIFTWATCH_SLACK_API_URL: slack.url }, guard: { allowPrivateNetworks: true } }),
  });
});
afterAll(async () => {
  await h?.close();
  await slack?.close();
});
afterEach(() => {
  slack.requests.length = 0;
  slack.answers.length = 0;
});

function create(body: Record<string, unknown>, secret = h.a.admin) {
  return h.request(secret, { method: "POST", url: "/api/channels", payload: body });
}

describe("/api/channels", () => {
  it("adds a channel from an Apprise URL: 201, the URL masked, sealed at rest for this channel, audited without the URL", async () => {
    const res = await create({ name: "Ops", url: SLACK_URL, minSeverity: "medium", tags: ["Payments"], groupSeconds: 60 });
    expect(res.statusCode).toBe(201);
    const channel = json(res);
    expect(res.headers.location).toBe(`/api/channels/${channel.id}`);
    expect(channel).toMatchObject({
      name: "Ops",
      service: "slack",
      minSeverity: "medium",
      tags: ["payments"],
      events: ["diff.detected"],
      groupSeconds: 60,
      quietHours: null,
      template: null,
      paused: false,
      status: "ok",
      statusReason: null,
    });
    expect(channel.id).toMatch(/^ch_/);
    expect(channel.url).toBe("slack://***/***/***");
    expect(res.body).not.toContain(SECRET);
    const stored = await h.store.getChannel(h.a.orgId, channel.id);
    expect(stored!.urlSealed).not.toContain(SECRET);
    expect(box.open(stored!.urlSealed, channelSecretContext(channel.id))).toBe(SLACK_URL);
    expect(() => box.open(stored!.urlSealed, channelSecretContext("ch_other"))).toThrow();
    const audit = await h.store.listAudit(h.a.orgId, { limit: 10 });
    const entry = audit.data.find((e) => e.action === "channel.created");
    expect(entry).toMatchObject({ targetId: channel.id, data: { name: "Ops", service: "slack" } });
    expect(JSON.stringify(audit.data)).not.toContain(SECRET);
  });

  it("accepts the provider's own webhook URL", async () => {
    const res = await create({ name: "hook", url: `https://hooks.slack.com/services/${TOKENS}` });
    expect(res.statusCode).toBe(201);
    expect(json(res).service).toBe("slack");
    expect(res.body).not.toContain(SECRET);
  });

  it("refuses an invalid URL or template with a 422 naming the error, an unknown field with validation_failed", async () => {
    const unknown = expectProblem(await create({ name: "x", url: "nosuch://abc" }), 422, "invalid_channel_url");
    expect(unknown.detail).toContain("nosuch://");
    expect(unknown.errors[0].path).toBe("url");
    const short = expectProblem(await create({ name: "x", url: "slack://onlyone" }), 422, "invalid_channel_url");
    expect(short.detail).toContain("three tokens");
    const template = expectProblem(await create({ name: "x", url: SLACK_URL, template: "{{#changes}}unclosed" }), 422, "invalid_template");
    expect(template.errors).toEqual([{ path: "template", message: expect.any(String) }]);
    expect(template.detail).toMatch(/template/i);
    // a JSON channel's template must render JSON: tried on the sample change at once, not at the first send
    const notJson = expectProblem(await create({ name: "x", url: "jsons://hooks.example.com/in", template: '{"text": {{monitor.name}}}' }), 422, "invalid_template");
    expect(notJson.detail).toContain("JSON");
    const jsonChannel = json(await create({ name: "json", url: "jsons://hooks.example.com/in", template: '{"text": "{{monitor.name}}"}' }));
    expectProblem(await h.request(h.a.admin, { method: "PATCH", url: `/api/channels/${jsonChannel.id}`, payload: { template: "{{monitor.name}}" } }), 422, "invalid_template");
    // a Slack template that is not JSON cannot move to a JSON URL either
    const slackChannel = json(await create({ name: "slack", url: SLACK_URL, template: "*{{monitor.name}}*" }));
    expectProblem(await h.request(h.a.admin, { method: "PATCH", url: `/api/channels/${slackChannel.id}`, payload: { url: "jsons://hooks.example.com/in" } }), 422, "invalid_template");
    expect((await h.request(h.a.admin, { method: "PATCH", url: `/api/channels/${slackChannel.id}`, payload: { url: "jsons://hooks.example.com/in", template: "" } })).statusCode).toBe(200);
    expectProblem(await create({ name: "x", url: SLACK_URL, quietHours: { timeZone: "Mars/Olympus", windows: [{ start: "22:00", end: "07:00" }] } }), 422, "validation_failed");
    expectProblem(await create({ name: "x", url: SLACK_URL, groupSeconds: 86_401 }), 422, "validation_failed");
    expectProblem(await create({ name: "x", url: SLACK_URL, secret: "no" }), 422, "validation_failed");
  });

  it("answers 503 secret_key_missing when the server has no key, and stores nothing", async () => {
    const keyless = await createHarness({ secrets: { box: null, source: "missing", missingReason: "set DRIFTWATCH_SECRET_KEY" } });
    try {
      const res = await keyless.request(keyless.a.admin, { method: "POST", url: "/api/channels", payload: { name: "x", url: SLACK_URL } });
      expectProblem(res, 503, "secret_key_missing");
      expect((await keyless.store.listChannels(keyless.a.orgId, { limit: 10 })).data).toEqual([]);
    } finally {
      await keyless.close();
    }
  });

  it("reads, lists, patches (a new URL sealed again, unpausing clears failing) and deletes; another organization sees nothing", async () => {
    const made = json(await create({ name: "crud", url: SLACK_URL, events: ["diff.detected", "monitor.failing"] }));
    const got = await h.request(h.a.admin, { method: "GET", url: `/api/channels/${made.id}` });
    expect(json(got)).toEqual(made);
    const list = json(await h.request(h.a.admin, { method: "GET", url: "/api/channels?limit=100" }));
    expect(list.data.map((c: { id: string }) => c.id)).toContain(made.id);
    expect(JSON.stringify(list)).not.toContain(SECRET);
    expectProblem(await h.request(h.b.admin, { method: "GET", url: `/api/channels/${made.id}` }), 404, "not_found");
    expectProblem(await h.request(h.b.admin, { method: "PATCH", url: `/api/channels/${made.id}`, payload: { name: "stolen" } }), 404, "not_found");
    expectProblem(await h.request(h.b.admin, { method: "DELETE", url: `/api/channels/${made.id}` }), 404, "not_found");
    expect(json(await h.request(h.b.admin, { method: "GET", url: "/api/channels" })).data).toEqual([]);

    await h.store.updateChannel(h.a.orgId, made.id, { status: "failing", statusReason: "no_service", paused: true, updatedAt: new Date().toISOString() });
    const quietHours = { timeZone: "Europe/Berlin", windows: [{ start: "22:00", end: "07:00" }], minSeverity: "high" };
    const patched = await h.request(h.a.admin, { method: "PATCH", url: `/api/channels/${made.id}`, payload: { paused: false, quietHours, template: "{{title}}", name: "renamed" } });
    expect(patched.statusCode).toBe(200);
    expect(json(patched)).toMatchObject({ paused: false, status: "ok", statusReason: null, quietHours, template: "{{title}}", name: "renamed" });

    const other = "slack://T0OTHER/B0OTHER/an0therS3cretValue";
    const moved = json(await h.request(h.a.admin, { method: "PATCH", url: `/api/channels/${made.id}`, payload: { url: other } }));
    expect(moved.url).toBe("slack://***/***/***");
    const stored = await h.store.getChannel(h.a.orgId, made.id);
    expect(box.open(stored!.urlSealed, channelSecretContext(made.id))).toBe(other);
    expectProblem(await h.request(h.a.admin, { method: "PATCH", url: `/api/channels/${made.id}`, payload: { template: "{{#x}}" } }), 422, "invalid_template");
    const audit = await h.store.listAudit(h.a.orgId, { limit: 50 });
    expect(audit.data.find((e) => e.action === "channel.updated")?.data).toMatchObject({ changed: ["url"] });
    expect(JSON.stringify(audit.data)).not.toContain("an0therS3cretValue");

    // the channel as read, sent back (a GET, an edit, a PATCH): the masked URL keeps the stored one
    const roundTrip = await h.request(h.a.admin, { method: "PATCH", url: `/api/channels/${made.id}`, payload: { ...moved, id: undefined, service: undefined, status: undefined, statusReason: undefined, createdAt: undefined, updatedAt: undefined, name: "round trip" } });
    expect(roundTrip.statusCode).toBe(200);
    expect(json(roundTrip)).toMatchObject({ name: "round trip", url: "slack://***/***/***" });
    expect(box.open((await h.store.getChannel(h.a.orgId, made.id))!.urlSealed, channelSecretContext(made.id))).toBe(other);
    // any other URL with a masked part is refused, saying so (on create too)
    for (const [method, url] of [["PATCH", `/api/channels/${made.id}`], ["POST", "/api/channels"]] as const) {
      const refused = await h.request(h.a.admin, { method, url, payload: { name: "masked", url: "slack://***/B0OTHER/an0therS3cretValue" } });
      expectProblem(refused, 422, "invalid_channel_url");
      expect(json(refused).errors).toEqual([{ path: "url", message: expect.stringContaining("masked") }]);
    }

    expect((await h.request(h.a.admin, { method: "DELETE", url: `/api/channels/${made.id}` })).statusCode).toBe(204);
    expectProblem(await h.request(h.a.admin, { method: "GET", url: `/api/channels/${made.id}` }), 404, "not_found");
  });

  it("sends a test message now and answers what the service said: delivered, rate limited, gone", async () => {
    const made = json(await create({ name: "test", url: SLACK_URL }));
    const ok = await h.request(h.a.admin, { method: "POST", url: `/api/channels/${made.id}/test` });
    expect(ok.statusCode).toBe(200);
    expect(json(ok)).toEqual({ outcome: "delivered", status: 200, reason: null, retryAfterSeconds: null });
    expect(slack.requests).toHaveLength(1);
    expect(slack.requests[0]!.path).toBe(`/services/${TOKENS}`);
    expect(JSON.stringify(slack.requests[0]!.body.blocks)).toContain("driftwatch test notification");

    slack.answers.push({ status: 429, body: "rate_limited", headers: { "retry-after": "30" } });
    expect(json(await h.request(h.a.admin, { method: "POST", url: `/api/channels/${made.id}/test` }))).toMatchObject({ outcome: "retry", status: 429, retryAfterSeconds: 30 });
    slack.answers.push({ status: 404, body: "no_service" });
    const gone = json(await h.request(h.a.admin, { method: "POST", url: `/api/channels/${made.id}/test` }));
    expect(gone).toMatchObject({ outcome: "gone", status: 404 });
    expect(gone.reason).toContain("no_service");
    expect((await h.store.listAudit(h.a.orgId, { limit: 50 })).data.filter((e) => e.action === "channel.tested" && e.targetId === made.id)).toHaveLength(3);
    // nothing the server logged carries the webhook's secret
    expect(JSON.stringify(h.logLines)).not.toContain(SECRET);
  });

  it("lists a channel's messages, shows one with its attempts, and replays one", async () => {
    const made = json(await create({ name: "outbox", url: SLACK_URL }));
    const at = new Date().toISOString();
    const [message] = await h.store.enqueueChannelDeliveries(h.a.orgId, [
      { channelId: made.id, dedupKey: "diff:dif_x", eventType: "diff.detected", monitorId: null, diffId: null, payload: JSON.stringify({ hello: "world" }), createdAt: at, nextAttemptAt: at },
    ]);
    const [claimed] = await h.store.claimDueChannelDeliveries({ now: new Date(Date.now() + 1000).toISOString(), limit: 1, leaseMs: 10_000, owner: "t", channelId: made.id });
    await h.store.recordChannelDeliveryAttempt(claimed!.id, "t", { at, state: "failed", nextAttemptAt: null, responseStatus: 400, error: "HTTP 400: invalid_payload", durationMs: 4 });

    const list = json(await h.request(h.a.admin, { method: "GET", url: `/api/channels/${made.id}/deliveries` }));
    expect(list.data).toEqual([expect.objectContaining({ id: message!.id, channelId: made.id, state: "failed", attempts: 1, lastError: "HTTP 400: invalid_payload" })]);
    expect(list.data[0]).not.toHaveProperty("payload");
    const detail = json(await h.request(h.a.admin, { method: "GET", url: `/api/channels/${made.id}/deliveries/${message!.id}` }));
    expect(detail).toMatchObject({ payload: { hello: "world" }, attemptLog: [{ attempt: 1, responseStatus: 400, error: "HTTP 400: invalid_payload", durationMs: 4 }] });
    const replay = await h.request(h.a.admin, { method: "POST", url: `/api/channels/${made.id}/deliveries/${message!.id}/retry` });
    expect(replay.statusCode).toBe(202);
    expect(json(replay)).toMatchObject({ state: "pending", attempts: 1 });
    expectProblem(await h.request(h.b.admin, { method: "POST", url: `/api/channels/${made.id}/deliveries/${message!.id}/retry` }), 404, "not_found");
    // the replay is audited in its organization (the other organization's refused one is not)
    const replays = (await h.store.listAudit(h.a.orgId, { limit: 50 })).data.filter((e) => e.action === "channel.delivery_replayed");
    expect(replays).toEqual([expect.objectContaining({ targetId: made.id, data: expect.objectContaining({ name: "outbox", deliveryId: message!.id }) })]);
    expect(AUDIT_ACTIONS).toContain("channel.delivery_replayed");
    expect(AUDIT_ACTIONS).toContain("webhook.delivery_replayed");
    expectProblem(await h.request(h.a.admin, { method: "GET", url: `/api/channels/${made.id}/deliveries/cdl_00000000000000000000000000` }), 404, "not_found");
  });

  it("says which channels a monitor reaches: by tags and events, with the effective minSeverity and the channel's state", async () => {
    const monitor = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, name: "routed", tags: ["payments", "eu"] } }));
    const all = json(await create({ name: "route-all", url: SLACK_URL, minSeverity: "low" }));
    const tagged = json(await create({ name: "route-tagged", url: SLACK_URL, minSeverity: "critical", tags: ["eu", "us"], events: ["diff.detected", "monitor.failing"] }));
    const other = json(await create({ name: "route-other", url: SLACK_URL, tags: ["us"] }));
    const paused = json(await create({ name: "route-paused", url: SLACK_URL, tags: ["payments"] }));
    await h.request(h.a.admin, { method: "PATCH", url: `/api/channels/${paused.id}`, payload: { paused: true } });
    await h.store.updateChannel(h.a.orgId, tagged.id, { status: "failing", statusReason: "no_service", updatedAt: new Date().toISOString() });
    const url = `/api/monitors/${monitor.id}/channels`;
    type Routed = Array<{ channel: { id: string } }>;
    const mine = (answer: Record<string, unknown>) =>
      (answer.data as Routed).filter((r) => [all.id, tagged.id, other.id, paused.id].includes(r.channel.id)).sort((a, b) => a.channel.id.localeCompare(b.channel.id));
    const first = json(await h.request(h.a.admin, { method: "GET", url }));
    expect(first.policyMinSeverity).toBeNull();
    expect(first.data.map((r: { channel: { id: string } }) => r.channel.id)).not.toContain(other.id);
    const byId = (answer: Record<string, unknown>, id: string) => mine(answer).find((r) => r.channel.id === id);
    expect(byId(first, all.id)).toMatchObject({ channel: { name: "route-all", url: expect.stringContaining("***") }, events: ["diff.detected"], minSeverity: "low", matchedTags: [], state: "active" });
    expect(byId(first, tagged.id)).toMatchObject({ events: ["diff.detected", "monitor.failing"], minSeverity: "critical", matchedTags: ["eu"], state: "failing" });
    expect(byId(first, paused.id)).toMatchObject({ matchedTags: ["payments"], state: "paused" });
    expect(mine(first)).toHaveLength(3);
    // the monitor policy's notify.minSeverity raises the bar of the channels below it
    const set = await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${monitor.id}/settings`, payload: { policyRules: { rules: [], notify: { minSeverity: "high" } } } });
    expect(set.statusCode).toBe(200);
    const second = json(await h.request(h.a.admin, { method: "GET", url }));
    expect(second.policyMinSeverity).toBe("high");
    expect(byId(second, all.id)).toMatchObject({ minSeverity: "high" });
    expect(byId(second, tagged.id)).toMatchObject({ minSeverity: "critical" });
    // with alert conditions, the conditions alone decide: the policy's notify.minSeverity no longer applies
    const conditions = { track: [{ name: "price", path: "$.price" }], alert: { conditions: [{ value: "price", op: "lt", to: 5 }] } };
    expect((await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${monitor.id}/settings`, payload: conditions })).statusCode).toBe(200);
    const third = json(await h.request(h.a.admin, { method: "GET", url }));
    expect(third.policyMinSeverity).toBeNull();
    expect(byId(third, all.id)).toMatchObject({ minSeverity: "low" });
    // another organization's monitor is not found; a caller needs webhooks:read and monitors:read
    expectProblem(await h.request(h.b.admin, { method: "GET", url }), 404, "not_found");
    expectProblem(await h.request((await h.a.token(["webhooks:read"])).secret, { method: "GET", url }), 403, "insufficient_scope");
    expectProblem(await h.request((await h.a.token(["monitors:read"])).secret, { method: "GET", url }), 403, "insufficient_scope");
    expect((await h.request((await h.a.token(["monitors:read", "webhooks:read"])).secret, { method: "GET", url })).statusCode).toBe(200);
    for (const id of [all.id, tagged.id, other.id, paused.id]) await h.request(h.a.admin, { method: "DELETE", url: `/api/channels/${id}` });
  });

  it("an organization has at most 1000 channels (the ones messages are routed to): the next is a 409", async () => {
    const orgId = h.b.orgId;
    for (let i = 0; i < 1000; i++) {
      await h.store.createChannel(orgId, {
        id: `chn_cap${String(i).padStart(23, "0")}`,
        name: `cap-${String(i)}`,
        service: "slack",
        urlSealed: "sealed",
        urlMasked: "slack://***",
        minSeverity: "info",
        tags: [],
        events: ["diff.detected"],
        groupSeconds: 0,
        quietHours: null,
        template: null,
        paused: false,
      });
    }
    const over = await h.request(h.b.admin, { method: "POST", url: "/api/channels", payload: { name: "one too many", url: SLACK_URL } });
    expectProblem(over, 409, "conflict");
    expect(json(over).detail).toMatch(/at most 1000/);
    const oldest = (await h.store.listChannels(orgId, { limit: 1 })).data[0]!;
    expect(await h.store.deleteChannel(orgId, oldest.id)).toBeTruthy();
    expect((await h.request(h.b.admin, { method: "POST", url: "/api/channels", payload: { name: "fits again", url: SLACK_URL } })).statusCode).toBe(201);
  });

  it("needs webhooks:read to read and webhooks:write to change", async () => {
    const reader = await h.a.token(["webhooks:read"]);
    const monitors = await h.a.token(["monitors:write"]);
    expect((await h.request(reader.secret, { method: "GET", url: "/api/channels" })).statusCode).toBe(200);
    expectProblem(await create({ name: "x", url: SLACK_URL }, reader.secret), 403, "insufficient_scope");
    expectProblem(await h.request(monitors.secret, { method: "GET", url: "/api/channels" }), 403, "insufficient_scope");
  });
});
