// playwright-core is loaded on the first browser launch, not on import: a server that never checks
// a website (or not yet) does not pay its memory (about 80 MB; issue 26, docs/benchmarks.md).
// Checked in a child process of its own with a module resolve hook reporting what ESM imports
// resolve. That the fetcher still launches and renders is browser-fetcher.test.ts's.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const here = path.dirname(fileURLToPath(import.meta.url));

const HOOKS = `
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  port.postMessage(result.url);
  return result;
}`;

const SCRIPT = `
import { register, createRequire } from "node:module";
import { MessageChannel } from "node:worker_threads";
const { port1, port2 } = new MessageChannel();
const resolved = [];
port1.on("message", (url) => resolved.push(url));
register("data:text/javascript," + encodeURIComponent(${JSON.stringify(HOOKS)}), { data: { port: port2 }, transferList: [port2] });
const fetcherModule = await import("../src/index.ts");
const fetcher = fetcherModule.createBrowserFetcher({ allowPrivateNetworks: true });
await new Promise((resolve) => setTimeout(resolve, 100));
const loaded = [...resolved, ...Object.keys(createRequire(import.meta.url).cache)].filter((url) => /[\\\\/]node_modules[\\\\/]playwright-core[\\\\/]/.test(url));
await fetcher.close();
port1.close();
console.log(JSON.stringify({ loaded: loaded.length }));
`;

describe("playwright-core is loaded on first use", () => {
  it("importing the package and creating a fetcher loads no playwright-core", () => {
    const run = spawnSync(process.execPath, ["--conditions=@driftwatch/source", "--import", "tsx", "--input-type=module", "-e", SCRIPT], {
      cwd: here,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as { loaded: number };
    expect(result.loaded).toBe(0);
  }, 90_000);
});
