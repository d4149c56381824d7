// Property tests over target content: whatever a monitored target answers (any bytes, any content
// type, hostile JSON and HTML, NULs and lone surrogates, odd statuses) and whatever rules a tenant
// sets, a check ends as a recorded snapshot, diff or check error: it never throws, and the store
// keeps every earlier snapshot.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type Fetcher, type MonitorRecord, type PolicyRulesInput, PolicyRulesSchema, type Store } from "@driftwatch/core";
import { createHttpFetcher } from "@driftwatch/fetcher-http";
import fc from "fast-check";
import { createPostgresStore } from "@driftwatch/store-postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCheckService, createMetrics } from "../../src/index.js";
import { createMonitor, manualClock, openTempStore } from "../fixtures.js";
import { createPostgresDatabase, postgresSkipReason } from "../../../../tooling/test-postgres.js";

interface Answer {
  status: number;
  contentType: string;
  body: Buffer;
}

let fetcher: Fetcher;
let server: http.Server;
let base = "";
let answer: Answer = { status: 200, contentType: "application/json", body: Buffer.from("{}") };
const clock = manualClock();

beforeAll(async () => {
  fetcher = createHttpFetcher({ allowPrivateNetworks: true });
  server = http.createServer((_req, res) => {
    res.writeHead(answer.status, { "content-type": answer.contentType, "content-length": answer.body.length });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});

afterAll(async () => {
  await fetcher?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

/** JSON documents with hostile strings and numbers among ordinary values. */
const hostileString = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom("\u0000", "\ud800", "\udfff\ud800", "a\u0000b", "\u2028", "<script>alert(1)</script>", "$..*", "__proto__", "constructor"),
);
const jsonDoc: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    hostileString,
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 5 }),
    fc.dictionary(hostileString, tie("value"), { maxKeys: 5 }),
    fc.array(fc.record({ id: fc.integer({ min: 0, max: 5 }), name: hostileString, value: fc.double() }), { maxLength: 6 }),
  ),
})).value;

const htmlDoc: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      hostileString.map((s) => `<p>${s}</p>`),
      hostileString.map((s) => `<div class="${s.replace(/"/g, "")}">${s}</div>`),
      fc.constantFrom("<div>", "</div>", "<table><tr><td>", "<!--", "-->", "<script>while(1){}</script>", "<style>p{}</style>", "<![CDATA[x]]>", "<p", "&#0;", "&#xD800;"),
    ),
    { maxLength: 30 },
  )
  .map((parts) => `<!doctype html><html><body>${parts.join("")}</body></html>`);

const answerArb: fc.Arbitrary<Answer> = fc.oneof(
  jsonDoc.map((v) => ({ status: 200, contentType: "application/json", body: Buffer.from(JSON.stringify(v) ?? "null") })),
  htmlDoc.map((html) => ({ status: 200, contentType: "text/html; charset=utf-8", body: Buffer.from(html) })),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ status: 200, contentType: "application/json", body: Buffer.from(bytes) })),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ status: 200, contentType: "text/html", body: Buffer.from(bytes) })),
  fc.constantFrom(
    { status: 200, contentType: "application/json", body: Buffer.from("[".repeat(5000) + "]".repeat(5000)) },
    { status: 200, contentType: "application/json", body: Buffer.from('{"a":1,"a":2}') },
    { status: 200, contentType: "application/json; charset=utf-16", body: Buffer.from('{"a":"\\ud800"}') },
    { status: 200, contentType: "application/json", body: Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]) },
    { status: 200, contentType: "text/html", body: Buffer.from("<div>".repeat(3000)) },
    { status: 204, contentType: "application/json", body: Buffer.alloc(0) },
    { status: 500, contentType: "text/plain", body: Buffer.from("boom") },
    { status: 302, contentType: "text/plain", body: Buffer.from("") },
  ),
);

const rulesArb: fc.Arbitrary<PolicyRulesInput | null> = fc.oneof(
  fc.constant(null),
  fc.record({
    rules: fc.array(
      fc.oneof(
        fc.record({ path: fc.constantFrom("$..id", "$.items[*]", "$['a.b']", "$..*", "$[0]", "$.x.y.z"), action: fc.constant("ignore" as const) }),
        fc.record({ path: fc.constantFrom("$..name", "$.value", "$[*]"), severity: fc.constantFrom("low" as const, "critical" as const) }),
        fc.record({ selector: fc.constantFrom("p", "div", ".x", "td"), action: fc.constant("ignore" as const) }),
      ),
      { maxLength: 4 },
    ),
  }),
);

/** Runs the property against one store; returns how often each outcome came up. */
async function checkAnyContent(store: Store, orgId: string): Promise<Record<string, number>> {
  const monitors: Record<"api" | "website", MonitorRecord> = {
    api: await createMonitor(store, orgId, { type: "api", url: `${base}/api` }),
    website: await createMonitor(store, orgId, { type: "website", url: `${base}/page` }),
  };
  const service = createCheckService({ store, httpFetcher: fetcher, now: clock.now, random: () => 0.5, metrics: createMetrics() });
  const seen: Record<string, number> = { changed: 0, new_snapshot: 0, unchanged: 0, failed: 0 };
  let counter = 0;
  let lastKind: "api" | "website" | null = null;
  await fc.assert(
    // One run in five checks the same monitor again with the same answer, so unchanged content
    // (the same-hash path) is part of every run, not left to chance.
    fc.asyncProperty(fc.constantFrom<"api" | "website">("api", "website"), answerArb, rulesArb, fc.nat({ max: 4 }), async (drawnKind, drawn, rules, again) => {
      const repeat = again === 0 && lastKind !== null;
      const kind = repeat ? lastKind! : drawnKind;
      const next = repeat ? answer : drawn;
      lastKind = kind;
      if (rules !== null) await store.updateSettings(orgId, monitors[kind].id, { policyRulesJson: PolicyRulesSchema.parse(rules), updatedAt: clock.now().toISOString() });
      const snapshotsBefore = (await store.listSnapshots(orgId, monitors[kind].id, { limit: 100 })).data.map((s) => s.id);
      answer = next;
      clock.advance(60_000);
      const current = (await store.getMonitor(orgId, monitors[kind].id))!;
      const outcome = await service.runCheck(current, { requestId: `req_fuzz${String(++counter)}` });
      seen[outcome.result] = (seen[outcome.result] ?? 0) + 1;
      expect(["changed", "new_snapshot", "unchanged", "failed"]).toContain(outcome.result);
      if (outcome.result === "failed") {
        // the codes go into the tally, so an unexpected run of failures says what failed
        const code = `failed:${String(outcome.error?.code)}`;
        seen[code] = (seen[code] ?? 0) + 1;
        expect(outcome.error, "a failed check carries its error").not.toBeNull();
        expect(typeof outcome.error?.code).toBe("string");
        const after = (await store.getMonitor(orgId, monitors[kind].id))!;
        expect(after.lastError, "a failed check is recorded on the monitor").not.toBeNull();
      }
      // nothing stored earlier was lost (retention keeps the last 100)
      const snapshotsAfter = new Set((await store.listSnapshots(orgId, monitors[kind].id, { limit: 100 })).data.map((s) => s.id));
      for (const id of snapshotsBefore.slice(0, 50)) expect(snapshotsAfter.has(id)).toBe(true);
      // a stored snapshot's body round-trips
      if (outcome.snapshot !== null && outcome.result !== "failed") {
        const stored = await store.getSnapshot(orgId, monitors[kind].id, outcome.snapshot.id);
        expect(stored?.contentHash).toBe(outcome.snapshot.contentHash);
      }
    }),
    { numRuns: Number(process.env.DRIFTWATCH_FUZZ_RUNS ?? 300), seed: process.env.DRIFTWATCH_FUZZ_SEED ? Number(process.env.DRIFTWATCH_FUZZ_SEED) : undefined },
  );
  return seen;
}

function expectEveryOutcome(seen: Record<string, number>): void {
  // the generators reach every branch of the pipeline, so the property tests all of them
  for (const kind of ["changed", "new_snapshot", "unchanged", "failed"]) expect(seen[kind], `${kind} outcomes in ${JSON.stringify(seen)}`).toBeGreaterThan(0);
}

const skip = await postgresSkipReason();

describe("target content (fast-check)", () => {
  it("on SQLite, every check of any content ends as a recorded outcome and never throws", async () => {
    const { store, orgId, cleanup } = await openTempStore(clock.now);
    try {
      expectEveryOutcome(await checkAnyContent(store, orgId));
    } finally {
      await cleanup();
    }
  });

  it.skipIf(skip !== null)(`on PostgreSQL, every check of any content ends as a recorded outcome and never throws${skip ? ` (skipped: ${skip})` : ""}`, async () => {
    const db = await createPostgresDatabase("dw_fuzz_target");
    const store = await createPostgresStore({ connectionString: db.url, now: clock.now });
    try {
      const org = await store.createOrganization({ slug: "fuzz" });
      expectEveryOutcome(await checkAnyContent(store, org.id));
    } finally {
      await store.close();
      await db.drop();
    }
  });
});
