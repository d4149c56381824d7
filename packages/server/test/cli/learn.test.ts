// `driftwatch learn` against local targets (real HTTP fetcher, SSRF guard on unless lifted).
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliIo } from "../../src/cli/io.js";
import type { Fetcher } from "@driftwatch/core";
import { LEARN_MAX_TOTAL_BYTES } from "../../src/config/limits.js";
import { parseDuration, runLearn } from "../../src/cli/learn.js";
import { runCli } from "../../src/cli/main.js";

let server: http.Server;
let base: string;
let served = 0;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    served++;
    if (request.url === "/broken") {
      response.writeHead(503).end("down");
      return;
    }
    if (request.url === "/page") {
      response.writeHead(200, { "content-type": "text/html" }).end(
        `<html><body><main><h1>Prices</h1><p class="price">12 EUR</p><p class="stamp">Rendered ${new Date(Date.UTC(2026, 0, 1) + served * 60_000).toISOString()}</p></main><footer>(c) shop</footer></body></html>`,
      );
      return;
    }
    const items = [
      { id: 1, name: "apple" },
      { id: 2, name: "pear" },
      { id: 3, name: "plum" },
    ];
    response.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        generated_at: new Date(Date.UTC(2026, 0, 1) + served * 60_000).toISOString(),
        request_id: randomUUID(),
        status: "ok",
        items: served % 2 === 0 ? items : [...items].reverse(),
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env: {}, cwd: process.cwd() };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

describe("driftwatch learn", () => {
  it("prints the suggested policy with its evidence, readable by default", async () => {
    const result = await run("learn", `${base}/api`, "--samples", "4", "--interval", "0ms", "--allow-private-networks");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Learned from 4 fetches of ${base}/api (json).`);
    expect(result.stdout).toMatch(/volatile\s+\$\.generated_at\s+\[volatile\[\d\]\]/);
    expect(result.stdout).toContain("always an ISO 8601 timestamp");
    expect(result.stdout).toMatch(/volatile\s+\$\.request_id/);
    expect(result.stdout).not.toMatch(/volatile\s+\$\.status/);
    // the policy block is JSON a user can paste into the settings endpoint
    const json = result.stdout.slice(result.stdout.indexOf("\n{\n") + 1, result.stdout.indexOf("\n}\n") + 2);
    expect(JSON.parse(json)).toMatchObject({ volatile: expect.arrayContaining([{ path: "$.generated_at" }, { path: "$.request_id" }]) });
    expect(result.stderr).toContain("fetched 4/4");
  });

  it("--json prints { url, kind, samples, policy, evidence }", async () => {
    const result = await run("learn", `${base}/api`, "--samples=3", "--interval=0", "--allow-private-networks", "--json");
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    const out = JSON.parse(result.stdout);
    expect(out).toMatchObject({ url: `${base}/api`, kind: "json", samples: 3 });
    expect(out.policy.volatile).toEqual(expect.arrayContaining([{ path: "$.generated_at" }]));
    expect(out.evidence.find((e: { path?: string }) => e.path === "$.generated_at")).toMatchObject({ kind: "volatile", changed: 2, pairs: 2 });
  });

  it("reads an HTML target as a website (or as told by --kind) and scopes it with --selector", async () => {
    const result = await run("learn", `${base}/page`, "--samples", "3", "--interval", "0s", "--allow-private-networks", "--selector", "main", "--json");
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.kind).toBe("html");
    expect(out.policy).toEqual(expect.objectContaining({ rules: expect.any(Array) }));
    const forced = await run("learn", `${base}/api`, "--samples", "2", "--interval", "0", "--kind", "html", "--allow-private-networks", "--json");
    expect(JSON.parse(forced.stdout).kind).toBe("html");
  });

  it("keeps the SSRF guard on unless lifted", async () => {
    const before = served;
    const refused = await run("learn", `${base}/api`, "--samples", "2", "--interval", "0");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("unsafe_url");
    expect(refused.stderr).toContain("--allow-private-networks");
    expect(served).toBe(before);
    let stdout = "";
    const io: CliIo = { stdout: (t) => void (stdout += t), stderr: () => undefined, env: { DRIFTWATCH_ALLOW_PRIVATE_NETWORKS: "true" }, cwd: process.cwd() };
    expect(await runCli(["learn", `${base}/api`, "--samples", "2", "--interval", "0", "--json"], io)).toBe(0);
    expect(JSON.parse(stdout).samples).toBe(2);
  });

  it("exits 2 with a clear message for bad usage and for a target that answers an error", async () => {
    const broken = await run("learn", `${base}/broken`, "--samples", "2", "--interval", "0", "--allow-private-networks");
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("answered HTTP 503");
    for (const args of [[], ["a", "b"], [`${base}/api`, "--samples", "1"], [`${base}/api`, "--samples", "x"], [`${base}/api`, "--interval", "soon"], [`${base}/api`, "--kind", "xml"], [`${base}/api`, "--nope"]]) {
      const result = await run("learn", ...args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr, args.join(" ")).toMatch(/^driftwatch learn: /);
      expect(result.stdout).toBe("");
    }
    const help = await run("learn", "--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: driftwatch learn <url>");
    expect((await run("--help")).stdout).toContain("learn");
  });

  it("stops when the answers together exceed the memory budget", async () => {
    let calls = 0;
    const big: Fetcher = {
      async fetch() {
        calls++;
        const size = Math.ceil(LEARN_MAX_TOTAL_BYTES / 2) + 1;
        return { status: 200, headers: {}, body: "{}", contentType: "application/json", size, latencyMs: 1, finalUrl: "https://big.example/", notModified: false, browserRender: false, waitStrategy: null };
      },
      async close() {},
    };
    let stderr = "";
    const io: CliIo = { stdout: () => undefined, stderr: (t) => void (stderr += t), env: {}, cwd: process.cwd() };
    expect(await runLearn(["https://big.example/", "--samples", "5", "--interval", "0"], io, { fetcher: big })).toBe(2);
    expect(calls).toBe(2);
    expect(stderr).toContain("more than 64 MB after 2 fetches");
  });

  it("reads durations", () => {
    expect(parseDuration("500ms", "--interval")).toBe(500);
    expect(parseDuration("2s", "--interval")).toBe(2000);
    expect(parseDuration("1m", "--interval")).toBe(60_000);
    expect(parseDuration("3", "--interval")).toBe(3000);
    expect(() => parseDuration("11m", "--interval")).toThrow(/at most 10m/);
    expect(() => parseDuration("-1s", "--interval")).toThrow(/duration/);
  });
});
