// pino-pretty is loaded on first use, not on import: a process that never logs in the pretty format does not pay
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
const loaded = () => [...resolved, ...required()].filter((url) => /[\\\\/]node_modules[\\\\/](pino-pretty)[\\\\/]/.test(url)).length;
const { Writable } = await import("node:stream");
const sink = new Writable({ write(chunk, encoding, done) { done(); } });
const log = await import("../src/cli/log.ts");
log.createCliLogger({ format: "json", destination: sink }).info("a line");
await settle();
const afterImport = loaded();
log.createCliLogger({ format: "pretty", destination: sink }).info("a line");
await settle();
const afterUse = loaded();
port1.close();
console.log(JSON.stringify({ afterImport, afterUse }));
`;

describe("pino-pretty is loaded for the pretty log format only", () => {
  it("a JSON logger loads no pino-pretty; a pretty logger does", () => {
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
