// Notification channels end to end: a real server (SQLite, the engine running in the background)
// checks a local target and delivers to local servers speaking Slack's and Discord's webhook APIs
// (their API bases overridden with DRIFTWATCH_<SERVICE>_API_URL).
import fs from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { generateSecretKey } from "@driftwatch/core";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDriftwatchServer, type DriftwatchServer } from "../../src/index.js";

const SLACK_TOKENS = "T0E2E0001/B0E2E0001/e2eSlackS3cretT0ken0001";
const SLACK_GONE_TOKENS = "T0E2E0002/B0E2E0002/e2eSlackS3cretT0ken0002";
const DISCORD = { id: "112233445566778899", token: "e2eDiscordS3cretT0ken_abcdefghijklmnop" };
const SECRETS = ["e2eSlackS3cretT0ken0001", "e2eSlackS3cretT0ken0002", DISCORD.token];

interface Received {
  service: "slack" | "discord";
  path: string;
  body: Record<string, any>;
  at: number;
}

/** One local server speaking both services' webhook APIs: Slack's `/services/...`, Discord's `/api/webhooks/...`. */
function startServices(): Promise<{ server: Server; url: string; received: Received[]; discordAnswers: Array<{ status: number; body: unknown }> }> {
  const received: Received[] = [];
  const discordAnswers: Array<{ status: number; body: unknown }> = [];
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    req.on("end", () => {
      const url = req.url ?? "";
      const service = url.startsWith("/services/") ? "slack" : "discord";
      received.push({ service, path: url, body: JSON.parse(text) as Record<string, any>, at: Date.now() });
      if (service === "slack") {
        // the second Slack hook was removed from its workspace
        if (url.includes("e2eSlackS3cretT0ken0002")) return res.writeHead(404, { "content-type": "text/plain" }).end("no_service");
        return res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      }
      const answer = discordAnswers.shift() ?? { status: 200, body: { id: "1", channel_id: "2" } };
      res.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.body));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, discordAnswers })),
  );
}

async function until<T>(what: string, read: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("notification channels on a real server", () => {
  let dir: string;
  let services: Awaited<ReturnType<typeof startServices>>;
  let target: Server;
  let targetUrl: string;
  let body: unknown = { price: 10, currency: "EUR" };
  let server: DriftwatchServer;
  let base: string;
  let token: string;
  const logs: string[] = [];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-notify-e2e-"));
    services = await startServices();
    target = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body)));
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/prices`;
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        logs.push(chunk.toString("utf8"));
        callback();
      },
    });
    server = await createDriftwatchServer({
      databaseUrl: `sqlite:${path.join(dir, "driftwatch.db")}`,
      host: "127.0.0.1",
      port: 0,
      allowPrivateNetworks: true,
      secretKey: generateSecretKey(),
      env: { DRIFTWATCH_SLACK_API_URL: services.url, DRIFTWATCH_DISCORD_API_URL: services.url },
      logger: pino({ level: "debug" }, sink),
      pollIntervalMs: 100,
      deliveryPollMs: 100,
      rateLimitReads: 100_000,
      rateLimitWrites: 100_000,
      // no warm-up: the scheduler checks a new monitor at once and goes on with its warm-up in the
      // background, which could fetch the changed price before the test's own check (a race seen in
      // CI under load); warm-ups are tested in warmup.test.ts
      warmupSamples: 0,
    });
    token = (await server.bootstrap()).generatedToken!;
    base = await server.listen();
  });

  afterAll(async () => {
    await server?.close();
    await new Promise<void>((resolve) => (target ? target.close(() => resolve()) : resolve()));
    await new Promise<void>((resolve) => (services ? services.server.close(() => resolve()) : resolve()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function api(method: string, url: string, payload?: unknown): Promise<{ status: number; body: any; text: string }> {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { "content-type": "application/json" }) },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === "" ? null : JSON.parse(text), text };
  }

  it("delivers a change to Slack and Discord, honours Discord's 429 retry_after, and a gone Slack hook marks its channel failing; no secret in any answer or log line", async () => {
    const monitor = await api("POST", "/api/monitors", { type: "api", name: "Prices <!channel> @everyone", url: targetUrl, intervalSeconds: 3600, tags: ["shop"] });
    expect(monitor.status).toBe(201);
    const learning = await api("PATCH", `/api/monitors/${monitor.body.id}/settings`, { autoApplySuggestions: false });
    expect(learning.status).toBe(200);

    const slack = await api("POST", "/api/channels", { name: "Slack ops", url: `slack://${SLACK_TOKENS}`, tags: ["shop"] });
    const discord = await api("POST", "/api/channels", { name: "Discord", url: `https://discord.com/api/webhooks/${DISCORD.id}/${DISCORD.token}` });
    const gone = await api("POST", "/api/channels", { name: "Old Slack", url: `slack://${SLACK_GONE_TOKENS}` });
    const elsewhere = await api("POST", "/api/channels", { name: "Search team", url: `slack://${SLACK_TOKENS}`, tags: ["search"] });
    for (const created of [slack, discord, gone, elsewhere]) expect(created.status).toBe(201);
    expect(discord.body.url).toBe(`https://discord.com/api/webhooks/${DISCORD.id}/***`);

    expect((await api("POST", `/api/monitors/${monitor.body.id}/check`)).status).toBe(200);
    body = { price: 12, currency: "EUR" };
    // Discord rate-limits the first message: 429 with retry_after in the body
    services.discordAnswers.push({ status: 429, body: { message: "You are being rate limited.", retry_after: 1, global: false } });
    const changed = await api("POST", `/api/monitors/${monitor.body.id}/check`);
    expect(changed.status).toBe(200);
    // The change is recorded once: by this check, or, under load, by the scheduler's own first
    // check of the new monitor when that one fetched after the price changed (it claims a new
    // monitor at once; a race that failed CI twice), after which this check finds nothing new.
    const diffId: string =
      changed.body.diff?.id ??
      (await until("the recorded diff", async () => {
        const listed = await api("GET", `/api/monitors/${monitor.body.id}/diffs?limit=10`);
        return (listed.body.data as Array<{ id: string }>)[0]?.id;
      }));

    const toSlack = await until("the Slack message", () => services.received.find((r) => r.service === "slack" && r.path.includes("e2eSlackS3cretT0ken0001")));
    expect(toSlack.path).toBe(`/services/${SLACK_TOKENS}`);
    const slackText = JSON.stringify(toSlack.body);
    expect(slackText).toContain("$.price");
    // target content is data: Slack's broadcast syntax is escaped wherever Slack parses markup
    expect(toSlack.body.text).toContain("&lt;!channel&gt;");
    const markup = (toSlack.body.blocks as Array<{ text?: { type: string; text: string } }>).filter((b) => b.text?.type === "mrkdwn").map((b) => b.text!.text);
    expect(markup.join("\n")).not.toContain("<!channel>");
    // only the channel whose tags match got it (not "Search team")
    expect(services.received.filter((r) => r.service === "slack" && r.path.includes("e2eSlackS3cretT0ken0001"))).toHaveLength(1);

    const goneChannel = await until("the gone channel failing", async () => {
      const read = await api("GET", `/api/channels/${gone.body.id}`);
      return read.body.status === "failing" ? read.body : undefined;
    });
    expect(goneChannel.statusReason).toContain("no_service");

    // the 429 was honoured: a second attempt came, not before the retry schedule's first delay (5 s, -20 %)
    const discordCalls = await until("the Discord retry", () => {
      const calls = services.received.filter((r) => r.service === "discord");
      return calls.length >= 2 ? calls : undefined;
    });
    expect(discordCalls[0]!.path).toBe(`/api/webhooks/${DISCORD.id}/${DISCORD.token}?wait=true`);
    expect(discordCalls[1]!.at - discordCalls[0]!.at).toBeGreaterThanOrEqual(3_900);
    expect(discordCalls[0]!.body.allowed_mentions).toEqual({ parse: [] });
    const log = await until("the Discord message delivered", async () => {
      const page = await api("GET", `/api/channels/${discord.body.id}/deliveries`);
      return page.body.data[0]?.state === "succeeded" ? page.body.data[0] : undefined;
    });
    expect(log).toMatchObject({ attempts: 2, lastResponseStatus: 200, eventType: "diff.detected", diffId });
    const detail = await api("GET", `/api/channels/${discord.body.id}/deliveries/${log.id}`);
    expect(detail.body.attemptLog.map((a: { responseStatus: number }) => a.responseStatus)).toEqual([429, 200]);

    // a check of the same content again sends nothing more (no new diff), and no diff is sent twice
    expect((await api("POST", `/api/monitors/${monitor.body.id}/check`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(services.received.filter((r) => r.service === "slack" && r.path.includes("e2eSlackS3cretT0ken0001"))).toHaveLength(1);
    expect(services.received.filter((r) => r.service === "discord")).toHaveLength(2);

    // secrets: never in an API answer, never in a log line
    const answers = [slack, discord, gone, elsewhere, await api("GET", "/api/channels"), await api("GET", `/api/channels/${gone.body.id}/deliveries`)].map((a) => a.text).join("\n");
    for (const secret of SECRETS) {
      expect(answers).not.toContain(secret);
      expect(logs.join("")).not.toContain(secret);
    }
    expect(logs.length).toBeGreaterThan(0);
  });
});
