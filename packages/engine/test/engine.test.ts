// createEngine as an embedder uses it: a real store, a local target and receiver, the scheduler and
// the delivery worker running, secret rotation, bootstrap, and a graceful stop.
import { verifyWebhook, type Store } from "@driftwatch/core";
import { createMemoryStore } from "@driftwatch/store-memory";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createEngine, SECRET_ROTATION_GRACE_MS, type Engine, type EngineLogger, type EngineOptions } from "../src/index.js";
import { createMonitor, createWebhook, openTempStore, recordDiff, startGatedTarget, startReceiver, startTarget, useCheckSetup } from "./fixtures.js";

const WAIT = { timeout: 15_000, interval: 25 };
/** Due a moment ago (monitors overdue by more than 10 s at start are spread over a minute instead). */
const justDue = (): string => new Date(Date.now() - 1000).toISOString();

describe("createEngine", () => {
  const setup = useCheckSetup();
  const engines: Engine[] = [];
  const logged: string[] = [];
  const logger: EngineLogger = {
    error: (_fields, message) => logged.push(message),
    warn: (_fields, message) => logged.push(message),
    info: () => undefined,
  };

  afterEach(async () => {
    for (const engine of engines.splice(0)) await engine.close();
  });
  function engineOn(options: Partial<EngineOptions> = {}): Engine {
    const engine = createEngine({ store: setup.store, fetchers: { http: setup.fetcher }, logger, schedulerPollMs: 20, deliveryPollMs: 20, ...options });
    engines.push(engine);
    return engine;
  }

  it("checks a due monitor on its schedule, records the diff a change makes, and delivers it signed", async () => {
    setup.target.setJson({ plan: "free", seats: 1 });
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/scheduled`, nextCheckAt: justDue() });
    const hook = await createWebhook(setup.store, setup.orgId, { url: `${setup.receiver.url}/scheduled`, monitorIds: [monitor.id] });
    const engine = engineOn();
    engine.start();
    expect(engine.running).toBe(true);
    // the scheduler claims the due monitor and records its first snapshot
    await vi.waitFor(async () => expect((await setup.store.getMonitor(setup.orgId, monitor.id))?.lastCheckedAt).not.toBeNull(), WAIT);
    expect(await setup.store.getLatestSnapshot(setup.orgId, monitor.id)).not.toBeNull();

    setup.target.setJson({ plan: "pro", seats: 1 });
    const result = await engine.checkNow(setup.orgId, monitor.id);
    expect(result?.diff?.changes.map((c) => c.path)).toEqual(["$.plan"]);
    // the worker, woken by the diff, delivers it
    await vi.waitFor(() => expect(setup.receiver.received.filter((r) => r.path === "/scheduled")).toHaveLength(1), WAIT);
    const [delivered] = setup.receiver.received.filter((r) => r.path === "/scheduled");
    const event = verifyWebhook(delivered!.body, delivered!.headers, hook.secret);
    expect(event).toMatchObject({ eventType: "diff.detected", monitorId: monitor.id, diffId: result?.diff?.id });

    await engine.stop();
    expect(engine.running).toBe(false);
    expect(logged).toEqual([]);
  });

  it("answers null for a monitor of another organization and throws a failed check after recording it", async () => {
    const engine = engineOn();
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/failing` });
    expect(await engine.checkNow("org_00000000000000000000000000", monitor.id)).toBeNull();
    setup.target.setStatus(500);
    try {
      await expect(engine.checkNow(setup.orgId, monitor.id)).rejects.toMatchObject({ code: "bad_status" });
    } finally {
      setup.target.setStatus(200);
    }
    expect(await setup.store.getMonitor(setup.orgId, monitor.id)).toMatchObject({ consecutiveFailures: 1, lastStatus: 500 });
  });

  it("stop() lets an in-flight check finish and records it", async () => {
    const gated = await startGatedTarget({ v: 1 });
    try {
      const monitor = await createMonitor(setup.store, setup.orgId, { url: `${gated.url}/inflight`, nextCheckAt: justDue() });
      const engine = engineOn();
      engine.start();
      await vi.waitFor(() => expect(gated.parked).toBe(1), WAIT);
      let stopped = false;
      const stopping = engine.stop().then(() => (stopped = true));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(stopped).toBe(false);
      gated.releaseAll(true);
      await stopping;
      const after = await setup.store.getMonitor(setup.orgId, monitor.id);
      expect(after?.lastCheckedAt).not.toBeNull();
      expect(after?.lastStatus).toBe(200);
    } finally {
      gated.releaseAll(true);
      await gated.close();
    }
  });

  it("stop({ graceMs }) cancels a check that runs past it: nothing is recorded and the monitor stays due", async () => {
    const gated = await startGatedTarget({ v: 1 });
    try {
      const due = justDue();
      const monitor = await createMonitor(setup.store, setup.orgId, { url: `${gated.url}/cancelled`, nextCheckAt: due });
      const engine = engineOn();
      engine.start();
      await vi.waitFor(() => expect(gated.parked).toBe(1), WAIT);
      await engine.stop({ graceMs: 50 });
      const after = await setup.store.getMonitor(setup.orgId, monitor.id);
      expect(after?.lastCheckedAt).toBeNull();
      expect(Date.parse(after!.nextCheckAt!)).toBe(Date.parse(due));
      expect(await setup.store.getLatestSnapshot(setup.orgId, monitor.id)).toBeNull();
      // released: another engine claims it at once
      const claimed = await setup.store.claimDueMonitors({ now: new Date().toISOString(), limit: 10, leaseMs: 1000, owner: "next-process" });
      expect(claimed.map((m) => m.id)).toContain(monitor.id);
    } finally {
      gated.releaseAll(true);
      await gated.close();
    }
  });

  it("rotates a webhook secret: deliveries carry signatures by the new and the previous secret", async () => {
    let now = Date.parse("2026-03-01T00:00:00.000Z");
    const engine = engineOn({ clock: () => new Date(now) });
    const monitor = await createMonitor(setup.store, setup.orgId, { url: `${setup.target.url}/rotated` });
    const hook = await createWebhook(setup.store, setup.orgId, { url: `${setup.receiver.url}/rotated`, monitorIds: [monitor.id] });
    expect(await engine.rotateWebhookSecret(setup.orgId, "wh_00000000000000000000000000")).toBeNull();
    const rotated = await engine.rotateWebhookSecret(setup.orgId, hook.id);
    expect(rotated?.secret).toMatch(/^whsec_/);
    expect(rotated?.secret).not.toBe(hook.secret);
    expect(rotated?.webhook).toMatchObject({ secret: rotated?.secret, previousSecret: hook.secret });
    expect(Date.parse(rotated!.webhook.previousSecretExpiresAt!)).toBe(now + SECRET_ROTATION_GRACE_MS);

    await recordDiff(setup.store, setup.orgId, monitor.id, new Date(now));
    now += 1000;
    expect(await engine.runWorker(setup.orgId, { webhookId: hook.id, force: true })).toMatchObject({ attempted: 1, succeeded: 1 });
    const [delivered] = setup.receiver.received.filter((r) => r.path === "/rotated");
    expect(delivered!.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    // a receiver on either secret accepts it
    expect(verifyWebhook(delivered!.body, delivered!.headers, hook.secret, { now: new Date(now) })).toMatchObject({ monitorId: monitor.id });
    expect(verifyWebhook(delivered!.body, delivered!.headers, rotated!.secret, { now: new Date(now) })).toMatchObject({ monitorId: monitor.id });
  });

  it("bootstraps an empty store once: organization default and an admin token with every scope", async () => {
    const memory = await createMemoryStore();
    try {
      const engine = engineOn({ store: memory });
      const first = await engine.bootstrap();
      expect(first).toMatchObject({ created: true });
      expect(first.generatedToken).toMatch(/^dw_/);
      const tokens = await memory.listTokens(first.orgId!, { limit: 10 });
      expect(tokens.data).toHaveLength(1);
      expect(tokens.data[0]!.scopes).toEqual(["monitors:read", "monitors:write", "webhooks:read", "webhooks:write", "admin"]);
      expect(await engine.bootstrap()).toEqual({ created: false, orgId: null, generatedToken: null });
    } finally {
      for (const engine of engines.splice(0)) await engine.close();
      await memory.close();
    }
  });

  it("refuses to start after close()", async () => {
    const engine = engineOn();
    await engine.close();
    expect(() => engine.start()).toThrow(/closed/);
  });
});
