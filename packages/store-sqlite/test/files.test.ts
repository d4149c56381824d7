import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  SQLITE_SCHEMA_VERSION,
  backupSqliteFile,
  createSqliteStore,
  inspectSqliteFile,
  restoreSqliteFile,
  sqliteFileInUse,
  type SqliteStore,
} from "../src/index.js";

let dir: string;
let db: string;
const opened: SqliteStore[] = [];

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-sqlite-files-"));
  db = path.join(dir, "dw.db");
  // a database in WAL mode with a row, as a server leaves it
  const store = await createSqliteStore({ filename: db });
  await store.ensureOrganization("acme");
  await store.close();
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
  fs.rmSync(dir, { recursive: true, force: true });
});

async function codeOf(run: () => unknown): Promise<{ code: string; problems: string[] }> {
  try {
    await run();
  } catch (error) {
    expect((error as Error).name).toBe("SqliteFileError");
    return {
      code: (error as { code: string }).code,
      problems: (error as { problems: string[] }).problems,
    };
  }
  throw new Error("expected a SqliteFileError");
}

describe("inspectSqliteFile", () => {
  it("reports integrity and the schema version of a driftwatch database", () => {
    expect(inspectSqliteFile(db)).toEqual({
      ok: true,
      problems: [],
      schemaVersion: SQLITE_SCHEMA_VERSION,
    });
  });

  it("finds a file that is not a database, a database that is not driftwatch's, and a newer schema", () => {
    fs.writeFileSync(path.join(dir, "text.db"), "not a database at all, just text that is long enough".repeat(20));
    const text = inspectSqliteFile(path.join(dir, "text.db"));
    expect(text.ok).toBe(false);
    expect(text.problems.join()).toMatch(/not a readable SQLite database|cannot open/);

    const other = new BetterSqlite3(path.join(dir, "other.db"));
    other.exec("CREATE TABLE t (a)");
    other.close();
    expect(inspectSqliteFile(path.join(dir, "other.db")).problems).toEqual(["no driftwatch_migrations table: not a driftwatch database"]);

    const future = new BetterSqlite3(db);
    future.prepare("INSERT INTO driftwatch_migrations (version, name, applied_at) VALUES (999, 'future', '2030-01-01T00:00:00.000Z')").run();
    future.close();
    const found = inspectSqliteFile(db);
    expect(found.ok).toBe(false);
    expect(found.schemaVersion).toBe(999);
    expect(found.problems.join()).toContain(`schema version 999 is newer than this build's ${SQLITE_SCHEMA_VERSION}`);
  });

  it("reports a missing file without throwing", () => {
    const found = inspectSqliteFile(path.join(dir, "missing.db"));
    expect(found.ok).toBe(false);
    expect(found.problems[0]).toMatch(/^cannot open /);
  });
});

describe("backupSqliteFile", () => {
  it("copies an open database into one self-contained file and leaves nothing beside it", async () => {
    const store = await createSqliteStore({ filename: db });
    opened.push(store);
    await store.ensureOrganization("while-open");
    const out = path.join(dir, "out");
    const backup = await backupSqliteFile(db, path.join(out, "one.db"));
    expect(backup).toEqual({
      file: path.join(out, "one.db"),
      size: fs.statSync(path.join(out, "one.db")).size,
      schemaVersion: SQLITE_SCHEMA_VERSION,
    });
    expect(fs.readdirSync(out)).toEqual(["one.db"]);
    const copy = new BetterSqlite3(backup.file, { readonly: true });
    try {
      expect(copy.pragma("journal_mode", { simple: true })).toBe("delete");
      expect(
        (
          copy.prepare("SELECT COUNT(*) AS n FROM organizations").get() as {
            n: number;
          }
        ).n
      ).toBe(2);
    } finally {
      copy.close();
    }
    expect(fs.readdirSync(out)).toEqual(["one.db"]);
  });

  it("refuses a missing database, itself, a directory and an existing file without force, leaving no partial file", async () => {
    expect((await codeOf(() => backupSqliteFile(path.join(dir, "missing.db"), path.join(dir, "b.db")))).code).toBe("not_found");
    expect((await codeOf(() => backupSqliteFile(db, db))).code).toBe("invalid_target");
    fs.mkdirSync(path.join(dir, "folder"));
    for (const force of [false, true]) expect((await codeOf(() => backupSqliteFile(db, path.join(dir, "folder"), { force }))).code).toBe("invalid_target");
    fs.writeFileSync(path.join(dir, "taken.db"), "keep me");
    expect((await codeOf(() => backupSqliteFile(db, path.join(dir, "taken.db")))).code).toBe("exists");
    expect(fs.readFileSync(path.join(dir, "taken.db"), "utf8")).toBe("keep me");
    await backupSqliteFile(db, path.join(dir, "taken.db"), { force: true });
    expect(inspectSqliteFile(path.join(dir, "taken.db")).ok).toBe(true);
    expect(fs.readdirSync(dir).filter((name) => name.includes("partial"))).toEqual([]);
    expect(fs.readdirSync(path.join(dir, "folder"))).toEqual([]);
  });
});

describe("restoreSqliteFile", () => {
  it("puts a backup in place, keeping the database it replaces", async () => {
    const backup = await backupSqliteFile(db, path.join(dir, "backup.db"));
    const target = path.join(dir, "target.db");
    expect(restoreSqliteFile(backup.file, target)).toEqual({
      schemaVersion: SQLITE_SCHEMA_VERSION,
      replaced: null,
    });
    const now = new Date("2026-01-02T03:04:05.678Z");
    const again = restoreSqliteFile(backup.file, target, { force: true, now });
    expect(again.replaced).toBe(`${target}.replaced-2026-01-02T03-04-05-678Z`);
    expect(inspectSqliteFile(again.replaced!).ok).toBe(true);
    expect(inspectSqliteFile(target).ok).toBe(true);
    expect(fs.readdirSync(dir).filter((name) => name.includes("restoring"))).toEqual([]);
  });

  it("refuses a missing or unusable backup, an existing database without force, and a database in use", async () => {
    const backup = await backupSqliteFile(db, path.join(dir, "backup.db"));
    expect((await codeOf(() => restoreSqliteFile(path.join(dir, "missing.db"), db))).code).toBe("not_found");
    fs.writeFileSync(path.join(dir, "junk.db"), "junk".repeat(500));
    const junk = await codeOf(() => restoreSqliteFile(path.join(dir, "junk.db"), path.join(dir, "new.db")));
    expect(junk.code).toBe("unusable");
    expect(junk.problems.length).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(dir, "new.db"))).toBe(false);
    expect((await codeOf(() => restoreSqliteFile(backup.file, db))).code).toBe("exists");

    const store = await createSqliteStore({ filename: db });
    opened.push(store);
    expect(sqliteFileInUse(db)).toBe(true);
    expect((await codeOf(() => restoreSqliteFile(backup.file, db, { force: true }))).code).toBe("in_use");
    await opened.pop()!.close();
    expect(sqliteFileInUse(db)).toBe(false);
    expect(restoreSqliteFile(backup.file, db, { force: true }).replaced).not.toBeNull();
  });
});
