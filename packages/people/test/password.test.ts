import { describe, expect, it } from "vitest";
import { createLoginLimiter } from "../src/login-limiter.js";
import { DEFAULT_SCRYPT_PARAMS, hashPassword, MAX_QUEUED_HASHES, needsRehash, verifyPassword } from "../src/password.js";
import { PeopleError } from "../src/errors.js";
import { commonPasswords, PASSWORD_MIN_LENGTH, passwordProblem } from "../src/policy.js";
import { csrfTokenOf, hashSecret, isWellFormedSecret, newSecret } from "../src/secrets.js";

// A cheaper cost than the default keeps the suite light; the encoded hash names its parameters.
const fast = { logN: 12, r: 8, p: 1 };

describe("password hashing (scrypt)", () => {
  it("encodes the parameters and a random salt, and verifies only the right password", async () => {
    const a = await hashPassword("correct horse battery staple", fast);
    const b = await hashPassword("correct horse battery staple", fast);
    expect(a).toMatch(/^\$scrypt\$ln=12,r=8,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword("correct horse battery staple", a, fast)).toBe(true);
    expect(await verifyPassword("correct horse battery stapl", a, fast)).toBe(false);
    expect(await verifyPassword("", a, fast)).toBe(false);
  });

  it("verifies with the hash's own parameters and says when to re-hash", async () => {
    const old = await hashPassword("another long passphrase", { logN: 11, r: 8, p: 1 });
    expect(await verifyPassword("another long passphrase", old, fast)).toBe(true);
    expect(needsRehash(old, fast)).toBe(true);
    expect(needsRehash(await hashPassword("x", fast), fast)).toBe(false);
    expect(DEFAULT_SCRYPT_PARAMS).toEqual({ logN: 17, r: 8, p: 1 });
  });

  it("treats a missing, malformed or hostile hash as a mismatch (never a throw)", async () => {
    expect(await verifyPassword("whatever", null, fast)).toBe(false);
    expect(await verifyPassword("whatever", "plaintext", fast)).toBe(false);
    // A cost of 2^31 would run for hours: refused before any work.
    expect(await verifyPassword("whatever", "$scrypt$ln=31,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", fast)).toBe(false);
  });

  it("runs a bounded number of derivations at once and refuses a burst beyond the queue with 503", async () => {
    const burst = Array.from({ length: MAX_QUEUED_HASHES + 12 }, (_, i) => hashPassword(`burst password ${String(i)}`, fast).then(
      () => "ok",
      (error: unknown) => error,
    ));
    const results = await Promise.all(burst);
    const refused = results.filter((r) => r !== "ok");
    // two run and 64 wait: the rest are refused at once, with a retry hint, and nothing hangs
    expect(refused.length).toBe(10);
    for (const error of refused) {
      expect(error).toBeInstanceOf(PeopleError);
      expect((error as PeopleError).code).toBe("unavailable");
    }
    // the slots are all free again afterwards
    expect(await verifyPassword("after the burst", await hashPassword("after the burst", fast), fast)).toBe(true);
  });

  it("normalizes Unicode so the same typed password verifies in any normal form", async () => {
    const composed = "caf\u00e9 au lait s'il vous pla\u00eet";
    const decomposed = composed.normalize("NFD");
    expect(decomposed).not.toBe(composed);
    expect(await verifyPassword(decomposed, await hashPassword(composed, fast), fast)).toBe(true);
  });
});

describe("password policy", () => {
  it("ships a common-password list", async () => {
    const list = await commonPasswords();
    expect(list.size).toBeGreaterThan(10_000);
    expect(list.has("password")).toBe(true);
  });

  it("refuses short, common and email passwords; accepts a long uncommon one", async () => {
    expect(await passwordProblem("short")).toMatch(new RegExp(`at least ${PASSWORD_MIN_LENGTH}`));
    expect(await passwordProblem("x".repeat(257))).toMatch(/at most/);
    expect(await passwordProblem("1234567890")).toMatch(/common/);
    expect(await passwordProblem("Password123")).toMatch(/common/);
    expect(await passwordProblem("Ada@Example.com", "ada@example.com")).toMatch(/email/);
    expect(await passwordProblem("tangerine-orbit-47-velvet")).toBeNull();
  });

  it("counts the length after NFC normalisation (as the password is hashed)", async () => {
    // ten code points, five characters once composed
    expect(await passwordProblem("e\u0301".repeat(5))).toMatch(new RegExp(`at least ${PASSWORD_MIN_LENGTH}`));
    expect(await passwordProblem("e\u0301".repeat(10))).toBeNull();
  });
});

describe("secrets", () => {
  it("hands out 32-byte base64url secrets, stores sha256 hex, derives the CSRF token", () => {
    const secret = newSecret();
    expect(isWellFormedSecret(secret)).toBe(true);
    expect(isWellFormedSecret(secret + "x")).toBe(false);
    expect(isWellFormedSecret("../../etc")).toBe(false);
    expect(hashSecret(secret)).toMatch(/^[0-9a-f]{64}$/);
    expect(csrfTokenOf(secret)).not.toBe(hashSecret(secret));
    expect(csrfTokenOf(secret)).toBe(csrfTokenOf(secret));
    expect(csrfTokenOf(newSecret())).not.toBe(csrfTokenOf(secret));
  });
});

describe("sign-in limiter", () => {
  it("refuses an account after its limit of failures, with Retry-After, until the window ends", () => {
    const limiter = createLoginLimiter({ accountLimit: 3, addressLimit: 100, windowMs: 60_000 });
    const t = 1_000_000;
    for (let i = 0; i < 3; i++) expect(() => limiter.attempt("ada@example.com", "10.0.0.1", t)).not.toThrow();
    let refused: unknown;
    try {
      limiter.attempt("ada@example.com", "10.0.0.2", t + 1000);
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({ code: "rate_limited", headers: { "retry-after": "59" } });
    expect(() => limiter.attempt("bob@example.com", "10.0.0.1", t)).not.toThrow();
    expect(() => limiter.attempt("ada@example.com", "10.0.0.1", t + 60_000)).not.toThrow();
  });

  it("refuses an address after its limit across accounts; a success clears the account and gives back its own count only", () => {
    const limiter = createLoginLimiter({ accountLimit: 2, addressLimit: 3, windowMs: 60_000 });
    limiter.attempt("a@x.io", "10.0.0.9", 0);
    limiter.attempt("a@x.io", "10.0.0.9", 0);
    limiter.succeeded("a@x.io", "10.0.0.9", 0);
    limiter.attempt("b@x.io", "10.0.0.9", 0);
    limiter.attempt("c@x.io", "10.0.0.9", 0);
    expect(() => limiter.attempt("a@x.io", "10.0.0.8", 1)).not.toThrow();
    expect(() => limiter.attempt("d@x.io", "10.0.0.9", 1)).toThrow(/from this address/);
  });

  it("counts attempts still being checked: those let through at once never exceed the limit", () => {
    const limiter = createLoginLimiter({ accountLimit: 3, addressLimit: 100, windowMs: 60_000 });
    let through = 0;
    for (let i = 0; i < 10; i++) {
      try {
        limiter.attempt("ada@example.com", `10.0.1.${i}`, 0);
        through++;
      } catch {
        // refused: over the account's limit
      }
    }
    expect(through).toBe(3);
  });
});

describe("sign-in limits shared through the store", () => {
  it("count the attempts of every process on the database against one limit", async () => {
    const { createMemoryStore } = await import("@driftwatch/store-memory");
    const { createStoreLoginLimiter } = await import("../src/login-limiter.js");
    const store = await createMemoryStore();
    const options = { accountLimit: 3, addressLimit: 100, windowMs: 60_000 };
    // two API processes on one database: each its own limiter, one store
    const one = createStoreLoginLimiter(store, options)!;
    const two = createStoreLoginLimiter(store, options)!;
    const t = 1_800_000_000_000;
    await one.attempt("ada@example.com", "10.0.0.1", t);
    await two.attempt("ada@example.com", "10.0.0.2", t);
    await one.attempt("ada@example.com", "10.0.0.3", t);
    await expect(two.attempt("ada@example.com", "10.0.0.4", t + 1)).rejects.toMatchObject({ code: "rate_limited" });
    // a success in one process clears the account in both
    await one.succeeded("ada@example.com", "10.0.0.1", t + 2);
    await expect(two.attempt("ada@example.com", "10.0.0.4", t + 3)).resolves.toBeUndefined();
    await store.close();
  });
});
