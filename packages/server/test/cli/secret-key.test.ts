import { generateSecretKey } from "@driftwatch/core";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, resolveServeConfig } from "../../src/config/index.js";
import { requireSecretBox, resolveServerSecrets, SECRET_KEY_FILE } from "../../src/config/secret-key.js";

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("the server's secret key", () => {
  it("is generated beside a SQLite database on first start (mode 0600) and read again after", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "dw-secret-"));
    dirs.push(dir);
    const databaseUrl = `sqlite:${path.join(dir, "data", "driftwatch.db")}`;
    const first = await resolveServerSecrets({ databaseUrl });
    expect(first.source).toBe("file");
    expect(first.file).toBe(path.join(dir, "data", SECRET_KEY_FILE));
    expect((await stat(first.file!)).mode & 0o777).toBe(0o600);
    const sealed = first.box!.seal("xoxb-token", "channel:c1");
    const second = await resolveServerSecrets({ databaseUrl });
    expect(second.box!.keyId).toBe(first.box!.keyId);
    expect(second.box!.open(sealed, "channel:c1")).toBe("xoxb-token");
    expect((await readFile(first.file!, "utf8")).trim()).toHaveLength(44);
  });

  it("comes from DRIFTWATCH_SECRET_KEY first, with older keys for a rotation", async () => {
    const oldKey = generateSecretKey();
    const newKey = generateSecretKey();
    const before = await resolveServerSecrets({ secretKey: oldKey, databaseUrl: "postgres://x@127.0.0.1/db" });
    const sealed = before.box!.seal("pw", "secret:o:pw");
    const after = await resolveServerSecrets({ secretKey: `${newKey},${oldKey}`, databaseUrl: "postgres://x@127.0.0.1/db" });
    expect(after.source).toBe("env");
    expect(after.box!.open(sealed, "secret:o:pw")).toBe("pw");
    expect(after.box!.needsReseal(sealed)).toBe(true);
  });

  it("is missing on PostgreSQL and for a store passed in without one, and storing a secret then says how to set it", async () => {
    const postgres = await resolveServerSecrets({ databaseUrl: "postgres://x@127.0.0.1/db" });
    expect(postgres).toMatchObject({ box: null, source: "missing" });
    expect(() => requireSecretBox(postgres)).toThrow(expect.objectContaining({ code: "secret_key_missing", status: 503, message: expect.stringContaining("DRIFTWATCH_SECRET_KEY") }));
    const passedIn = await resolveServerSecrets({ databaseUrl: null });
    expect(passedIn.box).toBeNull();
    expect(() => requireSecretBox(undefined)).toThrow(expect.objectContaining({ code: "secret_key_missing" }));
    const memory = await resolveServerSecrets({ databaseUrl: "memory:" });
    expect(memory.source).toBe("ephemeral");
    expect(requireSecretBox(memory)).toBe(memory.box);
  });

  it("refuses a malformed DRIFTWATCH_SECRET_KEY at configuration, naming the variable but not the value", () => {
    const key = generateSecretKey();
    expect(resolveServeConfig([], { DRIFTWATCH_SECRET_KEY: key }).secretKey).toBe(key);
    expect(resolveServeConfig([], {}).secretKey).toBeNull();
    let error: unknown;
    try {
      resolveServeConfig([], { DRIFTWATCH_SECRET_KEY: "correct-horse-battery" });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain("DRIFTWATCH_SECRET_KEY");
    expect((error as Error).message).not.toContain("correct-horse");
  });
});
