import { describe, expect, it } from "vitest";
import { createSecretBox, generateSecretKey, parseSecretKey, parseSecretKeys, sealedKeyId, secretKeyId } from "./secret-box.js";

const keyA = parseSecretKey(generateSecretKey());
const keyB = parseSecretKey(generateSecretKey());

describe("secret box", () => {
  it("seals and opens a value in its context, with a fresh nonce each time", () => {
    const box = createSecretBox([keyA]);
    const first = box.seal("xoxb-123-secret", "channel:c1");
    const second = box.seal("xoxb-123-secret", "channel:c1");
    expect(first).not.toBe(second);
    expect(first).not.toContain("xoxb");
    expect(box.isSealed(first)).toBe(true);
    expect(box.open(first, "channel:c1")).toBe("xoxb-123-secret");
    expect(box.open(box.seal("", "x"), "x")).toBe("");
    expect(box.open(box.seal("päss 🔑", "x"), "x")).toBe("päss 🔑");
  });

  it("refuses a value moved to another context or altered", () => {
    const box = createSecretBox([keyA]);
    const sealed = box.seal("token", "channel:c1");
    expect(() => box.open(sealed, "channel:c2")).toThrow(expect.objectContaining({ code: "secret_unreadable" }));
    const parts = sealed.split(".");
    const body = parts[4]!;
    parts[4] = (body[0] === "A" ? "B" : "A") + body.slice(1);
    expect(() => box.open(parts.join("."), "channel:c1")).toThrow(expect.objectContaining({ code: "secret_unreadable" }));
    expect(() => box.open("plain text", "channel:c1")).toThrow(expect.objectContaining({ code: "secret_unreadable" }));
  });

  it("opens values of an older key during a rotation and says which need resealing", () => {
    const old = createSecretBox([keyA]);
    const sealed = old.seal("token", "secret:o1:pw");
    const rotated = createSecretBox([keyB, keyA]);
    expect(rotated.keyId).toBe(secretKeyId(keyB));
    expect(rotated.open(sealed, "secret:o1:pw")).toBe("token");
    expect(rotated.needsReseal(sealed)).toBe(true);
    expect(rotated.needsReseal(rotated.seal("token", "secret:o1:pw"))).toBe(false);
    const withoutOld = createSecretBox([keyB]);
    expect(() => withoutOld.open(sealed, "secret:o1:pw")).toThrow(/not among the configured keys/);
  });

  it("tells a value sealed under a key it does not hold from a damaged one (a rolling rotation)", () => {
    const newer = createSecretBox([keyB, keyA]);
    const sealedNew = newer.seal("token", "channel:c1");
    const older = createSecretBox([keyA]);
    expect(sealedKeyId(sealedNew)).toBe(secretKeyId(keyB));
    expect(sealedKeyId("plain text")).toBeNull();
    expect(older.lacksKeyFor(sealedNew)).toBe(true);
    expect(newer.lacksKeyFor(sealedNew)).toBe(false);
    expect(newer.lacksKeyFor(older.seal("token", "channel:c1"))).toBe(false);
    // a damaged value under a held key, and text that is not sealed, are not a missing key
    const parts = older.seal("token", "channel:c1").split(".");
    parts[4] = (parts[4]![0] === "A" ? "B" : "A") + parts[4]!.slice(1);
    expect(older.lacksKeyFor(parts.join("."))).toBe(false);
    expect(older.lacksKeyFor("plain text")).toBe(false);
  });

  it("reads keys as base64, base64url or hex, and refuses anything else without echoing it", () => {
    const hex = keyA.toString("hex");
    expect(parseSecretKey(hex).equals(keyA)).toBe(true);
    expect(parseSecretKey(keyA.toString("base64url")).equals(keyA)).toBe(true);
    expect(parseSecretKeys(`${keyB.toString("base64")}, ${hex}`).map((k) => k.toString("hex"))).toEqual([keyB.toString("hex"), hex]);
    let message = "";
    try {
      parseSecretKey("hunter2-not-a-key");
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/32 bytes/);
    expect(message).not.toContain("hunter2");
    expect(() => parseSecretKey(Buffer.alloc(16).toString("base64"))).toThrow(/32 bytes/);
    expect(() => parseSecretKeys(" , ")).toThrow(/empty/);
  });
});
