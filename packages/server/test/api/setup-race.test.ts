import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Store } from "@driftwatch/core";
import { createSqliteStore } from "@driftwatch/store-sqlite";
import type { FastifyInstance } from "fastify";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createSetupLink, hashSecret, isSetupInvite, newSecret, SETUP_INVITE_EMAIL } from "@driftwatch/people";

/**
 * First-run setup with two server processes on one SQLite file: each process is a fresh load of the
 * app's modules (nothing shared in memory), on a store of its own on the same file.
 */
let dir: string;
let stores: Store[];
let apps: FastifyInstance[];

async function processOnTheFile(): Promise<FastifyInstance> {
  vi.resetModules();
  const { buildApp } = (await import("../../src/app.js")) as typeof import("../../src/app.js");
  const store = await createSqliteStore({ filename: join(dir, "setup.db") });
  stores.push(store);
  const app = await buildApp({
    store,
    checks: { checkNow: async () => null },
    deliveries: { runWorker: async () => ({ attempted: 0, succeeded: 0, failed: 0, pending: 0 }) },
    urlGuard: { assertSafeUrl: async () => undefined },
    config: { allowPrivateNetworks: false, rateLimitReads: 1000, rateLimitWrites: 1000, bodyLimitBytes: 65536, people: { scryptLogN: 14 } },
    logger: pino({ level: "silent" }),
    dashboardDir: null,
  });
  await app.ready();
  apps.push(app);
  return app;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "dw-setup-"));
  stores = [];
  apps = [];
});
afterEach(async () => {
  for (const app of apps) await app.close();
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const tokenOf = (url: string): string => new URL(url).hash.replace(/^#token=/, "");
const setup = (app: FastifyInstance, token: string, email: string) =>
  app.inject({ method: "POST", url: "/api/auth/setup", payload: { token, email, displayName: email, password: "tangerine-orbit-47-velvet" } });

describe("first-run setup across processes", () => {
  it("makes one first owner when two links are used at once in two processes", async () => {
    const [one, two] = [await processOnTheFile(), await processOnTheFile()];
    const store = stores[0]!;
    // two starts that raced: each printed a link the other did not see
    const first = (await createSetupLink(store, "http://localhost", 3600))!;
    const org = (await store.getOrganizationBySlug("default"))!;
    const secret = newSecret();
    const at = new Date();
    await store.createInvite(org.id, { email: SETUP_INVITE_EMAIL, role: "owner", tokenHash: hashSecret(secret), invitedBy: null, createdAt: at.toISOString(), expiresAt: new Date(at.getTime() + 3_600_000).toISOString() });
    const answers = await Promise.all([setup(one, tokenOf(first.url), "ada@example.com"), setup(two, secret, "bob@example.com")]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409]);
    expect(await store.countUsers()).toBe(1);
    expect(await store.countOwners(org.id)).toBe(1);
  });

  it("never leaves a user without an organization when one link is used twice at once", async () => {
    const [one, two] = [await processOnTheFile(), await processOnTheFile()];
    const store = stores[0]!;
    const link = (await createSetupLink(store, "http://localhost", 3600))!;
    const answers = await Promise.all([setup(one, tokenOf(link.url), "ada@example.com"), setup(two, tokenOf(link.url), "bob@example.com")]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409]);
    expect(await store.countUsers()).toBe(1);
    const org = (await store.getOrganizationBySlug("default"))!;
    for (const email of ["ada@example.com", "bob@example.com"]) {
      const user = await store.getUserByEmail(email);
      if (user !== null) expect(await store.listMembershipsOfUser(user.id)).toHaveLength(1);
    }
    expect(await store.countOwners(org.id)).toBe(1);
  });

  it("revokes the links of earlier starts", async () => {
    const app = await processOnTheFile();
    const store = stores[0]!;
    const older = (await createSetupLink(store, "http://localhost", 3600))!;
    const newer = (await createSetupLink(store, "http://localhost", 3600))!;
    const org = (await store.getOrganizationBySlug("default"))!;
    const pending = (await store.listInvites(org.id, { limit: 10 })).data.filter((i) => isSetupInvite(i) && i.revokedAt === null);
    expect(pending).toHaveLength(1);
    expect((await setup(app, tokenOf(older.url), "ada@example.com")).statusCode).toBe(401);
    expect((await setup(app, tokenOf(newer.url), "ada@example.com")).statusCode).toBe(201);
  });
});
