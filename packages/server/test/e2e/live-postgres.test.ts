// Live events across processes on PostgreSQL: a `--role worker` process runs the checks and the
// deliveries, a `--role api` process serves the event stream, and LISTEN/NOTIFY carries the
// worker's events to the api process's browsers, also after its LISTEN connection was killed.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIVE_APPLICATION_NAME, liveChannel } from "../../src/live/postgres-relay.js";
import { openEventStream, type EventStream } from "../sse.js";
import {
  api,
  createPostgresDatabase,
  killAllChildren,
  newAdminToken,
  type ServerProcess,
  startCli,
  startReceiver,
  startTarget,
} from "./support.js";

const token = newAdminToken();
let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
let target: Awaited<ReturnType<typeof startTarget>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let apiProcess: ServerProcess;
let worker: ServerProcess;
let stream: EventStream | undefined;

beforeAll(async () => {
  database = await createPostgresDatabase("dw_live");
  target = await startTarget("application/json", JSON.stringify({ v: 1 }));
  receiver = await startReceiver();
  const env = { DRIFTWATCH_ADMIN_TOKEN: token, DRIFTWATCH_LOG_LEVEL: "warn" };
  const args = ["--database", database.url, "--allow-private-networks"];
  // One after the other: the first bootstraps the empty database.
  apiProcess = await startCli([...args, "--role", "api"], env);
  worker = await startCli([...args, "--role", "worker"], env);
});

afterAll(async () => {
  stream?.close();
  await apiProcess?.kill("SIGTERM");
  await worker?.kill("SIGTERM");
  killAllChildren();
  await target?.close();
  await receiver?.close();
  await database?.drop();
});

/** Runs one statement on the test database. */
async function onDatabase<T extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<pg.QueryResult<T>> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return await client.query<T>(sql, params);
  } finally {
    await client.end();
  }
}

/** Kills the relay connections of every process on the test database; resolves with how many. */
async function terminateLiveConnections(): Promise<number> {
  const result = await onDatabase("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = $2", [
    database.name,
    LIVE_APPLICATION_NAME,
  ]);
  return result.rowCount ?? 0;
}

describe("live events between processes (PostgreSQL)", () => {
  it("the api process streams the checks, diffs and deliveries of the worker, and survives its LISTEN connection dropping", async () => {
    const call = api(apiProcess.baseUrl, token);
    stream = await openEventStream(apiProcess.baseUrl, token);
    expect(stream.status).toBe(200);
    await stream.next((e) => e.event === "ready");

    const webhook = await call("POST", "/api/webhooks", { url: receiver.url, events: ["diff.detected"] });
    expect(webhook.status).toBe(201);
    receiver.setSecret(webhook.body.secret as string);
    const created = await call("POST", "/api/monitors", { type: "api", name: "live", url: target.url, intervalSeconds: 3600 });
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    // The worker's first check of the new monitor (the api process runs none).
    const first = await stream.next((e) => e.event === "check" && e.data.monitor.id === id);
    expect(first.data.diff).toBeNull();
    expect(first.data.monitor.lastCheckedAt).not.toBeNull();

    // A change: "check now" on api is run by the worker; its diff and its delivery reach the stream.
    target.set(JSON.stringify({ v: 2 }));
    const checked = await call("POST", `/api/monitors/${id}/check`);
    expect(checked.status).toBe(200);
    const diffId = checked.body.diff.id as string;
    const withDiff = await stream.next((e) => e.event === "check" && e.data.diff?.id === diffId);
    expect(withDiff.data.monitor.id).toBe(id);
    expect(withDiff.data.diff.changes.map((c: { path: string }) => c.path)).toEqual(["$.v"]);
    expect(withDiff.data.diff.snapshotId).toBe(checked.body.snapshot.id);
    const delivered = await stream.next((e) => e.event === "delivery" && e.data.delivery.state === "succeeded");
    expect(delivered.data.delivery.webhookId).toBe(webhook.body.id);
    expect(receiver.receipts().map((r) => r.diffId)).toContain(diffId);

    // Whatever else is sent on the channel (not JSON, not ours, ids that do not exist) is ignored.
    for (const payload of ["not json", JSON.stringify({ p: "other", n: [{ o: "org_nope", t: "monitor", m: "mon_nope" }] }), JSON.stringify({ x: 1 })]) {
      await onDatabase("SELECT pg_notify($1, $2)", [liveChannel(), payload]);
    }

    // Both processes' LISTEN/NOTIFY connections are killed: they reconnect, and the api process
    // tells its browsers to refetch (a new `ready` on the open stream), then streams again.
    expect(await terminateLiveConnections()).toBe(2);
    await stream.next((e) => e.event === "ready");
    target.set(JSON.stringify({ v: 3 }));
    const again = await call("POST", `/api/monitors/${id}/check`);
    expect(again.status).toBe(200);
    const againDiffId = again.body.diff.id as string;
    const afterDrop = await stream.next((e) => e.event === "check" && e.data.diff?.id === againDiffId);
    expect(afterDrop.data.diff.changes.map((c: { path: string; op: string }) => [c.path, c.op])).toEqual([["$.v", "replace"]]);
    expect((await fetch(`${apiProcess.baseUrl}/readyz`)).status).toBe(200);
    expect(apiProcess.child.exitCode).toBeNull();
    expect(worker.child.exitCode).toBeNull();
  });
});
