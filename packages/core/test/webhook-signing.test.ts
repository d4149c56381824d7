import { createHmac } from "node:crypto";
import { Webhook, WebhookVerificationError as TheirVerificationError } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import {
  activeWebhookSecrets,
  buildDiffDetectedEvent,
  createSignedDelivery,
  buildPendingDiffDetectedEvent,
  decodeWebhookSecret,
  generateWebhookSecret,
  isDriftwatchError,
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
  type DiffDetectedEvent,
} from "../src/index.js";

const diff = {
  id: "dif_01JABCDEFGHJKMNPQRSTVWXYZ0",
  monitorId: "mon_01JABCDEFGHJKMNPQRSTVWXYZ0",
  snapshotId: "snp_01JABCDEFGHJKMNPQRSTVWXYZ0",
  classification: "schema_change" as const,
  schemaChanges: 1,
  valueChanges: 1,
  changes: [
    { path: "$.price", category: "schema" as const, op: "replace" as const, severity: "critical" as const, detail: "type changed", before: 1, after: "1" },
    { path: "$.name", category: "value" as const, op: "replace" as const, severity: "info" as const, before: "a", after: "b" },
  ],
};

function envelope(deliveredAt = new Date()): DiffDetectedEvent {
  return buildDiffDetectedEvent(diff, { occurredAt: "2026-11-23T07:00:00.000Z", deliveredAt });
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function verificationReason(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(isDriftwatchError(error)).toBe(true);
    expect((error as WebhookVerificationError).code).toBe("webhook_verification_failed");
    return (error as WebhookVerificationError).reason;
  }
  throw new Error("expected verification to fail");
}

describe("generateWebhookSecret", () => {
  it("is whsec_ + base64 of 32 random bytes, different every time", () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(decodeWebhookSecret(a)).toHaveLength(32);
    expect(a).not.toBe(b);
  });

  it("refuses a secret that is not base64, or empty", () => {
    for (const bad of ["whsec_", "whsec_not base64!", "whsec_@@@@"]) {
      expect(() => decodeWebhookSecret(bad)).toThrowError(expect.objectContaining({ code: "invalid_input" }));
    }
  });
});

describe("signWebhook", () => {
  it("signs {id}.{timestamp}.{body} with HMAC-SHA256 of the decoded secret", () => {
    const secret = generateWebhookSecret();
    const body = JSON.stringify(envelope());
    const headers = signWebhook(body, { id: "evt_1", timestamp: 1_700_000_000, secrets: [secret] });
    const key = Buffer.from(secret.slice("whsec_".length), "base64");
    const mac = createHmac("sha256", key).update(`evt_1.1700000000.${body}`).digest("base64");
    expect(headers).toEqual({ "webhook-id": "evt_1", "webhook-timestamp": "1700000000", "webhook-signature": `v1,${mac}` });
  });

  it("takes a Date as timestamp (whole seconds) and signs bytes like the equal string", () => {
    const secret = generateWebhookSecret();
    const body = '{"ünïcode":"✓"}';
    const fromString = signWebhook(body, { id: "evt_2", timestamp: new Date(1_700_000_000_999), secrets: [secret] });
    const fromBytes = signWebhook(new TextEncoder().encode(body), { id: "evt_2", timestamp: 1_700_000_000, secrets: [secret] });
    expect(fromString).toEqual(fromBytes);
  });

  it("adds one signature per secret, space-separated (rotation)", () => {
    const headers = signWebhook("{}", { id: "evt_3", timestamp: 1, secrets: [generateWebhookSecret(), generateWebhookSecret()] });
    const parts = headers["webhook-signature"].split(" ");
    expect(parts).toHaveLength(2);
    for (const part of parts) expect(part).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(parts[0]).not.toBe(parts[1]);
  });

  it("refuses bad arguments with invalid_input", () => {
    const secret = generateWebhookSecret();
    const cases: (() => unknown)[] = [
      () => signWebhook("{}", { id: "", timestamp: 1, secrets: [secret] }),
      () => signWebhook("{}", { id: "evt_1\r\nx-injected: 1", timestamp: 1, secrets: [secret] }),
      () => signWebhook("{}", { id: "evt_1", timestamp: -1, secrets: [secret] }),
      () => signWebhook("{}", { id: "evt_1", timestamp: 1.5, secrets: [secret] }),
      () => signWebhook("{}", { id: "evt_1", timestamp: new Date(Number.NaN), secrets: [secret] }),
      () => signWebhook("{}", { id: "evt_1", timestamp: 1, secrets: [] }),
      () => signWebhook(42 as unknown as string, { id: "evt_1", timestamp: 1, secrets: [secret] }),
    ];
    for (const run of cases) expect(run).toThrowError(expect.objectContaining({ code: "invalid_input" }));
  });
});

describe("interop with the standardwebhooks package", () => {
  it("ours signs, theirs verifies and returns the same JSON", () => {
    const secret = generateWebhookSecret();
    const event = envelope();
    const body = JSON.stringify(event);
    const headers = signWebhook(body, { id: event.eventId, timestamp: new Date(), secrets: [secret] });
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(event);
  });

  it("theirs signs, ours verifies and returns the validated envelope", () => {
    const secret = generateWebhookSecret();
    const event = envelope();
    const body = JSON.stringify(event);
    const at = new Date();
    const signature = new Webhook(secret).sign(event.eventId, at, body);
    const headers = { "webhook-id": event.eventId, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": signature };
    expect(verifyWebhook(body, headers, secret)).toEqual(event);
  });

  it("a tampered body is refused by ours and by theirs", () => {
    const secret = generateWebhookSecret();
    const event = envelope();
    const body = JSON.stringify(event);
    const headers = signWebhook(body, { id: event.eventId, timestamp: new Date(), secrets: [secret] });
    const tampered = body.replace('"critical"', '"info"');
    expect(tampered).not.toBe(body);
    expect(verificationReason(() => verifyWebhook(tampered, headers, secret))).toBe("invalid_signature");
    expect(() => new Webhook(secret).verify(tampered, { ...headers })).toThrow(TheirVerificationError);
  });

  it("a wrong secret is refused by ours and by theirs, both directions", () => {
    const secret = generateWebhookSecret();
    const other = generateWebhookSecret();
    const event = envelope();
    const body = JSON.stringify(event);
    const ours = signWebhook(body, { id: event.eventId, timestamp: new Date(), secrets: [secret] });
    expect(verificationReason(() => verifyWebhook(body, ours, other))).toBe("invalid_signature");
    expect(() => new Webhook(other).verify(body, { ...ours })).toThrow(TheirVerificationError);
    const at = new Date();
    const theirs = {
      "webhook-id": event.eventId,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign(event.eventId, at, body),
    };
    expect(verificationReason(() => verifyWebhook(body, theirs, other))).toBe("invalid_signature");
  });

  it.each([
    ["too old", -301],
    ["too new", 301],
  ])("a timestamp %s (outside 300 s) is refused by ours and by theirs", (_label, offset) => {
    const secret = generateWebhookSecret();
    const event = envelope();
    const body = JSON.stringify(event);
    const headers = signWebhook(body, { id: event.eventId, timestamp: nowSeconds() + offset, secrets: [secret] });
    expect(verificationReason(() => verifyWebhook(body, headers, secret))).toBe("timestamp_out_of_tolerance");
    expect(() => new Webhook(secret).verify(body, { ...headers })).toThrow(TheirVerificationError);
  });

  it("a timestamp inside the tolerance verifies with both", () => {
    const secret = generateWebhookSecret();
    const event = envelope();
    const body = JSON.stringify(event);
    for (const offset of [-290, 290]) {
      const headers = signWebhook(body, { id: event.eventId, timestamp: nowSeconds() + offset, secrets: [secret] });
      expect(verifyWebhook(body, headers, secret)).toEqual(event);
      expect(new Webhook(secret).verify(body, { ...headers })).toEqual(event);
    }
  });

  it("rotation: headers signed with two secrets verify with either secret, ours and theirs", () => {
    const oldSecret = generateWebhookSecret();
    const newSecret = generateWebhookSecret();
    const event = envelope();
    const body = JSON.stringify(event);
    const headers = signWebhook(body, { id: event.eventId, timestamp: new Date(), secrets: [newSecret, oldSecret] });
    for (const secret of [oldSecret, newSecret]) {
      expect(verifyWebhook(body, headers, secret)).toEqual(event);
      expect(new Webhook(secret).verify(body, { ...headers })).toEqual(event);
    }
    expect(verificationReason(() => verifyWebhook(body, headers, generateWebhookSecret()))).toBe("invalid_signature");
  });

  it("createSignedDelivery produces a body and headers theirs verifies, for every active secret", () => {
    const current = generateWebhookSecret();
    const previous = generateWebhookSecret();
    const pending = buildPendingDiffDetectedEvent(diff, { occurredAt: new Date("2026-11-23T07:00:00Z") });
    const at = new Date();
    const secrets = activeWebhookSecrets(
      { secret: current, previousSecret: previous, previousSecretExpiresAt: new Date(at.getTime() + 3_600_000).toISOString() },
      at,
    );
    expect(secrets).toEqual([current, previous]);
    const { body, headers } = createSignedDelivery({ event: JSON.stringify(pending), deliveredAt: at, secrets });
    expect(headers["content-type"]).toBe("application/json");
    expect(headers["webhook-id"]).toBe(pending.eventId);
    expect(headers["webhook-timestamp"]).toBe(String(Math.floor(at.getTime() / 1000)));
    for (const secret of secrets) {
      const verified = new Webhook(secret).verify(body, headers as unknown as Record<string, string>) as DiffDetectedEvent;
      expect(verified.deliveredAt).toBe(at.toISOString());
      expect(verified.eventId).toBe(pending.eventId);
    }
  });
});

describe("verifyWebhook", () => {
  const secret = generateWebhookSecret();
  const event = envelope();
  const body = JSON.stringify(event);
  const signed = (): ReturnType<typeof signWebhook> => signWebhook(body, { id: event.eventId, timestamp: new Date(), secrets: [secret] });

  it("reads headers in any case, as arrays, or from a Headers instance", () => {
    const h = signed();
    const upper = { "Webhook-Id": h["webhook-id"], "WEBHOOK-TIMESTAMP": [h["webhook-timestamp"]], "webhook-Signature": h["webhook-signature"] };
    expect(verifyWebhook(body, upper, secret)).toEqual(event);
    expect(verifyWebhook(body, new Headers(h), secret)).toEqual(event);
    expect(verifyWebhook(Buffer.from(body), h, secret)).toEqual(event);
  });

  it("refuses when any header is missing", () => {
    const h = signed();
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"] as const) {
      const partial: Record<string, string> = { ...h };
      delete partial[name];
      expect(verificationReason(() => verifyWebhook(body, partial, secret))).toBe("missing_headers");
    }
  });

  it("refuses a timestamp that is not unix seconds", () => {
    const h = { ...signed(), "webhook-timestamp": "2026-11-23T07:00:00Z" };
    expect(verificationReason(() => verifyWebhook(body, h, secret))).toBe("invalid_timestamp");
  });

  it("honours toleranceSeconds and now, both directions", () => {
    const h = signWebhook(body, { id: event.eventId, timestamp: 1_000_000, secrets: [secret] });
    expect(verifyWebhook(body, h, secret, { now: 1_000_060_000, toleranceSeconds: 60 })).toEqual(event);
    expect(verifyWebhook(body, h, secret, { now: new Date(999_940_000), toleranceSeconds: 60 })).toEqual(event);
    expect(verificationReason(() => verifyWebhook(body, h, secret, { now: 1_000_061_000, toleranceSeconds: 60 }))).toBe("timestamp_out_of_tolerance");
    expect(verificationReason(() => verifyWebhook(body, h, secret, { now: 999_939_000, toleranceSeconds: 60 }))).toBe("timestamp_out_of_tolerance");
  });

  it("accepts when any of several signatures matches, ignores other versions", () => {
    const h = signed();
    const mixed = { ...h, "webhook-signature": `v1a,${"A".repeat(44)} v1,${Buffer.alloc(32).toString("base64")} ${h["webhook-signature"]}` };
    expect(verifyWebhook(body, mixed, secret)).toEqual(event);
    const none = { ...h, "webhook-signature": `v2,${h["webhook-signature"].slice(3)}` };
    expect(verificationReason(() => verifyWebhook(body, none, secret))).toBe("invalid_signature");
    // Base64 is compared as text: trailing garbage Node's lenient decoder would skip is refused.
    const padded = { ...h, "webhook-signature": `${h["webhook-signature"]}!!` };
    expect(verificationReason(() => verifyWebhook(body, padded, secret))).toBe("invalid_signature");
  });

  it("refuses a correctly signed body that is not JSON or not a valid envelope", () => {
    for (const bad of ["not json", "{}", JSON.stringify({ ...event, eventType: "diff.deleted" }), JSON.stringify({ ...event, data: { ...event.data, changes: [{ path: "$" }] } })]) {
      const h = signWebhook(bad, { id: "evt_x", timestamp: new Date(), secrets: [secret] });
      expect(verificationReason(() => verifyWebhook(bad, h, secret))).toBe("invalid_payload");
    }
  });
});
