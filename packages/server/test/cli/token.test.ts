import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSqliteStore } from "@driftwatch/store-sqlite";
import { createPostgresStore } from "@driftwatch/store-postgres";
import { afterAll, describe, expect, it } from "vitest";
import type { CliIo } from "../../src/cli/io.js";
import { runCli } from "../../src/cli/main.js";
import { hashTokenSecret } from "../../src/index.js";
import { createPostgresDatabase } from "../e2e/support.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-cli-token-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function run(argv: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env, cwd: dir };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

describe("driftwatch token create", () => {
  it("creates the organization when missing and prints a token stored only as its hash", async () => {
    const result = await run(["token", "create", "--org", "acme", "--name", "ci", "--scopes", "monitors:read,webhooks:read", "--database", "sqlite:./dw.db"]);
    expect(result.code, result.stderr).toBe(0);
    const secret = result.stdout.trim();
    expect(secret).toMatch(/^dw_[A-Za-z0-9_-]{43}$/);
    expect(result.stderr).toContain("acme");
    expect(result.stderr).not.toContain(secret);

    const store = await createSqliteStore({ filename: path.join(dir, "dw.db") });
    try {
      const org = await store.getOrganizationBySlug("acme");
      expect(org).not.toBeNull();
      const token = await store.findTokenByHash(hashTokenSecret(secret));
      expect(token).toMatchObject({ orgId: org!.id, name: "ci", scopes: ["monitors:read", "webhooks:read"], revokedAt: null });
      expect(JSON.stringify(token)).not.toContain(secret);
    } finally {
      await store.close();
    }

    // A second token for the same organization reuses it; the database comes from the environment.
    const again = await run(["token", "create", "--org", "acme"], { DRIFTWATCH_DATABASE_URL: "sqlite:./dw.db" });
    expect(again.code, again.stderr).toBe(0);
    const store2 = await createSqliteStore({ filename: path.join(dir, "dw.db") });
    try {
      expect(await store2.countOrganizations()).toBe(1);
      const org = await store2.getOrganizationBySlug("acme");
      const tokens = await store2.listTokens(org!.id, { limit: 10 });
      expect(tokens.data).toHaveLength(2);
      const cliToken = tokens.data.find((t) => t.name === "cli");
      expect(cliToken?.scopes.sort()).toEqual(["admin", "monitors:read", "monitors:write", "webhooks:read", "webhooks:write"]);
    } finally {
      await store2.close();
    }
  });

  it("refuses bad input with exit 2 and a message, creating nothing", async () => {
    const cases: [string[], string][] = [
      [["token", "create", "--database", "sqlite:./bad.db"], "--org <slug> is required"],
      [["token", "create", "--org", "Not A Slug", "--database", "sqlite:./bad.db"], "--org must be a slug"],
      [["token", "create", "--org", "x", "--scopes", "monitors:read,root", "--database", "sqlite:./bad.db"], 'unknown scope "root"'],
      [["token", "create", "--org", "x", "--scopes", ",", "--database", "sqlite:./bad.db"], "at least one scope"],
      [["token", "create", "--org", "x", "--database", "mysql://db"], "--database: Unknown store URL scheme \"mysql:\""],
      [["token", "create", "--org", "x", "--database", "memory:"], "memory: database"],
      [["token", "create", "--org", "x", "--bogus", "--database", "sqlite:./bad.db"], "Unknown option --bogus"],
      [["token", "delete"], "unknown subcommand"],
    ];
    for (const [argv, message] of cases) {
      const result = await run(argv);
      expect(result.code, argv.join(" ")).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain(message);
    }
    expect(fs.existsSync(path.join(dir, "bad.db"))).toBe(false);
  });

  it("reports an unreachable database with exit 2", async () => {
    fs.writeFileSync(path.join(dir, "not-a-dir"), "");
    const result = await run(["token", "create", "--org", "x", "--database", "sqlite:./not-a-dir/dw.db"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("driftwatch token create:");
  });

  it("works on PostgreSQL too, and twice at once creates one organization", async () => {
    const database = await createPostgresDatabase("dw_cli_token");
    try {
      const [a, b] = await Promise.all([
        run(["token", "create", "--org", "racers", "--database", database.url]),
        run(["token", "create", "--org", "racers", "--database", database.url]),
      ]);
      expect(a.code, a.stderr).toBe(0);
      expect(b.code, b.stderr).toBe(0);
      const store = await createPostgresStore({ connectionString: database.url });
      try {
        expect(await store.countOrganizations()).toBe(1);
        const found = await store.findTokenByHash(hashTokenSecret(a.stdout.trim()));
        expect(found?.orgId).toBe((await store.getOrganizationBySlug("racers"))!.id);
        expect((await store.listTokens(found!.orgId, { limit: 10 })).data).toHaveLength(2);
      } finally {
        await store.close();
      }
    } finally {
      await database.drop();
    }
  });
});
