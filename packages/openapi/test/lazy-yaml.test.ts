// yaml is loaded on first use, not on import: a process that never reads a YAML document does not pay
// its memory (issue 26, docs/benchmarks.md). Checked in a child process of its own, with a module
// resolve hook that reports what ESM imports resolve and `require.cache` for what `require` loaded.
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
const required = () => Object.keys(createRequire(import.meta.url).cache);
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));
const loaded = () => [...resolved, ...required()].filter((url) => /[\\\\/]node_modules[\\\\/](yaml)[\\\\/]/.test(url)).length;
const openapi = await import("../src/index.ts");
const json = openapi.parseOpenApi(JSON.stringify({ openapi: "3.0.3", info: { title: "t", version: "1" }, paths: { "/a": { get: { responses: { "200": { description: "ok" } } } } } }));
openapi.diffOpenApi(json, json);
await settle();
const afterImport = loaded();
openapi.parseOpenApi("openapi: 3.0.3\\ninfo: { title: t, version: '1' }\\npaths: {}\\n");
await settle();
const afterUse = loaded();
port1.close();
console.log(JSON.stringify({ afterImport, afterUse }));
`;

describe("yaml is loaded on the first YAML document", () => {
  it("parsing and diffing JSON documents loads no yaml; the first YAML document does", () => {
    const run = spawnSync(process.execPath, ["--conditions=@driftwatch/source", "--import", "tsx", "--input-type=module", "-e", SCRIPT], {
      cwd: here,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.stderr.replace(/^\(node:\d+\) ExperimentalWarning.*\n?.*\n?/gm, "")).toBe("");
    const result = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as { afterImport: number; afterUse: number };
    expect(result.afterImport).toBe(0);
    expect(result.afterUse).toBeGreaterThan(0);
  }, 90_000);
});
