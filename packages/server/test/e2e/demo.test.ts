/**
 * `serve --demo` (what `npm start` runs): within a minute the printed curl commands show a diff of
 * each demo monitor and a delivered webhook; the SSRF guard stays on for everything but the demo's
 * own two origins; a second start on the same database reuses the demo monitors.
 */
import fs from "node:fs";
import path from "node:path";
import { processTree } from "@driftwatch/fetcher-browser";
import { afterAll, describe, expect, it } from "vitest";
import { api, eventually, killAllChildren, type ServerProcess, startCli, tempDir } from "./support.js";

const dir = tempDir("dw-e2e-demo-");
const database = `sqlite:${path.join(dir, "driftwatch.db")}`;
const env = { DRIFTWATCH_LOG_LEVEL: "warn", DRIFTWATCH_ALLOW_PRIVATE_NETWORKS: "" };

afterAll(() => {
  killAllChildren();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The banner's token, demo target origin and the three curl URLs. */
function banner(output: string): { token: string; urls: string[]; targetOrigin: string } {
  const token = /Admin token (dw_[A-Za-z0-9_-]{43})/.exec(output)?.[1];
  const targetOrigin = /Demo target (http:\/\/127\.0\.0\.1:\d+)\//.exec(output)?.[1];
  const urls = [...output.matchAll(/curl -s -H "authorization: Bearer dw_[^"]+" "([^"]+)"/g)].map((m) => m[1]!);
  if (token === undefined || targetOrigin === undefined) throw new Error(`no demo banner in:\n${output}`);
  return { token, urls, targetOrigin };
}

describe("driftwatch serve --demo", () => {
  let server: ServerProcess;

  it("shows a diff of each monitor and a delivered webhook within a minute, and keeps the guard on", async () => {
    server = await startCli(["--demo", "--database", database], env);
    const { token, urls, targetOrigin } = await eventually(async () => banner(server.output()), 30_000, "the demo banner");
    expect(urls).toHaveLength(4);
    // No account yet: the one-time setup link is shown too (npm start passes the output on as is).
    await eventually(async () => (/Finish setup: http:\/\/127\.0\.0\.1:\d+\/setup#token=[A-Za-z0-9_-]{43}/.test(server.output()) ? true : undefined), 30_000, "the setup link");
    const call = api(server.baseUrl, token);
    // One token on the fresh database: the printed demo token (no unseen bootstrap token).
    const tokens = await call("GET", "/api/tokens");
    expect(tokens.body.data.map((t: { name: string }) => t.name)).toEqual(["demo (npm start)"]);
    const [apiDiffs, pageDiffs, deliveries, noise] = urls.map((u) => u.slice(server.baseUrl.length)) as [string, string, string, string];

    await eventually(
      async () => {
        const [a, p, d] = await Promise.all([call("GET", apiDiffs), call("GET", pageDiffs), call("GET", deliveries)]);
        const delivered = d.body.data.some((x: { state: string }) => x.state === "succeeded");
        return a.body.data.length > 0 && p.body.data.length > 0 && delivered ? true : undefined;
      },
      60_000,
      "a diff of both demo monitors and a succeeded delivery",
    );
    const apiDiff = (await call("GET", apiDiffs)).body.data[0];
    expect(["value_change", "schema_change"]).toContain(apiDiff.classification);
    expect((await call("GET", pageDiffs)).body.data[0].classification).toBe("content_change");
    // the demo monitors learn their noise and apply it
    const profile = await call("GET", noise);
    expect(profile.status).toBe(200);
    expect(profile.body).toMatchObject({ appliedAutomatically: true, minSamples: 2 });
    expect(profile.body.samples).toBeGreaterThanOrEqual(2);
    const pageMonitorId = pageDiffs.split("/")[3]!;
    expect((await call("GET", `/api/monitors/${pageMonitorId}/settings`)).body.autoApplySuggestions).toBe(true);

    // Only the demo's own origins are exempt: another loopback port is still refused.
    const other = await call("POST", "/api/monitors", { type: "api", url: "http://127.0.0.1:9/x.json" });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe("unsafe_url");
    const metadata = await call("POST", "/api/webhooks", { url: "http://169.254.169.254/latest" });
    expect(metadata.status).toBe(422);
    const demoOrigin = await call("POST", "/api/monitors", { type: "api", url: `${targetOrigin}/api/prices.json`, intervalSeconds: 3600 });
    expect(demoOrigin.status, JSON.stringify(demoOrigin.body)).toBe(201);
    await call("DELETE", `/api/monitors/${demoOrigin.body.id}`);

    // No website monitor renders in a browser: Chromium was never launched.
    expect(processTree(server.child.pid!).filter((p) => /chrom/i.test(p.cmdline))).toEqual([]);
    expect(await server.kill("SIGTERM")).toEqual({ code: 0, signal: null });

    // A second start on the same database: same two demo monitors, a new token, the old one revoked.
    server = await startCli(["--demo", "--database", database], env);
    const second = await eventually(async () => banner(server.output()), 30_000, "the second demo banner");
    expect(second.token).not.toBe(token);
    const monitors = await api(server.baseUrl, second.token)("GET", "/api/monitors");
    expect(monitors.body.data.map((m: { name: string }) => m.name).sort()).toEqual(["Demo: news page", "Demo: prices API"]);
    expect((await api(server.baseUrl, token)("GET", "/api/monitors")).status).toBe(401);
    expect(await server.kill("SIGTERM")).toEqual({ code: 0, signal: null });
  });
});
