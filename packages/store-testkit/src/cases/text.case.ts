import { describe, expect, it } from "vitest";
import { apiMonitor, changedCheck, seedOrganization } from "../fixtures.js";
import type { ContractContext } from "../harness.js";

/**
 * Strings a target or a tenant can produce that some databases cannot hold as they are: U+0000
 * (PostgreSQL text and jsonb), lone surrogates (UTF-8 has no form for them: SQLite would store
 * U+FFFD, PostgreSQL jsonb refuses them), and text that looks like the stores' own escaping.
 */
export const AWKWARD_STRINGS: readonly string[] = [
  "nul \u0000 inside",
  "\u0000",
  "lone high \ud800 surrogate",
  "lone low \udc00 surrogate",
  "reversed pair \udc00\ud800",
  "ends with a high surrogate \udbff",
  "a real pair \ud83d\ude00 stays",
  "\u0001dw:\"looks encoded\"",
  "\u0001dw:",
  "mixed \u0000\ud800\u0001dw:\"x\" ü €",
];

export function textCases(ctx: ContractContext): void {
  describe("text round trips (NUL, lone surrogates)", () => {
    it("a check's snapshot body, content type, etag, error text and diff values round-trip exactly", async () => {
      const store = await ctx.store();
      const { orgId, monitorId } = await seedOrganization(store);
      let previous: string | null = null;
      for (const [i, text] of AWKWARD_STRINGS.entries()) {
        const check = changedCheck(monitorId, { sequence: i, previousSnapshotId: previous, body: `body ${text} end` });
        check.snapshot!.contentType = `text/plain; x=${text}`;
        check.snapshot!.etag = text;
        check.snapshot!.lastModified = text;
        check.monitor.lastError = `error: ${text}`;
        check.diff!.changes = [{ path: `$.k${text}`, category: "value", op: "replace", severity: "medium", before: text, after: { [text]: [text] } }];
        const recorded = await store.recordCheck(orgId, check);
        previous = check.snapshot!.id;
        const snapshot = await store.getSnapshot(orgId, monitorId, check.snapshot!.id);
        expect(snapshot?.body).toBe(`body ${text} end`);
        expect(snapshot?.contentType).toBe(`text/plain; x=${text}`);
        expect(snapshot?.etag).toBe(text);
        expect(snapshot?.lastModified).toBe(text);
        const monitor = await store.getMonitor(orgId, monitorId);
        expect(monitor?.lastError).toBe(`error: ${text}`);
        const diff = await store.getDiff(orgId, monitorId, check.diff!.id);
        expect(diff?.changes).toEqual(check.diff!.changes);
        expect(recorded.diff?.changes).toEqual(check.diff!.changes);
      }
    });

    it("monitor fields, a webhook description and a delivery's error text round-trip exactly", async () => {
      const store = await ctx.store();
      const { orgId, monitorId, webhookIds } = await seedOrganization(store);
      for (const text of AWKWARD_STRINGS) {
        const created = await store.createMonitor(orgId, apiMonitor({ name: `n ${text}`, body: text, headers: { "x-h": text, [`x-${text}`]: "v" } }));
        const got = await store.getMonitor(orgId, created.id);
        expect(got).toEqual(created);
        expect(got?.name).toBe(`n ${text}`);
        expect(got?.body).toBe(text);
        expect(got?.headers).toEqual({ "x-h": text, [`x-${text}`]: "v" });
        const updated = await store.updateMonitor(orgId, created.id, { body: `${text}!`, lastError: text, updatedAt: created.updatedAt });
        expect(updated?.body).toBe(`${text}!`);
        expect((await store.getMonitor(orgId, created.id))?.lastError).toBe(text);
        const hook = await store.updateWebhook(orgId, webhookIds[0], { description: text, updatedAt: new Date().toISOString() });
        expect(hook?.description).toBe(text);
        expect((await store.getWebhook(orgId, webhookIds[0]))?.description).toBe(text);
      }
      // a delivery attempt's error text
      const result = await store.recordCheck(orgId, changedCheck(monitorId, { at: new Date(Date.now() - 1000).toISOString() }));
      const claimed = await store.claimDueDeliveries({ now: new Date().toISOString(), limit: 10, leaseMs: 60_000, owner: "w" });
      expect(claimed.length).toBe(result.deliveries.length);
      const text = AWKWARD_STRINGS.join("|");
      const after = await store.recordDeliveryAttempt(claimed[0]!.id, "w", { at: new Date().toISOString(), state: "pending", nextAttemptAt: new Date(Date.now() + 60_000).toISOString(), responseStatus: null, error: text, durationMs: 1 });
      expect(after?.lastError).toBe(text);
      expect((await store.getDelivery(orgId, claimed[0]!.webhookId, claimed[0]!.id))?.lastError).toBe(text);
      const attempts = await store.listDeliveryAttempts(orgId, claimed[0]!.id);
      expect(attempts.at(-1)?.error).toBe(text);
    });
  });
}
