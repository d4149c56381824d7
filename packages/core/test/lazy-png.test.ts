// pngjs is loaded on first use, not on import: a process that never compares screenshots does not pay
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
const loaded = () => [...resolved, ...required()].filter((url) => /[\\\\/]node_modules[\\\\/](pngjs)[\\\\/]/.test(url)).length;
const core = await import("../src/index.ts");
core.diffJson({ a: 1 }, { a: 2 });
await settle();
const afterImport = loaded();
// two 1 x 1 PNGs (one black, one white pixel), written by hand: no PNG encoder is loaded here
const { deflateSync, crc32 } = await import("node:zlib");
const chunk = (type, data) => { const len = Buffer.alloc(4); len.writeUInt32BE(data.length); const body = Buffer.concat([Buffer.from(type), data]); const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(body)); return Buffer.concat([len, body, crc]); };
const png = (v) => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0])), chunk("IDAT", deflateSync(Buffer.from([0, v, v, v, 255]))), chunk("IEND", Buffer.alloc(0))]);
const compared = core.diffScreenshots(new Uint8Array(png(0)), new Uint8Array(png(255)));
if (!(compared.changedPercent > 0)) throw new Error("the two pixels compared equal");
await settle();
const afterUse = loaded();
port1.close();
console.log(JSON.stringify({ afterImport, afterUse }));
`;

describe("pngjs is loaded on the first screenshot decoded", () => {
  it("importing core and diffing JSON loads no pngjs; the first screenshot comparison does", () => {
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
