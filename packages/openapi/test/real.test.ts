import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { diffOpenApi, parseOpenApi } from "../src/index.js";

// Real documents of public APIs at several versions (test/real/SOURCES.md), with the changes
// checked by hand against the textual diff.
const root = path.join(import.meta.dirname, "real");
const pairs = fs
  .readdirSync(root, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((dir) =>
    fs
      .readdirSync(path.join(root, dir.name))
      .filter((name) => name.startsWith("expected."))
      .map((name) => {
        const [, from, to] = /^expected\.(.+)\.to\.(.+)\.json$/.exec(name)!;
        const file = (version: string): string => fs.readdirSync(path.join(root, dir.name)).find((f) => f.startsWith(`openapi-${version}.`))!;
        return { api: dir.name, name, base: path.join(root, dir.name, file(from!)), revision: path.join(root, dir.name, file(to!)), expected: path.join(root, dir.name, name) };
      }),
  );

describe("real documents at two versions", () => {
  it("has pairs of at least two APIs", () => {
    expect(new Set(pairs.map((p) => p.api)).size).toBeGreaterThanOrEqual(2);
  });

  for (const pair of pairs) {
    it(`${pair.api}: ${pair.name}`, () => {
      // large documents are committed gzipped
      const text = (file: string): string => (file.endsWith(".gz") ? zlib.gunzipSync(fs.readFileSync(file)).toString("utf8") : fs.readFileSync(file, "utf8"));
      const read = (file: string) => parseOpenApi(text(file), { url: `file://${file}` });
      const changes = diffOpenApi(read(pair.base), read(pair.revision), { today: "2026-11-28" });
      const got = changes.map((c) => ({ id: c.id, level: c.level, ...(c.operation === undefined ? {} : { operation: c.operation }) }));
      const sortKey = (c: { id: string; level?: string; operation?: string }): string => `${c.id} ${c.level ?? ""} ${c.operation ?? ""}`;
      const expected = JSON.parse(fs.readFileSync(pair.expected, "utf8")) as Array<{ id: string; level: string; operation?: string }>;
      expect(got.map(sortKey).sort()).toEqual(expected.map(sortKey).sort());
      for (const change of changes) {
        expect(change.message.length).toBeGreaterThan(0);
        expect(change.path).toMatch(/^(\/|file:)/);
      }
    });
  }
});

describe("GitHub's expected changes against the two files", () => {
  it("check-expected.mjs, reading the files without the diff's code, finds each expected rule and operation's count there", () => {
    const script = path.join(import.meta.dirname, "real/github/check-expected.mjs");
    const output = execFileSync(process.execPath, [script], { encoding: "utf8" });
    expect(output).toMatch(/^178 of 178 expected changes agree with the two files/);
  });
});
