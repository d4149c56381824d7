// `driftwatch notify test <url>` against a local Slack-compatible server (via DRIFTWATCH_SLACK_API_URL)
// and a local ntfy server, with the SSRF guard on unless lifted.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliIo } from "../../src/cli/io.js";
import { runCli } from "../../src/cli/main.js";

let server: http.Server;
let base: string;
const received: { url: string; body: string }[] = [];
let nextStatus = 200;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (c: Buffer) => chunks.push(c));
    request.on("end", () => {
      received.push({ url: request.url ?? "", body: Buffer.concat(chunks).toString("utf8") });
      if (nextStatus === 429) response.writeHead(429, { "retry-after": "30", "content-type": "text/plain" }).end("rate_limited");
      else if (nextStatus === 404) response.writeHead(404, { "content-type": "text/plain" }).end("no_service");
      else response.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function io(env: Record<string, string> = {}, cwd = process.cwd()): CliIo & { out: string; err: string } {
  const result = { out: "", err: "", env, cwd, stdout: (t: string) => void (result.out += t), stderr: (t: string) => void (result.err += t) };
  return result;
}

const SLACK = "slack://T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7/#ops";

describe("driftwatch notify test", () => {
  it("sends a sample change and prints the masked URL and the answer", async () => {
    nextStatus = 200;
    const out = io({ DRIFTWATCH_SLACK_API_URL: base, DRIFTWATCH_ALLOW_PRIVATE_NETWORKS: "true", DRIFTWATCH_PUBLIC_URL: "https://dw.example.com" });
    expect(await runCli(["notify", "test", SLACK], out)).toBe(0);
    expect(out.out).toBe("slack slack://***/***/***/#ops: delivered (HTTP 200)\n");
    const last = received.at(-1);
    expect(last?.url).toBe("/services/T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7");
    expect(JSON.parse(last?.body ?? "{}")).toMatchObject({ channel: "#ops", text: "[HIGH] driftwatch test notification: schema change" });
    expect(out.out + out.err).not.toContain("TIiajkdnlazkcOXrIdevi7");
  });

  it("exits 1 with the service's answer when it is not delivered", async () => {
    nextStatus = 429;
    const out = io({ DRIFTWATCH_SLACK_API_URL: base });
    expect(await runCli(["notify", "test", SLACK, "--allow-private-networks", "--json"], out)).toBe(1);
    expect(JSON.parse(out.out)).toEqual({ channel: "slack://***/***/***/#ops", service: "slack", result: { outcome: "retry", afterSeconds: 30, status: 429, reason: "HTTP 429: rate_limited" } });
    nextStatus = 404;
    const gone = io({ DRIFTWATCH_SLACK_API_URL: base });
    expect(await runCli(["notify", "test", SLACK, "--allow-private-networks"], gone)).toBe(1);
    expect(gone.out).toContain("gone (HTTP 404): HTTP 404: no_service");
  });

  it("keeps the SSRF guard on by default", async () => {
    const count = received.length;
    const out = io();
    expect(await runCli(["notify", "test", `ntfy://${base.slice("http://".length)}/alerts`], out)).toBe(1);
    expect(out.out).toContain("failed: unsafe_url");
    expect(out.err).toContain("--allow-private-networks");
    expect(received.length).toBe(count);
  });

  it("renders a template file", async () => {
    nextStatus = 200;
    const dir = mkdtempSync(path.join(tmpdir(), "dw-notify-"));
    writeFileSync(path.join(dir, "t.txt"), "{{monitor.name}}: {{#changes}}{{path}} {{/changes}}");
    const out = io({}, dir);
    expect(await runCli(["notify", "test", `ntfy://${base.slice("http://".length)}/alerts`, "--allow-private-networks", "--template", "t.txt"], out)).toBe(0);
    expect(JSON.parse(received.at(-1)?.body ?? "{}")).toMatchObject({ topic: "alerts", message: "driftwatch test notification: $.price $.items[0].sku $.updatedAt " });
  });

  it("exits 2 naming the problem for a bad URL or template, never printing the secret", async () => {
    const bad = io();
    expect(await runCli(["notify", "test", "tgram://123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"], bad)).toBe(2);
    expect(bad.err).toContain("at least one chat id is required");
    expect(bad.err).toContain("[chats] (invalid_channel_url)");
    expect(bad.err).not.toContain("AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw");
    const dir = mkdtempSync(path.join(tmpdir(), "dw-notify-"));
    writeFileSync(path.join(dir, "t.txt"), "{{#changes}}");
    const template = io({}, dir);
    expect(await runCli(["notify", "test", SLACK, "--template", "t.txt"], template)).toBe(2);
    expect(template.err).toContain("template line 1: the section {{#changes}} is never closed [template] (invalid_template)");
    const usage = io();
    expect(await runCli(["notify"], usage)).toBe(2);
    expect(usage.err).toContain("Usage: driftwatch notify test");
  });
});
