// pngjs is loaded on first use, not on import: a process that never compares screenshots does not pay
// its memory (issue 26, docs/benchmarks.md). Checked in a child process
// of its own (tooling/lazy-load.ts).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runLazyLoadCheck } from "../../../tooling/lazy-load";

const here = path.dirname(fileURLToPath(import.meta.url));

describe("pngjs is loaded on the first screenshot decoded", () => {
  it("importing core and diffing JSON loads no pngjs; the first screenshot comparison does", () => {
    const result = runLazyLoadCheck({
      cwd: here,
      packages: ["pngjs"],
      before: `
const core = await import("../src/index.ts");
core.diffJson({ a: 1 }, { a: 2 });
`,
      use: `
// two 1 x 1 PNGs (one black, one white pixel), written by hand: no PNG encoder is loaded here
const { deflateSync, crc32 } = await import("node:zlib");
const chunk = (type, data) => { const len = Buffer.alloc(4); len.writeUInt32BE(data.length); const body = Buffer.concat([Buffer.from(type), data]); const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(body)); return Buffer.concat([len, body, crc]); };
const png = (v) => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0])), chunk("IDAT", deflateSync(Buffer.from([0, v, v, v, 255]))), chunk("IEND", Buffer.alloc(0))]);
const compared = core.diffScreenshots(new Uint8Array(png(0)), new Uint8Array(png(255)));
if (!(compared.changedPercent > 0)) throw new Error("the two pixels compared equal");
`,
    });
    expect(result.stderr).toBe("");
    expect(result.afterImport).toBe(0);
    expect(result.afterUse).toBeGreaterThan(0);
  }, 90_000);
});
