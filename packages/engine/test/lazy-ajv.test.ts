// Ajv (and ajv-formats) is loaded on first use, not on import: a process that never validates a response against a contract does not pay
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
const loaded = () => [...resolved, ...required()].filter((url) => /[\\\\/]node_modules[\\\\/](ajv|ajv-formats)[\\\\/]/.test(url)).length;
const engine = await import("../src/index.ts");
const { parseOpenApi } = await import("@driftwatch/openapi");
const checker = new engine.ContractChecker({ store: {}, fetcher: {} });
await settle();
const afterImport = loaded();
const doc = parseOpenApi(JSON.stringify({ openapi: "3.0.3", info: { title: "t", version: "1" }, paths: { "/a": { get: { operationId: "getA", responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object", properties: { id: { type: "integer" } } } } } } } } } } }));
const compiled = checker.compiler.get("k", doc, { document: "memory:/openapi", operation: "getA" }, 200);
if (compiled instanceof Error) throw compiled;
await settle();
const afterUse = loaded();
port1.close();
console.log(JSON.stringify({ afterImport, afterUse }));
`;

describe("Ajv is loaded on the first contract compiled", () => {
  it("importing the engine and creating a contract checker loads no Ajv; the first compile does", () => {
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
