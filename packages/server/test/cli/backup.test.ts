import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSqliteStore } from "@driftwatch/store-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliIo } from "../../src/cli/io.js";
import { runCli } from "../../src/cli/main.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-cli-backup-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env: {}, cwd: dir };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

beforeAll(async () => {
  // a database in WAL mode, as the server leaves it
  const store = await createSqliteStore({ filename: path.join(dir, "dw.db") });
  await store.ensureOrganization("acme");
  await store.close();
});

describe("driftwatch backup", () => {
  it("writes one self-contained file and leaves nothing beside it", async () => {
    fs.mkdirSync(path.join(dir, "out"));
    const result = await run(["backup", "out/one.db", "--database", "sqlite:./dw.db"]);
    expect(result.code, result.stderr).toBe(0);
    expect(fs.readdirSync(path.join(dir, "out"))).toEqual(["one.db"]);
    // and restoring it (which checks it first) leaves nothing beside it either
    const restored = await run(["restore", "out/one.db", "--database", "sqlite:./restored.db"]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(fs.readdirSync(path.join(dir, "out"))).toEqual(["one.db"]);
  });

  it("refuses a directory as the backup file with a clear error, --force or not", async () => {
    fs.mkdirSync(path.join(dir, "folder"));
    for (const args of [["backup", "folder"], ["backup", "folder", "--force"]]) {
      const result = await run([...args, "--database", "sqlite:./dw.db"]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/is a directory; name the backup file/);
      expect(result.stderr).not.toMatch(/EISDIR|\n\s+at /);
    }
    expect(fs.readdirSync(dir).filter((name) => name.includes("partial"))).toEqual([]);
    expect(fs.readdirSync(path.join(dir, "folder"))).toEqual([]);
  });
});
