/**
 * The end-to-end suite every database runs (imported by sqlite.test.ts and postgres.test.ts):
 * the built CLI as a child process, local JSON and HTML targets, a receiver verifying with the
 * `standardwebhooks` package; a change followed from fetch to verified delivery through the HTTP
 * API (api, website over HTTP, website rendered in Chromium); then SIGKILL mid-run and a restart
 * on the same database, after which every stored diff has exactly one delivery, delivered.
 */
import { processTree } from "@driftwatch/fetcher-browser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  eventually,
  killAllChildren,
  newAdminToken,
  type ServerProcess,
  sleep,
  startCli,
  startReceiver,
  startTarget,
} from "./support.js";

interface Database {
  url: string;
  drop(): Promise<void>;
}

type Call = ReturnType<typeof api>;

const page = (headline: string, extra = ""): string =>
  `<!doctype html><html><head><title>t</title></head><body><main id="main"><h1>${headline}</h1><p>Stable paragraph.</p>${extra}</main><footer>f</footer></body></html>`;

async function listAll<T>(call: Call, url: string): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | null = null;
  do {
    const sep = url.includes("?") ? "&" : "?";
    const res: { status: number; body: { data: T[]; nextCursor: string | null } } = await call("GET", `${url}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    all.push(...res.body.data);
    cursor = res.body.nextCursor;
  } while (cursor !== null);
  return all;
}

export function defineLifecycleSuite(name: string, createDatabase: () => Promise<Database>): void {
  describe(`end to end on ${name}`, () => {
    const token = newAdminToken();
    const env = { DRIFTWATCH_ADMIN_TOKEN: token, DRIFTWATCH_LEASE_MS: "3000", DRIFTWATCH_LOG_LEVEL: "warn" };
    let database: Database;
    let server: ServerProcess;
    let call: Call;
    let json: Awaited<ReturnType<typeof startTarget>>;
    let html: Awaited<ReturnType<typeof startTarget>>;
    let churn: Awaited<ReturnType<typeof startTarget>>;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    let webhookId: string;
    /** Chromium processes the server launched (killed in afterAll should any outlive it). */
    const browserPids = new Set<number>();
    const alive = (pid: number): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };

    beforeAll(async () => {
      database = await createDatabase();
      json = await startTarget("application/json", JSON.stringify({ price: 10, currency: "EUR", items: [{ id: 1, name: "a" }] }));
      html = await startTarget("text/html; charset=utf-8", page("Monday"));
      churn = await startTarget("application/json", JSON.stringify({ n: 0 }));
      receiver = await startReceiver();
      server = await startCli(["--database", database.url, "--allow-private-networks"], env);
      call = api(server.baseUrl, token);
    });

    afterAll(async () => {
      killAllChildren();
      for (const pid of browserPids) if (alive(pid)) process.kill(pid, "SIGKILL");
      await Promise.allSettled([json?.close(), html?.close(), churn?.close(), receiver?.close()]);
      await database?.drop();
    });

    it("follows a change from fetch to a verified delivery (api, website, website in Chromium)", async () => {
      const hook = await call("POST", "/api/webhooks", { url: receiver.url, description: "e2e", minSeverity: "info" });
      expect(hook.status, JSON.stringify(hook.body)).toBe(201);
      expect(hook.body.secret).toMatch(/^whsec_/);
      receiver.setSecret(hook.body.secret);
      webhookId = hook.body.id;

      const monitors = await Promise.all([
        call("POST", "/api/monitors", { type: "api", name: "prices", url: json.url, intervalSeconds: 3600 }),
        call("POST", "/api/monitors", { type: "website", name: "page", url: html.url, intervalSeconds: 3600, selector: "#main" }),
        call("POST", "/api/monitors", {
          type: "website",
          name: "page in chromium",
          url: html.url,
          intervalSeconds: 3600,
          selector: "#main",
          browserOptions: { waitStrategy: "load", timeoutMs: 20000 },
        }),
      ]);
      for (const m of monitors) expect(m.status, JSON.stringify(m.body)).toBe(201);
      const [apiMon, pageMon, browserMon] = monitors.map((m) => m.body) as [any, any, any];
      // every change is followed to its delivery: these monitors do not learn noise (a second fetch would be a learning diff)
      for (const m of [apiMon, pageMon, browserMon]) expect((await call("PATCH", `/api/monitors/${m.id}/settings`, { autoApplySuggestions: false })).status).toBe(200);
      expect(browserMon.browserOptionsJson).toMatchObject({ waitStrategy: "load" });

      // Baselines (the scheduler may take them first: both are fine).
      for (const m of [apiMon, pageMon, browserMon]) {
        const first = await call("POST", `/api/monitors/${m.id}/check`);
        expect(first.status, JSON.stringify(first.body)).toBe(200);
        expect(first.body.diff).toBeNull();
      }

      json.set(JSON.stringify({ price: "10", items: [{ id: 0, name: "z" }, { id: 1, name: "a" }] }));
      html.set(page("Tuesday", "<p>New paragraph.</p>"));
      for (const m of [apiMon, pageMon, browserMon]) expect((await call("POST", `/api/monitors/${m.id}/check`)).status).toBe(200);

      const diffs = new Map<string, any>();
      for (const m of [apiMon, pageMon, browserMon]) {
        const list = await listAll<any>(call, `/api/monitors/${m.id}/diffs`);
        expect(list, `diffs of ${m.name}`).toHaveLength(1);
        diffs.set(m.id, list[0]);
      }
      const apiDiff = diffs.get(apiMon.id);
      expect(apiDiff).toMatchObject({ classification: "schema_change", topSeverity: "critical", schemaChanges: 2 });
      expect(apiDiff.changes.map((c: any) => c.path).sort()).toEqual(["$.currency", "$.items[0]", "$.price"]);
      expect(diffs.get(pageMon.id)).toMatchObject({ classification: "content_change", browserRender: false, selector: "#main" });
      expect(diffs.get(browserMon.id)).toMatchObject({ classification: "content_change", browserRender: true, waitStrategy: "load" });

      // The worker delivers on its own; running it by hand as well must not double anything.
      const run = await call("POST", "/api/webhooks/worker/run", { force: true });
      expect(run.status, JSON.stringify(run.body)).toBe(200);
      const events = await eventually(
        async () => {
          const unique = receiver.unique();
          return unique.size >= 3 ? unique : undefined;
        },
        30_000,
        "three verified deliveries",
      );
      expect(receiver.rejected()).toEqual([]);
      expect(new Set([...events.values()].map((e) => e.diffId))).toEqual(new Set([...diffs.values()].map((d) => d.id)));
      for (const event of events.values()) {
        const diff = await call("GET", `/api/monitors/${event.monitorId}/diffs/${event.diffId}`);
        expect(diff.status).toBe(200);
        expect(diff.body.snapshotId).toBe(event.snapshotId);
        expect(event.data.classification).toBe(diff.body.classification);
        expect(event.data.changes.length).toBe(diff.body.changes.length);
      }
      const log = await eventually(
        async () => {
          const all = await listAll<any>(call, `/api/webhooks/${webhookId}/deliveries`);
          return all.length === 3 && all.every((d) => d.state === "succeeded") ? all : undefined;
        },
        20_000,
        "three succeeded deliveries in the log",
      );
      expect(new Set(log.map((d) => d.eventId))).toEqual(new Set(events.keys()));
    });

    it("after SIGKILL mid-run and a restart, every stored diff has exactly one delivery, delivered", async () => {
      // A target that answers differently every time: every check is a diff.
      let n = 0;
      const monitors: string[] = [];
      for (let i = 0; i < 4; i++) {
        const m = await call("POST", "/api/monitors", { type: "api", name: `churn ${i}`, url: churn.url, intervalSeconds: 10 });
        expect(m.status).toBe(201);
        // every answer is a diff only for a monitor that does not learn noise (n and at change on every fetch)
        expect((await call("PATCH", `/api/monitors/${m.body.id}/settings`, { autoApplySuggestions: false })).status).toBe(200);
        monitors.push(m.body.id);
      }
      const acknowledged = new Set<string>();
      let stop = false;
      const loops = monitors.map(async (id) => {
        while (!stop) {
          churn.set(JSON.stringify({ n: ++n, at: Date.now() }));
          try {
            const res = await call("POST", `/api/monitors/${id}/check`);
            if (res.status === 200 && res.body.diff !== null) acknowledged.add(res.body.diff.id);
          } catch {
            return; // the server is gone
          }
        }
      });
      // The receiver holds every delivery open, so the kill lands while deliveries are in flight.
      receiver.hold(true);
      await eventually(
        async () => (acknowledged.size >= 12 && receiver.held().size >= 1 ? true : undefined),
        30_000,
        "a dozen acknowledged diffs and a delivery in flight",
      );
      // The browser render of the first test launched Chromium as a child of the server.
      for (const p of processTree(server.child.pid!)) if (/chrom/i.test(p.cmdline)) browserPids.add(p.pid);
      expect(browserPids.size, "Chromium processes of the server").toBeGreaterThan(0);
      const killed = await server.kill("SIGKILL");
      stop = true;
      await Promise.all(loops);
      expect(killed.signal).toBe("SIGKILL");
      // Chromium notices its parent is gone (the pipe closes) and exits: no orphans.
      await eventually(async () => ([...browserPids].some(alive) ? undefined : true), 60_000, "Chromium to exit after the server was killed");

      receiver.hold(false);
      server = await startCli(["--database", database.url, "--allow-private-networks"], env);
      call = api(server.baseUrl, token);

      // The target's last body may not have been checked yet: pause the churn monitors so the
      // restarted scheduler stops adding diffs, then wait until the outbox has drained.
      for (const id of monitors) expect((await call("PATCH", `/api/monitors/${id}`, { state: "paused" })).status).toBe(200);
      let diffs: any[] = [];
      const log = await eventually(
        async () => {
          await call("POST", "/api/webhooks/worker/run", { force: true });
          const all = await listAll<any>(call, `/api/webhooks/${webhookId}/deliveries`);
          diffs = [];
          for (const id of monitors) diffs.push(...(await listAll<any>(call, `/api/monitors/${id}/diffs`)));
          // Deliveries leased by the killed process become due again when their lease expires.
          return all.every((d) => d.state === "succeeded") && all.length === 3 + diffs.length ? all : undefined;
        },
        40_000,
        "every delivery succeeded after the restart, one per diff",
      );
      const diffIds = new Set(diffs.map((d) => d.id));
      for (const id of acknowledged) expect(diffIds.has(id), `acknowledged diff ${id} was lost`).toBe(true);
      // 3 from the first test, one per churn diff: none lost, none doubled in the store.
      expect(log).toHaveLength(3 + diffs.length);
      expect(new Set(log.map((d) => d.eventId)).size).toBe(log.length);

      const received = receiver.unique();
      // The deliveries the killed process had in flight were delivered by the restarted one.
      for (const eventId of receiver.held()) expect(received.has(eventId), `in-flight ${eventId} was never delivered`).toBe(true);
      expect(new Set(log.map((d) => d.eventId))).toEqual(new Set(received.keys()));
      const byDiff = new Map<string, string[]>();
      for (const event of received.values()) byDiff.set(event.diffId, [...(byDiff.get(event.diffId) ?? []), event.eventId]);
      for (const id of diffIds) expect(byDiff.get(id), `deliveries of ${id}`).toHaveLength(1);
      expect(receiver.rejected()).toEqual([]);
      await sleep(0);
    });
  });
}
