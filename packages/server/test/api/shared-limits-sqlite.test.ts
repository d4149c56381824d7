import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashPassword } from "@driftwatch/people";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDriftwatchServer, type DriftwatchServer } from "../../src/service.js";

// Two `serve` processes on one SQLite file (issue 26): the sign-in limits and the failed
// authentications are counted in the database, so two processes do not give a guesser twice the
// limits; request rate limits stay per process on SQLite (a write per request).
const PASSWORD = "tangerine-orbit-47-velvet";
let dir: string;
let one: DriftwatchServer;
let two: DriftwatchServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "dw-shared-limits-"));
  const options = {
    databaseUrl: `sqlite:${join(dir, "driftwatch.db")}`,
    background: false,
    logger: pino({ level: "silent" }),
    limits: { scryptLogN: 14, loginAccountLimit: 10, loginAddressLimit: 30 },
  };
  one = await createDriftwatchServer(options);
  await one.bootstrap();
  two = await createDriftwatchServer(options);
  const at = new Date().toISOString();
  const org = await one.store.ensureOrganization("default", "Default");
  for (const email of ["ada@example.com", "own@example.com"]) {
    const user = await one.store.createUser({ email, displayName: email, passwordHash: await hashPassword(PASSWORD, { logN: 14, r: 8, p: 1 }), createdAt: at });
    await one.store.addMembership(org.id, user.id, "viewer", at);
  }
});

afterAll(async () => {
  await two?.close();
  await one?.close();
  rmSync(dir, { recursive: true, force: true });
});

const signIn = (server: DriftwatchServer, email: string, password: string, remoteAddress: string) =>
  server.app.inject({ method: "POST", url: "/api/auth/sign-in", payload: { email, password }, remoteAddress });

describe("two serve processes on one SQLite file", () => {
  it("count the failed sign-ins of an account against one limit", async () => {
    for (let i = 0; i < 5; i++) {
      expect((await signIn(one, "ada@example.com", "not-the-password-at-all", `198.51.100.${String(i)}`)).statusCode).toBe(401);
      expect((await signIn(two, "ada@example.com", "not-the-password-at-all", `198.51.100.${String(i + 5)}`)).statusCode).toBe(401);
    }
    // ten failures together: the right password is refused in both, as one process alone refuses it
    expect((await signIn(one, "ada@example.com", PASSWORD, "198.51.100.20")).statusCode).toBe(429);
    expect((await signIn(two, "ada@example.com", PASSWORD, "198.51.100.21")).statusCode).toBe(429);
  });

  it("count the failed sign-ins of an address against one limit, a sign-in to its own account clearing none", async () => {
    const address = "203.0.113.50";
    const answers: number[] = [];
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 14; i++) {
        answers.push((await signIn(one, `victim-${String(round)}-${String(i)}@example.com`, "guess guess guess", address)).statusCode);
        answers.push((await signIn(two, `victim-${String(round)}-${String(i)}-b@example.com`, "guess guess guess", address)).statusCode);
      }
      answers.push((await signIn(round === 0 ? one : two, "own@example.com", PASSWORD, address)).statusCode);
    }
    // 28 failures, a sign-in, 2 more failures reach the limit of 30: everything after is refused
    expect(answers.slice(0, 29)).toEqual([...Array<number>(28).fill(401), 200]);
    expect(answers.slice(29, 31)).toEqual([401, 401]);
    expect(answers.slice(31)).toEqual(Array<number>(27).fill(429));
  });

  it("count failed authentications of an address against one limit", async () => {
    const bad = (server: DriftwatchServer) =>
      server.app.inject({ method: "GET", url: "/api/monitors", headers: { authorization: "Bearer dw_notarealtokennotarealtokennotarealtoken00ab" }, remoteAddress: "192.0.2.99" });
    // 30 failures in each process: each at half the limit of 60 alone, at the limit together
    for (let i = 0; i < 30; i++) {
      expect((await bad(one)).statusCode).toBe(401);
      expect((await bad(two)).statusCode).toBe(401);
    }
    expect((await bad(one)).statusCode).toBe(429);
    expect((await bad(two)).statusCode).toBe(429);
  });
});
