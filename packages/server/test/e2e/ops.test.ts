/**
 * Operations end to end, with the built CLI: `backup` while a server writes, `restore` (refused
 * while the server runs, then done with it stopped), `doctor` on good and broken setups, and the
 * logs of a whole flow at debug level, grepped for every secret the flow handled.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import {
  api,
  cliPath,
  createPostgresDatabase,
  eventually,
  killAllChildren,
  newAdminToken,
  startCli,
  startReceiver,
  startTarget,
  tempDir,
} from "./support.js";
import { postgresSkipReason } from "../../../../tooling/test-postgres.js";

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cliPath, ...args], { env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr });
    });
  });
}

const dirs: string[] = [];
afterAll(() => {
  killAllChildren();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function monitorCount(file: string): number {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return (db.prepare("SELECT COUNT(*) AS n FROM monitors").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe("backup and restore of a SQLite store", () => {
  it("backs up while the server writes, refuses to restore under it, restores with it stopped", async () => {
    const dir = tempDir("dw-ops-backup-");
    dirs.push(dir);
    const db = path.join(dir, "live.db");
    const token = newAdminToken();
    const target = await startTarget("application/json", JSON.stringify({ n: 0 }));
    try {
      const server = await startCli(["--database", `sqlite:${db}`, "--allow-private-networks"], {
        DRIFTWATCH_ADMIN_TOKEN: token,
        DRIFTWATCH_LOG_LEVEL: "warn",
        DRIFTWATCH_RATE_LIMIT_WRITES: "100000",
      });
      const call = api(server.baseUrl, token);
      // Writes that keep going while the backups are taken: new monitors and checks of a churning target.
      let writing = true;
      let written = 0;
      const writer = (async () => {
        while (writing && written < 500) {
          target.set(JSON.stringify({ n: written }));
          const m = await call("POST", "/api/monitors", { type: "api", name: `m${written}`, url: target.url, intervalSeconds: 3600 });
          expect(m.status, JSON.stringify(m.body)).toBe(201);
          expect((await call("POST", `/api/monitors/${m.body.id}/check`)).status).toBe(200);
          written++;
        }
      })();
      await eventually(async () => (written >= 3 ? true : undefined), 30_000, "the first writes");
      const backups = [path.join(dir, "b1.db"), path.join(dir, "b2.db")];
      for (const file of backups) {
        const result = await run(["backup", file, "--database", `sqlite:${db}`]);
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toContain("integrity ok");
      }
      const writtenDuringBackups = written;
      writing = false;
      await writer;
      expect(writtenDuringBackups).toBeGreaterThanOrEqual(3);
      // Each copy is a consistent, complete database (checked by SQLite, not by the CLI).
      for (const file of backups) {
        const copy = new BetterSqlite3(file, { readonly: true });
        expect(copy.prepare("PRAGMA integrity_check").all()).toEqual([{ integrity_check: "ok" }]);
        copy.close();
      }
      const inBackup = monitorCount(backups[1]!);
      expect(inBackup).toBeGreaterThanOrEqual(3);

      // An existing backup is not overwritten without --force.
      const again = await run(["backup", backups[0]!, "--database", `sqlite:${db}`]);
      expect(again.code).toBe(2);
      expect(again.stderr).toContain("--force");

      // Restoring under the running server is refused; nothing changes.
      const refused = await run(["restore", backups[1]!, "--database", `sqlite:${db}`, "--force"]);
      expect(refused.code, refused.stdout + refused.stderr).toBe(1);
      expect(refused.stderr).toContain("in use");
      expect((await call("GET", "/api/monitors?limit=1")).status).toBe(200);

      // More writes after the backup, then stop the server and restore.
      expect((await call("POST", "/api/monitors", { type: "api", name: "after", url: target.url, intervalSeconds: 3600 })).status).toBe(201);
      const exit = await server.kill("SIGTERM");
      expect(exit.code).toBe(0);
      const live = monitorCount(db);
      expect(live).toBeGreaterThan(inBackup);
      const withoutForce = await run(["restore", backups[1]!, "--database", `sqlite:${db}`]);
      expect(withoutForce.code).toBe(2);
      const restored = await run(["restore", backups[1]!, "--database", `sqlite:${db}`, "--force"]);
      expect(restored.code, restored.stderr).toBe(0);
      expect(monitorCount(db)).toBe(inBackup);
      const kept = fs.readdirSync(dir).filter((f) => f.startsWith("live.db.replaced-"));
      expect(kept).toHaveLength(1);
      expect(monitorCount(path.join(dir, kept[0]!))).toBe(live);

      // The restored database serves.
      const again2 = await startCli(["--database", `sqlite:${db}`, "--allow-private-networks"], { DRIFTWATCH_ADMIN_TOKEN: token, DRIFTWATCH_LOG_LEVEL: "warn" });
      const call2 = api(again2.baseUrl, token);
      let served = 0;
      let cursor: string | null = null;
      do {
        const page: { status: number; body: { data: unknown[]; nextCursor: string | null } } = await call2(
          "GET",
          `/api/monitors?limit=100${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
        );
        expect(page.status).toBe(200);
        served += page.body.data.length;
        cursor = page.body.nextCursor;
      } while (cursor !== null);
      expect(served).toBe(inBackup);
      await again2.kill("SIGTERM");

      // A damaged backup is refused before anything is replaced.
      const damaged = path.join(dir, "damaged.db");
      const bytes = fs.readFileSync(backups[0]!);
      bytes.fill(0x55, 4096, Math.min(bytes.length, 4096 * 3));
      fs.writeFileSync(damaged, bytes);
      const bad = await run(["restore", damaged, "--database", `sqlite:${db}`, "--force"]);
      expect(bad.code, bad.stdout).toBe(1);
      expect(bad.stderr).toContain("not a usable backup");
      expect(monitorCount(db)).toBe(inBackup);
    } finally {
      await target.close();
    }
  });

  it("points PostgreSQL users to pg_dump", async () => {
    const result = await run(["backup", "/tmp/x.dump", "--database", "postgres://u:hunter2@127.0.0.1/db"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("pg_dump");
    expect(result.stderr).not.toContain("hunter2");
  });
});

describe("doctor", () => {
  it("passes on a good SQLite setup and names what to fix on broken ones", async () => {
    const dir = tempDir("dw-ops-doctor-");
    dirs.push(dir);
    const db = path.join(dir, "d.db");
    const server = await startCli(["--database", `sqlite:${db}`], { DRIFTWATCH_ADMIN_TOKEN: newAdminToken(), DRIFTWATCH_LOG_LEVEL: "warn" });
    await server.kill("SIGTERM");

    const good = await run(["doctor", "--database", `sqlite:${db}`, "--dns-host", "localhost"]);
    expect(good.code, good.stdout + good.stderr).toBe(0);
    expect(good.stdout).toMatch(/^OK +store .*integrity ok, schema version \d+ \(current\)/m);
    expect(good.stdout).toMatch(/^OK +browser .*launches/m);
    expect(good.stdout).toMatch(/^OK +egress +private networks blocked; DNS resolves localhost/m);
    expect(good.stdout).toMatch(/^SKIP +clock/m);

    // Broken: no Chromium, a name that does not resolve, a damaged database.
    const damaged = path.join(dir, "damaged.db");
    const bytes = fs.readFileSync(db);
    bytes.fill(0x55, 4096, Math.min(bytes.length, 4096 * 3));
    fs.writeFileSync(damaged, bytes);
    const broken = await run(["doctor", "--database", `sqlite:${damaged}`, "--dns-host", "no-such-host.invalid"], {
      DRIFTWATCH_CHROMIUM_PATH: path.join(dir, "no-chromium"),
      DRIFTWATCH_ALLOW_PRIVATE_NETWORKS: "true",
    });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^FAIL +store /m);
    expect(broken.stderr).toMatch(/^FAIL +browser +no Chromium at /m);
    expect(broken.stderr).toMatch(/^FAIL +egress +private networks ALLOWED.*DNS cannot resolve no-such-host\.invalid/m);
    expect(broken.stderr).toContain("fix: Restore the latest good backup");
    expect(broken.stderr).toContain("3 problems to fix.");

    // An old schema: the fix is to start the server (which migrates).
    const old = new BetterSqlite3(db);
    old.prepare("DELETE FROM driftwatch_migrations WHERE version = (SELECT MAX(version) FROM driftwatch_migrations)").run();
    old.close();
    const stale = await run(["doctor", "--database", `sqlite:${db}`, "--dns-host", "localhost", "--skip-browser"]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/schema version (\d+|none), this build expects \d+/);
    expect(stale.stderr).toContain("applies the pending migrations");
    // A newer schema (written by a later driftwatch) is named as such.
    const newer = new BetterSqlite3(db);
    newer.prepare("INSERT INTO driftwatch_migrations (version, name, applied_at) VALUES (999, 'future', '2030-01-01T00:00:00Z')").run();
    newer.close();
    const future = await run(["doctor", "--database", `sqlite:${db}`, "--dns-host", "localhost", "--skip-browser"]);
    expect(future.code).toBe(1);
    expect(future.stderr).toContain("schema version 999 is newer than this build's");

    const missing = await run(["doctor", "--database", `sqlite:${path.join(dir, "none.db")}`, "--dns-host", "localhost", "--skip-browser"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no database at");
  });

  it("checks PostgreSQL: schema, clock, and an unreachable server", async (ctx) => {
    const skip = await postgresSkipReason();
    if (skip !== null) return ctx.skip(skip);
    const database = await createPostgresDatabase("dw_ops_doctor");
    try {
      const empty = await run(["doctor", "--database", database.url, "--dns-host", "localhost", "--skip-browser"]);
      expect(empty.code).toBe(1);
      expect(empty.stderr).toContain("no driftwatch schema yet");

      const server = await startCli(["--database", database.url], { DRIFTWATCH_ADMIN_TOKEN: newAdminToken(), DRIFTWATCH_LOG_LEVEL: "warn" });
      await server.kill("SIGTERM");
      const good = await run(["doctor", "--database", database.url, "--dns-host", "localhost", "--skip-browser"]);
      expect(good.code, good.stdout + good.stderr).toBe(0);
      expect(good.stdout).toMatch(/^OK +store +PostgreSQL .*schema version \d+ \(current\)/m);
      expect(good.stdout).toMatch(/^OK +clock +within \d+ ms of PostgreSQL's now\(\)/m);

      const down = await run(["doctor", "--database", "postgres://postgres:pw-not-shown@127.0.0.1:1/x", "--dns-host", "localhost", "--skip-browser"]);
      expect(down.code).toBe(1);
      expect(down.stderr).toMatch(/^FAIL +store +cannot connect to postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/x/m);
      expect(down.stderr).not.toContain("pw-not-shown");
    } finally {
      await database.drop();
    }
  });
});

describe("logs of an end-to-end run", () => {
  it("are one JSON object a line and never contain a secret, at debug level", async (ctx) => {
    const skip = await postgresSkipReason();
    if (skip !== null) return ctx.skip(skip);
    const database = await createPostgresDatabase("dw_ops_logs");
    // Trust authentication ignores the password: it is only there to be kept out of the logs.
    const password = "pg-pass-0f3a9c";
    const url = new URL(database.url);
    url.password = password;
    const adminToken = newAdminToken();
    const headerValue = "Bearer header-secret-7d1e55";
    const target = await startTarget("application/json", JSON.stringify({ v: 1 }));
    const receiver = await startReceiver();
    try {
      const server = await startCli(["--database", url.toString(), "--allow-private-networks"], {
        DRIFTWATCH_ADMIN_TOKEN: adminToken,
        DRIFTWATCH_LOG_LEVEL: "debug",
        DRIFTWATCH_LOG_FORMAT: "json",
      });
      const admin = api(server.baseUrl, adminToken);
      const created = await admin("POST", "/api/tokens", { name: "ci", scopes: ["monitors:read", "monitors:write", "webhooks:read", "webhooks:write"] });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const userToken: string = created.body.token;
      const call = api(server.baseUrl, userToken);
      const hook = await call("POST", "/api/webhooks", { url: receiver.url, minSeverity: "info" });
      expect(hook.status, JSON.stringify(hook.body)).toBe(201);
      const webhookSecret: string = hook.body.secret;
      receiver.setSecret(webhookSecret);
      const monitor = await call("POST", "/api/monitors", {
        type: "api",
        name: "with auth",
        url: target.url,
        intervalSeconds: 3600,
        headers: { authorization: headerValue },
      });
      expect(monitor.status, JSON.stringify(monitor.body)).toBe(201);
      // the flow needs its first change delivered: a learning monitor's second content is a
      // learning diff, recorded but not sent
      expect((await call("PATCH", `/api/monitors/${monitor.body.id}/settings`, { autoApplySuggestions: false })).status).toBe(200);
      expect((await call("POST", `/api/monitors/${monitor.body.id}/check`)).status).toBe(200);
      target.set(JSON.stringify({ v: 2 }));
      expect((await call("POST", `/api/monitors/${monitor.body.id}/check`)).status).toBe(200);
      await eventually(async () => (receiver.unique().size >= 1 ? true : undefined), 30_000, "a verified delivery");
      // A wrong token and a request with the secret in a bad body are logged too.
      expect((await api(server.baseUrl, `${userToken}x`)("GET", "/api/monitors")).status).toBe(401);
      expect((await server.kill("SIGTERM")).code).toBe(0);

      // The one line that is not JSON: the first-run setup link, on stderr (a secret, never logged).
      const lines = server.output().split("\n").filter((l) => l.trim() !== "" && !l.startsWith("Finish setup: "));
      expect(server.output()).toMatch(/^Finish setup: http:\/\/127\.0\.0\.1:\d+\/setup#token=[A-Za-z0-9_-]{43}$/m);
      const entries = lines.map((line) => JSON.parse(line) as { level: number; msg: string });
      expect(entries.some((e) => e.level === 20), "debug lines were logged").toBe(true);
      expect(entries.some((e) => e.msg === "request completed")).toBe(true);
      expect(entries.some((e) => e.msg === "driftwatch listening")).toBe(true);
      const log = server.output();
      expect(log).toContain(`127.0.0.1:${url.port}`);
      const secrets = {
        adminToken,
        userToken,
        webhookSecret,
        webhookKey: webhookSecret.replace(/^whsec_/, ""),
        headerValue: "header-secret-7d1e55",
        password,
      };
      for (const [name, secret] of Object.entries(secrets)) expect(log.includes(secret), `${name} appears in the log`).toBe(false);
    } finally {
      killAllChildren();
      await Promise.allSettled([target.close(), receiver.close()]);
      await database.drop();
    }
  });
});
