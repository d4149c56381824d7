// The people parts of the CLI: `driftwatch serve` prints a setup link while no user exists (the
// built binary, as `npm start` runs it), and `driftwatch user create` for scripted installs.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/main.js";
import { Browser, startPeopleServer, STRONG, tokenOfLink } from "./people-support.js";
import { cliPath, killAllChildren, startCli, tempDir } from "./support.js";

const dir = tempDir("dw-people-cli-");
afterAll(() => {
  killAllChildren();
  fs.rmSync(dir, { recursive: true, force: true });
});

function io(env: Record<string, string> = {}) {
  const out = { stdout: "", stderr: "" };
  return {
    out,
    io: { stdout: (t: string) => void (out.stdout += t), stderr: (t: string) => void (out.stderr += t), env, cwd: dir },
  };
}

describe("driftwatch serve on a database without users", () => {
  it("prints a one-time setup link that creates the first owner; no link once a user exists", async () => {
    const database = `sqlite:${path.join(dir, "serve.db")}`;
    const first = await startCli(["--database", database], { DRIFTWATCH_LOG_LEVEL: "warn" });
    const line = /Finish setup: (\S+)/.exec(first.output());
    expect(line, first.output()).not.toBeNull();
    const url = line![1]!;
    expect(url.startsWith(`${first.baseUrl}/setup#token=`)).toBe(true);
    const browser = new Browser(first.baseUrl);
    const done = await browser.send("POST", "/api/auth/setup", { token: tokenOfLink(url), email: "first@example.com", displayName: "First", password: STRONG });
    expect(done.status, JSON.stringify(done.body)).toBe(201);
    expect(done.body.org.slug).toBe("default");
    await first.kill("SIGTERM");

    const second = await startCli(["--database", database], { DRIFTWATCH_LOG_LEVEL: "warn" });
    expect(second.output()).not.toMatch(/Finish setup/);
    expect((await new Browser(second.baseUrl).send("GET", "/api/auth/setup")).body).toEqual({ open: false });
    await second.kill("SIGTERM");
  });
});

describe("driftwatch user create", () => {
  it("creates a user in an organization (created when missing) who can sign in", async () => {
    const database = `sqlite:${path.join(dir, "users.db")}`;
    const created = io({ DRIFTWATCH_USER_PASSWORD: STRONG });
    expect(await runCli(["user", "create", "--email", "Ops@Example.com", "--org", "ops", "--name", "Ops", "--database", database], created.io)).toBe(0);
    expect(created.out.stderr).toMatch(/Created user usr_\S+ \(ops@example.com\) as owner of organization ops/);
    expect(created.out.stdout).toBe("");

    const generated = io();
    expect(await runCli(["user", "create", "--email", "viewer@example.com", "--org", "ops", "--role", "viewer", "--database", database], generated.io)).toBe(0);
    const password = /Password \(shown only this once\): (\S+)/.exec(generated.out.stdout)?.[1];
    expect(password).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // The built binary, the password on its standard input.
    const piped = spawnSync(process.execPath, [cliPath, "user", "create", "--email", "member@example.com", "--org", "ops", "--role", "member", "--password-stdin", "--database", database], {
      input: `${STRONG}\n`,
      encoding: "utf8",
    });
    expect(piped.status, piped.stderr).toBe(0);
    expect(piped.stdout).toBe("");

    const bad = io();
    expect(await runCli(["user", "create", "--email", "nope", "--org", "ops", "--database", database], bad.io)).toBe(2);
    expect(bad.out.stderr).toMatch(/--email must be an email address/);
    const weak = io({ DRIFTWATCH_USER_PASSWORD: "1234567890" });
    expect(await runCli(["user", "create", "--email", "weak@example.com", "--org", "ops", "--database", database], weak.io)).toBe(2);
    expect(weak.out.stderr).toMatch(/common/);
    const role = io();
    expect(await runCli(["user", "create", "--email", "r@example.com", "--org", "ops", "--role", "root", "--database", database], role.io)).toBe(2);

    const server = await startPeopleServer(database);
    try {
      const ops = await new Browser(server.baseUrl).signIn("ops@example.com", STRONG);
      expect(ops.body).toMatchObject({ role: "owner", org: { slug: "ops" } });
      const viewer = await new Browser(server.baseUrl).signIn("viewer@example.com", password!);
      expect(viewer.body.role).toBe("viewer");
      const member = await new Browser(server.baseUrl).signIn("member@example.com", STRONG);
      expect(member.body.role).toBe("member");
    } finally {
      await server.close();
    }
  });
});
