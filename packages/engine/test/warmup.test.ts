// The first fetches of a learning monitor: the warm-up after its first content (extra fetches,
// spaced per host, recorded as learning), and a new learning history once its target changed
// (`learningSince`). Real SQLite file, real HTTP on loopback.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { Change, Fetcher, Store } from "@driftwatch/core";
import { createHttpFetcher } from "@driftwatch/fetcher-http";
import { createSqliteStore } from "@driftwatch/store-sqlite";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createCheckService, createNoiseLearner, createScheduler, type CheckOutcome, type Scheduler, type WarmupOptions } from "../src/index.js";
import { learningDiffNotifies } from "../src/pipeline/check-service.js";
import { createMonitor, manualClock } from "./fixtures.js";

interface Target {
  url: string;
  /** Wall-clock times of the requests served, per path. */
  requests: Map<string, number[]>;
  /** What the next answer is built from (`request_id` is set on every request). */
  doc: Record<string, unknown>;
  /** How long each answer waits (ms). */
  delayMs: number;
  /** Paths answered 503 from their n-th request on (1-based). */
  failFrom: Map<string, number>;
  /** How long each answer but the first of its path waits (ms): a warm-up's requests, not the first check's. */
  laterDelayMs: number;
  /** Requests in flight that are not the first of their path, now and at most. */
  laterInFlight: number;
  maxLaterInFlight: number;
  close(): Promise<void>;
}

async function startTarget(): Promise<Target> {
  const requests = new Map<string, number[]>();
  const target: Target = { url: "", requests, doc: {}, delayMs: 0, failFrom: new Map(), laterDelayMs: 0, laterInFlight: 0, maxLaterInFlight: 0, close: async () => undefined };
  const server = http.createServer((request, response) => {
    const list = requests.get(request.url ?? "") ?? [];
    list.push(Date.now());
    requests.set(request.url ?? "", list);
    if (list.length >= (target.failFrom.get(request.url ?? "") ?? Infinity)) {
      response.writeHead(503, { "content-type": "text/plain" }).end("busy");
      return;
    }
    const later = list.length > 1;
    if (later) {
      target.laterInFlight++;
      target.maxLaterInFlight = Math.max(target.maxLaterInFlight, target.laterInFlight);
      let ended = false;
      const end = (): void => {
        if (!ended) target.laterInFlight--;
        ended = true;
      };
      response.on("finish", end).on("close", end);
    }
    const body = JSON.stringify({ ...target.doc, request_id: randomUUID() });
    const answer = (): void => void response.writeHead(200, { "content-type": "application/json" }).end(body);
    const delay = target.delayMs + (later ? target.laterDelayMs : 0);
    if (delay > 0) setTimeout(answer, delay);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  target.url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  target.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return target;
}

describe("which learning diffs notify", () => {
  const li = (n: number) => `ol > li:nth-of-type(${String(n)})`;
  it("a removal or a type change always, a change rated medium or above from loudFrom on; a removed text the diff adds back elsewhere is a move", () => {
    // a ranked list reordered: every removed item is added back: nothing lost
    const reordered: Change[] = [
      { path: li(1), category: "value", op: "remove", severity: "info", before: "First story" },
      { path: li(2), category: "value", op: "add", severity: "info", after: "Second story" },
      { path: li(3), category: "value", op: "add", severity: "info", after: "First story" },
      { path: li(4), category: "value", op: "remove", severity: "info", before: "Second story" },
    ];
    expect(learningDiffNotifies(reordered, null)).toBe(false);
    expect(learningDiffNotifies(reordered, "medium")).toBe(false);
    // items that took each other's places in one list: nothing lost
    expect(
      learningDiffNotifies(
        [
          { path: li(1), category: "value", op: "replace", severity: "info", before: "First story", after: "Third story" },
          { path: li(3), category: "value", op: "remove", severity: "info", before: "Third story" },
          { path: li(2), category: "value", op: "replace", severity: "info", before: "Second story", after: "First story" },
          { path: li(4), category: "value", op: "add", severity: "info", after: "Second story" },
        ],
        "medium",
      ),
    ).toBe(false);
    // "Third" moved up, but "First" is gone from the list: a removal
    expect(
      learningDiffNotifies(
        [
          { path: li(1), category: "value", op: "replace", severity: "info", before: "First story", after: "Third story" },
          { path: li(3), category: "value", op: "remove", severity: "info", before: "Third story" },
        ],
        "medium",
      ),
    ).toBe(true);
    // one item removed for good (added back once, removed twice): a removal
    expect(learningDiffNotifies([...reordered, { path: li(5), category: "value", op: "remove", severity: "info", before: "First story" }], null)).toBe(true);
    expect(learningDiffNotifies([{ path: "$.a", category: "value", op: "remove", severity: "critical", before: 1 }], null)).toBe(true);
    expect(learningDiffNotifies([{ path: "$.a", category: "schema", op: "replace", severity: "critical", before: 1, after: "1" }], null)).toBe(true);
    // a plan removed, its name now the recommended one: another member, not a move
    expect(
      learningDiffNotifies(
        [
          { path: "$.plans[2]", category: "value", op: "remove", severity: "info", before: "team" },
          { path: "$.recommended", category: "value", op: "replace", severity: "info", before: "pro", after: "team" },
        ],
        "medium",
      ),
    ).toBe(true);
    // a page item moved from the "Included" list to the "Not included" one: removed from the first
    expect(
      learningDiffNotifies(
        [
          { path: "ul:nth-of-type(1) > li:nth-of-type(3)", category: "value", op: "remove", severity: "info", before: "Priority support" },
          { path: "ul:nth-of-type(2) > li:nth-of-type(1)", category: "value", op: "add", severity: "info", after: "Priority support" },
        ],
        null,
      ),
    ).toBe(true);
    // a renamed member: the old one removed (schema), whatever value the new one holds
    expect(
      learningDiffNotifies(
        [
          { path: "$.status", category: "schema", op: "remove", severity: "critical", before: "active" },
          { path: "$.state", category: "schema", op: "add", severity: "info", after: "active" },
        ],
        null,
      ),
    ).toBe(true);
    // list items reordered whose text is in a block inside each item: a move; the same item moved to another list is not
    const inItem = (list: number, n: number) => `ul:nth-of-type(${String(list)}) > li:nth-of-type(${String(n)}) > div:nth-of-type(1)`;
    expect(
      learningDiffNotifies(
        [
          { path: inItem(1, 1), category: "value", op: "replace", severity: "info", before: "a", after: "b" },
          { path: inItem(1, 2), category: "value", op: "remove", severity: "info", before: "b" },
          { path: inItem(1, 3), category: "value", op: "add", severity: "info", after: "a" },
        ],
        null,
      ),
    ).toBe(false);
    expect(
      learningDiffNotifies(
        [
          { path: inItem(1, 3), category: "value", op: "remove", severity: "info", before: "a" },
          { path: inItem(2, 1), category: "value", op: "add", severity: "info", after: "a" },
        ],
        null,
      ),
    ).toBe(true);
    // a JSON list reordered in place: a move
    expect(
      learningDiffNotifies(
        [
          { path: "$.items[0]", category: "value", op: "replace", severity: "info", before: "a", after: "b" },
          { path: "$.items[1]", category: "value", op: "remove", severity: "info", before: "b" },
          { path: "$.items[1]", category: "value", op: "add", severity: "info", after: "a" },
        ],
        null,
      ),
    ).toBe(false);
    // judged from two stored contents or more: held back only where the stored contents changed too
    const seats: Change[] = [{ path: "$.items[3].seats", category: "value", op: "replace", severity: "info", before: 1, after: 2 }];
    expect(learningDiffNotifies(seats, "medium", [])).toBe(true);
    expect(learningDiffNotifies(seats, "medium", [{ path: "$.items[*].seats", changed: 0 }])).toBe(true);
    expect(learningDiffNotifies(seats, "medium", [{ path: "$.items[*].seats", changed: 1 }])).toBe(false);
    expect(learningDiffNotifies(seats, "medium", [{ path: "$.items[3]", changed: 2 }])).toBe(false);
    // a fractional number rated info that moves for the first time beside a member that moved (a
    // reading on a clock slower than the fetches) is held back like noise seen moving; a whole
    // number is not (the seats above: counts people set), nor one rated above info, nor one that
    // changed type
    const volts: Change[] = [{ path: "$.battery.v_out", category: "value", op: "replace", severity: "info", before: 232.595433, after: 223.657745 }];
    const battery = [{ path: "$.battery.v_in", changed: 1 }];
    expect(learningDiffNotifies(volts, "medium", battery)).toBe(false);
    expect(learningDiffNotifies([{ path: "$.bidQty", category: "value", op: "replace", severity: "info", before: "256.83404457", after: "256.81502026" }], "medium", [{ path: "$.askQty", changed: 1 }])).toBe(false);
    expect(learningDiffNotifies([{ path: "$.hosts[2].load", category: "value", op: "replace", severity: "info", before: 2, after: 2.5 }], "medium", [{ path: "$.hosts[*].cpu", changed: 2 }])).toBe(false);
    expect(learningDiffNotifies([...volts, ...seats], "medium", battery)).toBe(true);
    expect(learningDiffNotifies([{ ...volts[0]!, severity: "low" }], "medium", battery)).toBe(true);
    expect(learningDiffNotifies([{ ...volts[0]!, after: "223.657745" }], "medium", battery)).toBe(true);
    expect(learningDiffNotifies([{ path: "$.battery.note", category: "value", op: "replace", severity: "info", before: "2.5 kg", after: "2.6 kg" }], "medium", battery)).toBe(true);
    // ...but where nothing beside it moved, it is an edit: a savings rate, an APR, a tariff, a
    // rating, a price under a name the learner does not know as one (rrp, usd, monthly)
    const aer: Change[] = [{ path: "$.products[0].aer", category: "value", op: "replace", severity: "info", before: 4.15, after: 4.4 }];
    expect(learningDiffNotifies(volts, "medium", [])).toBe(true);
    expect(learningDiffNotifies(aer, "medium", [])).toBe(true);
    expect(learningDiffNotifies(aer, "medium", [{ path: "$.updated_at", changed: 1 }, { path: "$.products[*].reviews[*].stars", changed: 1 }])).toBe(true);
    expect(learningDiffNotifies(aer, "medium", [{ path: "$.products[*].views", changed: 1 }])).toBe(false);
    expect(learningDiffNotifies([...seats, { path: "$.terms", category: "value", op: "replace", severity: "info", before: "a", after: "b" }], "medium", [{ path: "$.items[*].seats", changed: 1 }])).toBe(true);
    const block: Change[] = [{ path: "main > p:nth-of-type(2)", category: "value", op: "replace", severity: "info", before: "Terms v1", after: "Terms v2" }];
    expect(learningDiffNotifies(block, "medium", [{ selector: "main > p:nth-of-type(1)", changed: 1 }])).toBe(true);
    expect(learningDiffNotifies(block, "medium", [{ selector: "main > p:nth-of-type(2)", changed: 1 }])).toBe(false);
    const price: Change[] = [{ path: "$.price", category: "value", op: "replace", severity: "medium", before: 10, after: 12 }];
    expect(learningDiffNotifies(price, null)).toBe(false);
    expect(learningDiffNotifies(price, "medium")).toBe(true);
    expect(learningDiffNotifies([{ path: "$.n", category: "value", op: "replace", severity: "info", before: 1, after: 2 }], "medium")).toBe(false);
  });
});

describe("the first fetches of a learning monitor (SQLite file, loopback HTTP)", () => {
  let dir: string;
  let store: Store;
  let orgId: string;
  let fetcher: Fetcher;
  let a: Target;
  let b: Target;
  const clock = manualClock();
  /** The service's clock: a millisecond later on every read, so snapshots taken at once still have an order. */
  const ticking = (): Date => {
    clock.advance(1);
    return clock.now();
  };
  const webhookOf = new Map<string, string>();

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-warmup-"));
    store = await createSqliteStore({ filename: path.join(dir, "warmup.db"), now: clock.now });
    orgId = (await store.createOrganization({ slug: "warmup" })).id;
    fetcher = createHttpFetcher({ allowPrivateNetworks: true });
    a = await startTarget();
    b = await startTarget();
  });
  afterAll(async () => {
    await fetcher.close();
    await a.close();
    await b.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function service(warmup: WarmupOptions) {
    return createCheckService({ store, httpFetcher: fetcher, now: ticking, noise: createNoiseLearner(store), warmup });
  }
  async function learningMonitor(url: string, learning = true) {
    const monitor = await createMonitor(store, orgId, { url });
    await store.updateSettings(orgId, monitor.id, { autoApplySuggestions: learning, updatedAt: clock.now().toISOString() });
    const webhook = await store.createWebhook(orgId, { url: "https://hooks.example.com/warmup", description: null, events: ["diff.detected"], monitorIds: [monitor.id], minSeverity: "info", enabled: true, secret: "whsec_YQ==" });
    webhookOf.set(monitor.id, webhook.id);
    return monitor;
  }
  async function check(checks: ReturnType<typeof service>, monitorId: string) {
    clock.advance(60_000);
    return checks.runCheck((await store.getMonitor(orgId, monitorId))!, { requestId: `req_${String(clock.ms())}` });
  }

  it("after the first content, the warm-up fetches twice more as learning: the next check is judged on three contents", async () => {
    a.doc = { plan: "pro", seats: 5 };
    const monitor = await learningMonitor(`${a.url}/first`);
    const checks = service({ samples: 2, intervalMs: 40 });
    try {
      // the check resolves after its warm-up, and tells its caller the host is free only then
      let requestsWhenFreed = -1;
      clock.advance(60_000);
      const first = await checks.runCheck(monitor, { requestId: "req_first", onFetched: () => (requestsWhenFreed = a.requests.get("/first")?.length ?? 0) });
      expect(first.result).toBe("new_snapshot");
      expect(first.diff).toBeNull();
      expect(a.requests.get("/first")).toHaveLength(3);
      expect(requestsWhenFreed).toBe(3);
      const next = await check(checks, monitor.id);
      const times = a.requests.get("/first")!;
      expect(times).toHaveLength(4);
      for (let i = 1; i < 3; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(38);
      // the warm-up's two contents are snapshots: the first one's diff a learning one, notified to no
      // one; the second already learned from two contents (request_id silenced)
      const diffs = (await store.listDiffs(orgId, monitor.id, { limit: 10 })).data;
      expect(diffs).toHaveLength(1);
      expect(diffs[0]!.learning).toBe(true);
      expect(diffs[0]!.changes.map((c) => c.path)).toEqual(["$.request_id"]);
      expect(await store.listDeliveries(orgId, webhookOf.get(monitor.id)!, { limit: 10 })).toMatchObject({ data: [] });
      expect((await store.listSnapshots(orgId, monitor.id, { limit: 10 })).data).toHaveLength(4);
      // the fourth fetch is the first the user asked for after the first one: noise, learned from three contents
      expect(next.result).toBe("new_snapshot");
      expect(next.diff).toBeNull();
      expect(next.snapshot?.silenced?.changes.map((c) => c.path)).toEqual(["$.request_id"]);
    } finally {
      await checks.close();
    }
  });

  it("a removal found by the warm-up is a learning diff that still notifies", async () => {
    a.doc = { plan: "pro", seats: 5, region: "eu" };
    const monitor = await learningMonitor(`${a.url}/removal`);
    const checks = service({ samples: 1, intervalMs: 150 });
    try {
      // the field goes away after the first request, while the check warms up
      const running = check(checks, monitor.id);
      while (a.requests.get("/removal") === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
      a.doc = { plan: "pro", seats: 5 };
      expect((await running).diff).toBeNull();
      expect(a.requests.get("/removal")).toHaveLength(2);
      const diffs = (await store.listDiffs(orgId, monitor.id, { limit: 10 })).data;
      const removal = diffs.find((d) => d.changes.some((c) => c.path === "$.region"));
      expect(removal?.learning).toBe(true);
      expect(removal?.changes.find((c) => c.path === "$.region")).toMatchObject({ op: "remove", severity: "critical" });
      const deliveries = (await store.listDeliveries(orgId, webhookOf.get(monitor.id)!, { limit: 10 })).data;
      expect(deliveries.map((d) => d.diffId)).toEqual([removal!.id]);
    } finally {
      await checks.close();
    }
  });

  it("warm-ups of several monitors on one host send at most hostBurst requests per interval to it; a monitor that does not learn has none", async () => {
    a.doc = { plan: "team" };
    const first = await learningMonitor(`${a.url}/one`);
    const second = await learningMonitor(`${a.url}/two`);
    const quiet = await learningMonitor(`${a.url}/off`, false);
    // The requests are timed where the target receives them, some time after each slot (store reads,
    // the fetch): on a loaded machine that time varies by tens of ms and more. An interval of 1 s with
    // 250 ms of room still tells spaced slots from unspaced ones (two warm-ups at once: about 0 ms apart).
    const checks = service({ samples: 2, intervalMs: 1000, hostBurst: 1 });
    try {
      await Promise.all([check(checks, first.id), check(checks, second.id), check(checks, quiet.id)]);
      await Promise.all([check(checks, first.id), check(checks, second.id), check(checks, quiet.id)]);
      expect(a.requests.get("/off")).toHaveLength(2);
      const warm = [...a.requests.get("/one")!.slice(1, 3), ...a.requests.get("/two")!.slice(1, 3)].sort((x, y) => x - y);
      expect(warm).toHaveLength(4);
      for (let i = 1; i < warm.length; i++) expect(warm[i]! - warm[i - 1]!).toBeGreaterThanOrEqual(750);
    } finally {
      await checks.close();
    }
  });

  it("with a burst of 2 per interval, warm-up requests to one host are spaced by half the interval", async () => {
    a.doc = { plan: "burst" };
    const monitors = await Promise.all([1, 2, 3].map((n) => learningMonitor(`${a.url}/burst-${String(n)}`)));
    const checks = service({ samples: 2, intervalMs: 2000, hostBurst: 2 });
    try {
      await Promise.all(monitors.map((m) => check(checks, m.id)));
      const warm = [1, 2, 3].flatMap((n) => a.requests.get(`/burst-${String(n)}`)!.slice(1)).sort((x, y) => x - y);
      expect(warm).toHaveLength(6);
      // slots 1 s apart; a request may leave its slot late (store reads first), never early: on a
      // loaded machine by tens of ms and more (a 200 ms spacing with 80 ms of room saw 62 ms), so
      // 250 ms of room, which still tells these slots from unspaced requests (about 0 ms apart)
      for (let i = 1; i < warm.length; i++) expect(warm[i]! - warm[i - 1]!).toBeGreaterThanOrEqual(750);
    } finally {
      await checks.close();
    }
  });

  it("a warm-up fetch that fails ends the warm-up and records no failure: the check that was asked for succeeded", async () => {
    a.doc = { plan: "flaky" };
    a.failFrom.set("/flaky", 2);
    const monitor = await learningMonitor(`${a.url}/flaky`);
    const checks = service({ samples: 2, intervalMs: 10 });
    try {
      const outcome = await check(checks, monitor.id);
      expect(outcome.result).not.toBe("failed");
      // the check's fetch, then one warm-up fetch that failed: the warm-up stopped there
      expect(a.requests.get("/flaky")).toHaveLength(2);
      const stored = (await store.getMonitor(orgId, monitor.id))!;
      expect(stored).toMatchObject({ consecutiveFailures: 0, lastError: null, lastStatus: 200 });
      expect(stored.lastFailure ?? null).toBeNull();
    } finally {
      a.failFrom.delete("/flaky");
      await checks.close();
    }
  });

  it("a slow target shortens the warm-up: no warm-up fetch starts past maxMs", async () => {
    b.doc = { plan: "slow" };
    b.delayMs = 150;
    const monitor = await learningMonitor(`${b.url}/slow`);
    const checks = service({ samples: 4, intervalMs: 10, maxMs: 100 });
    try {
      const outcome = await check(checks, monitor.id);
      expect(outcome.result).not.toBe("failed");
      // the check's own fetch, then one warm-up fetch (it ends past maxMs): not five
      expect(b.requests.get("/slow")).toHaveLength(2);
    } finally {
      b.delayMs = 0;
      await checks.close();
    }
  });

  it("closing the service, or cancelling the check, stops a warm-up where it is: the check resolves with its first content", async () => {
    a.doc = { plan: "team" };
    for (const how of ["close", "cancel"] as const) {
      const monitor = await learningMonitor(`${a.url}/stopped-${how}`);
      // The next sample is 20 s away: resolving within 15 s (room for a loaded machine) proves the warm-up stopped.
      const checks = service({ samples: 3, intervalMs: 20_000 });
      const cancel = new AbortController();
      const started = Date.now();
      const running = checks.runCheck(monitor, { requestId: `req_${how}`, signal: cancel.signal });
      // Stopped once the first content is recorded and the warm-up waits for its next sample: a
      // cancel that lands while the first fetch is still in flight cancels the check itself (the
      // target having received the request does not mean the check has its answer).
      while ((await store.listSnapshots(orgId, monitor.id, { limit: 1 })).data.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      if (how === "close") await checks.close();
      else cancel.abort();
      const outcome = await running;
      expect(outcome.result).toBe("new_snapshot");
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(a.requests.get(`/stopped-${how}`)).toHaveLength(1);
      await checks.close();
    }
  });

  it("a young monitor (fewer stored contents than learningSamples): its diffs are learning ones, notified only for removals, type changes and changes rated medium or above", async () => {
    const checks = service({ samples: 0, intervalMs: 0, learningSamples: 3 });
    const deliveries = async (monitorId: string): Promise<number> => (await store.listDeliveries(orgId, webhookOf.get(monitorId)!, { limit: 10 })).data.length;
    try {
      // seats, stable across the stored contents, moves on the third content: an info change at a
      // place that never changed is no noise seen yet, so it notifies although the monitor is young
      a.doc = { plan: "pro", seats: 5 };
      const quiet = await learningMonitor(`${a.url}/young-info`);
      await check(checks, quiet.id);
      expect((await check(checks, quiet.id)).diff?.learning).toBe(true);
      expect(await deliveries(quiet.id)).toBe(0);
      a.doc = { plan: "pro", seats: 6 };
      const third = await check(checks, quiet.id);
      expect(third.diff?.learning).toBe(true);
      expect(third.diff?.changes.map((c) => c.path)).toEqual(["$.seats"]);
      expect(await deliveries(quiet.id)).toBe(1);
      // learned from three contents: no longer young, a change is judged and notified as usual
      a.doc = { plan: "pro", seats: 7 };
      const fourth = await check(checks, quiet.id);
      expect(fourth.diff?.learning).toBeUndefined();
      expect(fourth.diff?.changes.map((c) => c.path)).toEqual(["$.seats"]);
      expect(await deliveries(quiet.id)).toBe(2);

      // a stable enum-like value that flips on the third content: rated medium, so it notifies while young
      a.doc = { plan: "pro", seats: 5 };
      const flip = await learningMonitor(`${a.url}/young-medium`);
      await check(checks, flip.id);
      await check(checks, flip.id);
      a.doc = { plan: "team", seats: 5 };
      const flipped = await check(checks, flip.id);
      expect(flipped.diff?.learning).toBe(true);
      expect(flipped.diff?.changes.find((c) => c.path === "$.plan")?.severity).toBe("medium");
      expect(await deliveries(flip.id)).toBe(1);

      // a removal on the third content: never held back
      a.doc = { plan: "pro", seats: 5 };
      const gone = await learningMonitor(`${a.url}/young-removal`);
      await check(checks, gone.id);
      await check(checks, gone.id);
      a.doc = { plan: "pro" };
      const removed = await check(checks, gone.id);
      expect(removed.diff?.learning).toBe(true);
      expect(removed.diff?.changes.map((c) => `${c.op} ${c.path}`)).toContain("remove $.seats");
      expect(await deliveries(gone.id)).toBe(1);
    } finally {
      await checks.close();
    }
  });

  it("a young monitor is counted in stored contents: one whose documents exceed the learning byte budget is not young forever", async () => {
    // a budget smaller than one answer: nothing is learned from, yet three contents were stored
    const checks = createCheckService({ store, httpFetcher: fetcher, now: ticking, noise: createNoiseLearner(store, { maxBytes: 40 }), warmup: { samples: 0, intervalMs: 0, learningSamples: 3 } });
    try {
      a.doc = { plan: "pro", seats: 5 };
      const big = await learningMonitor(`${a.url}/over-budget`);
      await check(checks, big.id);
      expect((await check(checks, big.id)).diff?.learning).toBe(true);
      expect((await check(checks, big.id)).diff?.learning).toBe(true);
      const judged = await check(checks, big.id);
      expect(judged.diff?.changes.map((c) => c.path)).toEqual(["$.request_id"]);
      expect(judged.diff?.learning).toBeUndefined();
    } finally {
      await checks.close();
    }
  });

  it("a monitor grows up at the contents it can ever store: its retention and the learner's samples cap its learning samples, and MAX_LEARNING_SAMPLES caps a setting", async () => {
    const checks = createCheckService({ store, httpFetcher: fetcher, now: ticking, noise: createNoiseLearner(store, { maxSamples: 20 }), warmup: { samples: 0, intervalMs: 0, learningSamples: 3 } });
    try {
      a.doc = { plan: "pro", seats: 5 };
      a.doc = { k0: "x", k1: "x", k2: "x" };
      // retention 2: never three stored contents, so judged from its second stored one on
      const kept = await learningMonitor(`${a.url}/retention-two`);
      await store.updateSettings(orgId, kept.id, { snapshotRetention: 2, updatedAt: clock.now().toISOString() });
      await check(checks, kept.id);
      expect((await check(checks, kept.id)).diff?.learning).toBe(true);
      for (let n = 0; n < 3; n++) {
        // a member stable so far flips (one the learner cannot have learned)
        a.doc = { ...a.doc, [`k${String(n)}`]: "y" };
        const judged = await check(checks, kept.id);
        expect(judged.diff?.changes.map((c) => c.path)).toContain(`$.k${String(n)}`);
        expect(judged.diff?.learning).toBeUndefined();
      }

      // a setting of 1000 learning samples is MAX_LEARNING_SAMPLES (10) stored contents
      a.doc = { plan: "pro", seats: 5 };
      const many = await learningMonitor(`${a.url}/many-samples`);
      await store.updateSettings(orgId, many.id, { learning: { learningSamples: 1000 }, updatedAt: clock.now().toISOString() });
      for (let n = 1; n <= 9; n++) await check(checks, many.id);
      // the 10th content, judged from 9 stored ones: young
      a.doc = { plan: "pro", seats: 6 };
      const tenth = await check(checks, many.id);
      expect(tenth.diff?.changes.map((c) => c.path)).toContain("$.seats");
      expect(tenth.diff?.learning).toBe(true);
      // the 11th, from 10: grown up
      a.doc = { plan: "pro", seats: 7 };
      const eleventh = await check(checks, many.id);
      expect(eleventh.diff?.changes.map((c) => c.path)).toContain("$.seats");
      expect(eleventh.diff?.learning).toBeUndefined();
    } finally {
      await checks.close();
    }
  });

  it("a monitor's settings set its own warm-up fetches and learning samples (learning.warmupSamples, learning.learningSamples)", async () => {
    const checks = service({ samples: 2, intervalMs: 10, learningSamples: 3 });
    try {
      a.doc = { plan: "pro", seats: 5 };
      const own = await learningMonitor(`${a.url}/own-settings`);
      const set = await store.updateSettings(orgId, own.id, { learning: { warmupSamples: 0, learningSamples: 2 }, updatedAt: clock.now().toISOString() });
      expect(set?.learning).toEqual({ warmupSamples: 0, learningSamples: 2 });
      await check(checks, own.id);
      // no warm-up: one request
      expect(a.requests.get("/own-settings")).toHaveLength(1);
      expect((await check(checks, own.id)).diff?.learning).toBe(true);
      a.doc = { plan: "pro", seats: 6 };
      // learned from two contents: judged, not young
      const third = await check(checks, own.id);
      expect(third.diff?.learning).toBeUndefined();
      expect(third.diff?.changes.map((c) => c.path)).toEqual(["$.seats"]);

      // null: the service's defaults again (two warm-up fetches)
      const other = await learningMonitor(`${a.url}/service-settings`);
      await store.updateSettings(orgId, other.id, { learning: { warmupSamples: 1 }, updatedAt: clock.now().toISOString() });
      expect((await store.updateSettings(orgId, other.id, { learning: null, updatedAt: clock.now().toISOString() }))?.learning).toBeNull();
      await check(checks, other.id);
      expect(a.requests.get("/service-settings")).toHaveLength(3);
    } finally {
      await checks.close();
    }
  });

  it("a monitor whose target changed learns again from the new target's contents only (learningSince)", async () => {
    // on target A, `session` changes on every fetch: learned as volatile there
    a.doc = { plan: "pro", session: randomUUID() };
    const monitor = await learningMonitor(`${a.url}/moved`);
    const checks = service({ samples: 0, intervalMs: 0 });
    try {
      for (let i = 0; i < 4; i++) {
        a.doc = { plan: "pro", session: randomUUID() };
        await check(checks, monitor.id);
      }
      const before = await createNoiseLearner(store).profile((await store.getMonitor(orgId, monitor.id))!);
      expect(before.policy.volatile?.map((v) => v.path)).toContain("$.session");

      // the monitor now points at target B, where `session` is a field that means something
      clock.advance(1000);
      const moved = (await store.updateMonitor(orgId, monitor.id, { url: `${b.url}/moved`, learningSince: clock.now().toISOString() }))!;
      const reset = await createNoiseLearner(store).profile(moved);
      expect(reset.samples).toBe(0);
      expect(reset.policy.volatile ?? []).toEqual([]);
      b.doc = { plan: "pro", session: "s-1" };
      // the first content of B against A's: a learning diff (nothing learned about B yet)
      expect((await check(checks, monitor.id)).diff?.learning).toBe(true);
      // B's second content: one content learned from, still learning
      expect((await check(checks, monitor.id)).diff?.learning).toBe(true);
      // B's third: request_id is noise (it changed on every fetch of B), session changes: reported
      b.doc = { plan: "pro", session: "s-2" };
      const changed = await check(checks, monitor.id);
      expect(changed.diff?.learning).toBeUndefined();
      expect(changed.diff?.changes.map((c) => c.path)).toEqual(["$.session"]);
      const after = await createNoiseLearner(store).profile((await store.getMonitor(orgId, monitor.id))!);
      expect(after.samples).toBe(3);
      expect(after.policy.volatile?.map((v) => v.path)).not.toContain("$.session");
    } finally {
      await checks.close();
    }
  });

  it("after its target changed, a learning monitor warms up again", async () => {
    a.doc = { plan: "pro" };
    const monitor = await learningMonitor(`${a.url}/again`);
    const checks = service({ samples: 1, intervalMs: 20 });
    try {
      await check(checks, monitor.id);
      expect(a.requests.get("/again")).toHaveLength(2);
      await check(checks, monitor.id);
      expect(a.requests.get("/again")).toHaveLength(3);
      clock.advance(1000);
      await store.updateMonitor(orgId, monitor.id, { url: `${b.url}/again`, learningSince: clock.now().toISOString() });
      await check(checks, monitor.id);
      expect(b.requests.get("/again")).toHaveLength(2);
      await check(checks, monitor.id);
      expect(b.requests.get("/again")).toHaveLength(3);
      expect(a.requests.get("/again")).toHaveLength(3);
    } finally {
      await checks.close();
    }
  });
});

// The scheduler's checks detach their warm-up: the check resolves with the first content and frees
// its check slot and host slot; the warm-up goes on in the background, bounded.
describe("warm-ups of scheduled checks (SQLite file, loopback HTTP)", () => {
  let dir: string;
  let store: Store;
  let orgId: string;
  let fetcher: Fetcher;
  let target: Target;
  /** Real time, a millisecond later on every read: snapshots taken at once still have an order. */
  let last = 0;
  const now = (): Date => new Date((last = Math.max(Date.now(), last + 1)));
  const running: { scheduler: Scheduler; checks: ReturnType<typeof createCheckService> }[] = [];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-warmup-scheduled-"));
    store = await createSqliteStore({ filename: path.join(dir, "warmup.db"), now });
    orgId = (await store.createOrganization({ slug: "warmup-scheduled" })).id;
    fetcher = createHttpFetcher({ allowPrivateNetworks: true });
    target = await startTarget();
    target.doc = { plan: "pro", seats: 5 };
  });
  afterAll(async () => {
    for (const { scheduler, checks } of running) {
      await scheduler.stop({ graceMs: 0 });
      await checks.close();
    }
    await fetcher.close();
    await target.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A check service with this warm-up under a scheduler of one check slot (and one per host). */
  function setup(warmup: WarmupOptions, onCheck: (outcome: CheckOutcome) => void = () => undefined) {
    const checks = createCheckService({ store, httpFetcher: fetcher, now, noise: createNoiseLearner(store), warmup });
    const scheduler = createScheduler({ store, checks, now, owner: `warmup-${String(running.length)}`, concurrency: 1, perHostConcurrency: 1, pollIntervalMs: 20, onCheck });
    running.push({ scheduler, checks });
    return { checks, scheduler };
  }
  /** New learning monitors, due now (the monitors of earlier tests are checked and not due again within the test). */
  async function newMonitors(name: string, n: number) {
    const due = new Date(Date.now() - 1000).toISOString();
    const monitors = [];
    for (let i = 0; i < n; i++) {
      const monitor = await createMonitor(store, orgId, { url: `${target.url}/${name}-${String(i)}`, intervalSeconds: 3600, nextCheckAt: due });
      await store.updateSettings(orgId, monitor.id, { autoApplySuggestions: true, updatedAt: now().toISOString() });
      monitors.push(monitor);
    }
    return monitors;
  }
  const requestsOf = (name: string, i: number): number => target.requests.get(`/${name}-${String(i)}`)?.length ?? 0;
  const snapshotsOf = async (monitorId: string) => (await store.listSnapshots(orgId, monitorId, { limit: 10 })).data;

  it("one check slot runs every new monitor's first check without waiting for the warm-ups; the next scheduled check ends a warm-up", async () => {
    const onCheck = vi.fn();
    // warm-ups that would sleep 20 s before each fetch (within their 50 s deadline)
    const { checks, scheduler } = setup({ samples: 2, intervalMs: 20_000 }, onCheck);
    const monitors = await newMonitors("slot", 4);
    scheduler.start();
    // before the fix, the first check held the only slot for its warm-up: one check in 40 s
    await vi.waitFor(() => expect(onCheck).toHaveBeenCalledTimes(4), { timeout: 10_000, interval: 20 });
    for (let i = 0; i < 4; i++) expect(requestsOf("slot", i)).toBe(1);
    expect(onCheck.mock.calls.map(([outcome]) => (outcome as CheckOutcome).result)).toEqual(["new_snapshot", "new_snapshot", "new_snapshot", "new_snapshot"]);
    // the first monitor is due again: its scheduled check ends its warm-up (which never fetched)
    // and runs in the slot, compared with the first content
    await store.updateMonitor(orgId, monitors[0]!.id, { nextCheckAt: new Date(Date.now() - 1000).toISOString() });
    scheduler.wake();
    await vi.waitFor(() => expect(onCheck).toHaveBeenCalledTimes(5), { timeout: 10_000, interval: 20 });
    expect(requestsOf("slot", 0)).toBe(2);
    const second = onCheck.mock.calls[4]![0] as CheckOutcome;
    expect(second.monitor.id).toBe(monitors[0]!.id);
    expect(second.diff?.learning).toBe(true);
    // closing the service ends the other warm-ups where they sleep
    await scheduler.stop();
    await checks.close();
    for (let i = 1; i < 4; i++) expect(requestsOf("slot", i)).toBe(1);
    for (const monitor of monitors.slice(1)) expect(await snapshotsOf(monitor.id)).toHaveLength(1);
  });

  it("the warm-ups still happen in the background, and a check of the monitor asked for meanwhile runs after its warm-up", async () => {
    const onCheck = vi.fn();
    const { checks, scheduler } = setup({ samples: 2, intervalMs: 300 }, onCheck);
    const monitors = await newMonitors("background", 3);
    scheduler.start();
    await vi.waitFor(() => expect(requestsOf("background", 0)).toBe(1), { timeout: 10_000, interval: 5 });
    await vi.waitFor(() => expect(onCheck.mock.calls.length).toBeGreaterThan(0), { timeout: 10_000, interval: 5 });
    // "check now" of the first monitor (not detached), asked for while its warm-up sleeps: after the
    // warm-up, compared with the warm-up's last content
    const asked = await checks.runCheck((await store.getMonitor(orgId, monitors[0]!.id))!, { requestId: "req_asked" });
    expect(requestsOf("background", 0)).toBe(4);
    const snapshots = await snapshotsOf(monitors[0]!.id);
    expect(snapshots).toHaveLength(4);
    expect(asked.snapshot?.id).toBe(snapshots[0]!.id);
    // three contents learned from: request_id is noise, silenced against the warm-up's last snapshot
    expect(asked.diff).toBeNull();
    expect(asked.snapshot?.silenced?.previousSnapshotId).toBe(snapshots[1]!.id);
    // every monitor warmed up: three contents each, the first pair a learning diff notified to no one
    // ... and recorded: the target having answered the third request does not mean the warm-up has
    // stored its content yet, and closing the service below ends a warm-up where it is.
    await vi.waitFor(async () => {
      for (let i = 1; i < 3; i++) expect(requestsOf("background", i)).toBe(3);
      for (const monitor of monitors.slice(1)) expect(await snapshotsOf(monitor.id)).toHaveLength(3);
    }, { timeout: 20_000, interval: 20 });
    await scheduler.stop();
    await checks.close();
    for (const monitor of monitors) {
      const diffs = (await store.listDiffs(orgId, monitor.id, { limit: 10 })).data;
      expect(diffs.length).toBeGreaterThanOrEqual(1);
      expect(diffs.every((d) => d.learning === true)).toBe(true);
    }
    for (const monitor of monitors.slice(1)) expect(await snapshotsOf(monitor.id)).toHaveLength(3);
    expect(onCheck).toHaveBeenCalledTimes(3);
  });

  it("past the backlog a new monitor has no warm-up: it learns from its regular checks", async () => {
    const onCheck = vi.fn();
    // two warm-ups at most, each sleeping 20 s before its fetch
    const { checks, scheduler } = setup({ samples: 1, intervalMs: 20_000, backlog: 2 }, onCheck);
    try {
      const monitors = await newMonitors("backlog", 4);
      scheduler.start();
      await vi.waitFor(() => expect(onCheck).toHaveBeenCalledTimes(4), { timeout: 10_000, interval: 20 });
      await scheduler.stop();
      // a check asked for runs after the monitor's warm-up: two monitors answer at once (no warm-up),
      // two wait for theirs
      const answered = new Set<string>();
      const asked = monitors.map(async (m) => {
        await checks.runCheck((await store.getMonitor(orgId, m.id))!, { requestId: `req_${m.id}` });
        answered.add(m.id);
      });
      await vi.waitFor(() => expect(answered.size).toBe(2), { timeout: 10_000, interval: 20 });
      const waiting = monitors.filter((m) => !answered.has(m.id));
      expect(waiting).toHaveLength(2);
      for (const m of waiting) expect(target.requests.get(new URL(m.url).pathname)).toHaveLength(1);
      // ending the warm-ups lets them run; no warm-up fetched
      await checks.stopDetachedWarmups();
      await Promise.all(asked);
      for (let i = 0; i < 4; i++) expect(requestsOf("backlog", i)).toBe(2);
    } finally {
      await checks.close();
    }
  });

  it("warm-up fetches in flight stay within their concurrency", async () => {
    const onCheck = vi.fn();
    // one warm-up fetch at a time; warm-up answers take 200 ms, first contents come at once
    target.laterDelayMs = 200;
    target.maxLaterInFlight = 0;
    const { checks, scheduler } = setup({ samples: 1, intervalMs: 10, hostBurst: 100, concurrency: 1 }, onCheck);
    try {
      await newMonitors("concurrency", 4);
      scheduler.start();
      await vi.waitFor(() => {
        for (let i = 0; i < 4; i++) expect(requestsOf("concurrency", i)).toBe(2);
      }, { timeout: 10_000, interval: 20 });
      await scheduler.stop();
      await checks.close();
      expect(target.maxLaterInFlight).toBe(1);
    } finally {
      target.laterDelayMs = 0;
    }
  });

  it("a warm-up stops once another process checked the monitor: it never records beside that check", async () => {
    const onCheck = vi.fn();
    // The other process's check below must land while the warm-up sleeps: 5 s of sleep, not 0.5 s,
    // so that a loaded machine does not wake the warm-up first.
    const { checks, scheduler } = setup({ samples: 2, intervalMs: 5000 }, onCheck);
    // another process on the same store: a check service of its own (its own per-monitor order)
    const elsewhere = createCheckService({ store, httpFetcher: fetcher, now, noise: createNoiseLearner(store) });
    try {
      const [monitor] = await newMonitors("elsewhere", 1);
      scheduler.start();
      await vi.waitFor(() => expect(onCheck).toHaveBeenCalledTimes(1), { timeout: 10_000, interval: 5 });
      await scheduler.stop();
      // checked by the other process while the warm-up sleeps before its first fetch
      await elsewhere.runCheck((await store.getMonitor(orgId, monitor!.id))!, { requestId: "req_elsewhere" });
      expect(requestsOf("elsewhere", 0)).toBe(2);
      // a check here runs after the warm-up, which re-read the monitor and stopped without fetching
      await checks.runCheck((await store.getMonitor(orgId, monitor!.id))!, { requestId: "req_here" });
      expect(requestsOf("elsewhere", 0)).toBe(3);
      expect(await snapshotsOf(monitor!.id)).toHaveLength(3);
    } finally {
      await elsewhere.close();
      await checks.close();
    }
  });
});
