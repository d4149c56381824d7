// Live events across processes on PostgreSQL: a `--role worker` process runs the checks and the
// deliveries, a `--role api` process serves the event stream, and LISTEN/NOTIFY carries the
// worker's events to the api process's browsers, also after its LISTEN connection was killed.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIVE_APPLICATION_NAME, liveChannel } from "../../src/live/postgres-relay.js";
import { changeAndStreamDiff, createWatchedMonitor, type LiveRoles, startLiveRoles } from "./live.case.js";
import { createPostgresDatabase, startReceiver } from "./support.js";

let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let roles: LiveRoles | undefined;

beforeAll(async () => {
  database = await createPostgresDatabase("dw_live");
  receiver = await startReceiver();
  roles = await startLiveRoles(database.url);
});

afterAll(async () => {
  await roles?.close();
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
    const { stream, call, apiProcess, worker } = roles!;
    const webhook = await call("POST", "/api/webhooks", { url: receiver.url, events: ["diff.detected"] });
    expect(webhook.status).toBe(201);
    receiver.setSecret(webhook.body.secret as string);

    // The worker's first check of a new monitor (the api process runs none), then a change:
    // "check now" on api is run by the worker; its diff and its delivery reach the stream.
    const id = await createWatchedMonitor(roles!);
    const { diffId } = await changeAndStreamDiff(roles!, id, 2);
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
    await changeAndStreamDiff(roles!, id, 3);
    expect((await fetch(`${apiProcess.baseUrl}/readyz`)).status).toBe(200);
    expect(apiProcess.child.exitCode).toBeNull();
    expect(worker.child.exitCode).toBeNull();
  });
});

it("the worker's /metrics counts the job queue's jobs, by queue and state", async () => {
  const scrape = async (): Promise<(queue: string, state: string) => number> => {
    const text = await (await fetch(`${roles!.worker.baseUrl}/metrics`)).text();
    return (queue, state) => Number(new RegExp(`driftwatch_queue_jobs\\{queue="${queue}",state="${state}"\\} (\\d+)`).exec(text)?.[1] ?? NaN);
  };
  const before = await scrape();
  // A monitor checked once waits for its next check, an hour later: one more scheduled job.
  await createWatchedMonitor(roles!);
  const count = await scrape();
  expect(count("checks", "scheduled")).toBeGreaterThanOrEqual(before("checks", "scheduled") + 1);
  for (const state of ["due", "running"]) expect(count("checks", state)).toBeGreaterThanOrEqual(0);
  for (const state of ["due", "scheduled", "running"]) expect(count("deliveries", state)).toBeGreaterThanOrEqual(0);
});
