/**
 * `driftwatch serve` configuration through the built binary: bad flags and variables stop it
 * with exit 2 before it listens; rate limits from the environment apply; `--version` and the
 * shebang work when the file is executed directly; the binary's heap defaults (cli/heap.ts) apply,
 * and DRIFTWATCH_HEAP=node leaves node's.
 */
import { execFile, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { api, cliPath, eventually, killAllChildren, newAdminToken, startCli, tempDir } from "./support.js";

const dir = tempDir("dw-e2e-config-");
afterAll(() => {
  killAllChildren();
  fs.rmSync(dir, { recursive: true, force: true });
});

function runCli(args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [cliPath, ...args], { env: { ...process.env, ...env }, encoding: "utf8", timeout: 30_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("driftwatch serve configuration", () => {
  it("exits 2 with a message naming the flag or variable for bad configuration", () => {
    const db = `sqlite:${path.join(dir, "never.db")}`;
    const cases: [string[], Record<string, string>, RegExp][] = [
      [["serve", "--port", "http", "--database", db], {}, /--port must be a whole number/],
      [["serve", "--database", "mysql://db"], {}, /--database: Unknown store URL scheme "mysql:"/],
      [["serve", "--database", db], { DRIFTWATCH_RATE_LIMIT_READS: "lots" }, /DRIFTWATCH_RATE_LIMIT_READS must be a whole number/],
      [["serve", "--database", db], { DRIFTWATCH_ADMIN_TOKEN: "hunter2" }, /DRIFTWATCH_ADMIN_TOKEN must be a driftwatch token/],
      [["serve", "--database", db, "--frobnicate"], {}, /Unknown option --frobnicate/],
    ];
    for (const [args, env, message] of cases) {
      const result = runCli(args, env);
      expect(result.status, args.join(" ")).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    expect(fs.existsSync(path.join(dir, "never.db"))).toBe(false);
  });

  it("runs as an executable and prints its version and help", async () => {
    const { stdout } = await promisify(execFile)(cliPath, ["--version"]);
    const pkg = JSON.parse(fs.readFileSync(path.join(path.dirname(cliPath), "..", "package.json"), "utf8")) as { version: string };
    expect(stdout.trim()).toBe(pkg.version);
    const help = runCli(["--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("token create");
    expect(runCli([]).status).toBe(2);
  });

  it("starts with the lean heap (a young generation that did not grow while starting), or node's with DRIFTWATCH_HEAP=node", async () => {
    const listening = async (server: Awaited<ReturnType<typeof startCli>>): Promise<{ heap?: Record<string, unknown> }> =>
      eventually(
        async () => {
          const line = server.output().split("\n").find((l) => l.includes('"msg":"driftwatch listening"'));
          return line === undefined ? undefined : (JSON.parse(line) as { heap?: Record<string, unknown> });
        },
        10_000,
        "the driftwatch listening line",
      );
    const env = { DRIFTWATCH_LOG_FORMAT: "json", NODE_OPTIONS: "" };
    const lean = await startCli(["--database", "memory:"], env);
    const leanHeap = (await listening(lean)).heap;
    expect(leanHeap).toMatchObject({ settings: "lean", youngGenerationMaxMb: 16, heapGrowingPercent: 30 });
    // V8 took the setting: with node's defaults, loading the server takes the young generation to 32 MB.
    expect(leanHeap!.youngGenerationMb as number).toBeLessThanOrEqual(4);
    expect(await lean.kill("SIGTERM")).toEqual({ code: 0, signal: null });

    const node = await startCli(["--database", "memory:"], { ...env, DRIFTWATCH_HEAP: "node" });
    expect((await listening(node)).heap).toEqual({ settings: "node", reason: "DRIFTWATCH_HEAP=node" });
    expect(await node.kill("SIGTERM")).toEqual({ code: 0, signal: null });

    const bad = runCli(["serve", "--database", "memory:"], { DRIFTWATCH_HEAP: "tiny" });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/DRIFTWATCH_HEAP must be lean or node/);
  });

  it("applies rate limits from the environment, with the IETF headers and Retry-After", async () => {
    const token = newAdminToken();
    const server = await startCli(["--database", `sqlite:${path.join(dir, "rl.db")}`, "--rate-limit-writes", "50"], {
      DRIFTWATCH_ADMIN_TOKEN: token,
      DRIFTWATCH_RATE_LIMIT_READS: "3",
      DRIFTWATCH_LOG_LEVEL: "warn",
    });
    const call = api(server.baseUrl, token);
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 4; i++) {
      last = await call("GET", "/api/monitors");
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last!.body.code).toBe("rate_limited");
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(last!.headers.get("ratelimit-policy")).toContain("3");
    // Another endpoint has its own window.
    expect((await call("GET", "/api/webhooks")).status).toBe(200);
    expect(await server.kill("SIGTERM")).toEqual({ code: 0, signal: null });
  });
});
