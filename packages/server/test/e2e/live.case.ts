// Shared steps of the live-events tests between processes: an `--role api` and a `--role worker`
// process on one database, a local JSON target, and the api process's event stream.
import { expect } from "vitest";
import { openEventStream, type EventStream, type SseEvent } from "../sse.js";
import { api, killAllChildren, newAdminToken, type ServerProcess, startCli, startTarget } from "./support.js";

export interface LiveRoles {
  apiProcess: ServerProcess;
  worker: ServerProcess;
  target: Awaited<ReturnType<typeof startTarget>>;
  call: ReturnType<typeof api>;
  /** The api process's event stream, its first `ready` already read. */
  stream: EventStream;
  close(): Promise<void>;
}

/** Starts both processes on `databaseUrl` (the api one first: it bootstraps the empty database) and opens the stream. */
export async function startLiveRoles(databaseUrl: string): Promise<LiveRoles> {
  const token = newAdminToken();
  const target = await startTarget("application/json", JSON.stringify({ v: 1 }));
  const env = { DRIFTWATCH_ADMIN_TOKEN: token, DRIFTWATCH_LOG_LEVEL: "warn" };
  const args = ["--database", databaseUrl, "--allow-private-networks"];
  const apiProcess = await startCli([...args, "--role", "api"], env);
  const worker = await startCli([...args, "--role", "worker"], env);
  const stream = await openEventStream(apiProcess.baseUrl, token);
  expect(stream.status).toBe(200);
  await stream.next((e) => e.event === "ready");
  return {
    apiProcess,
    worker,
    target,
    call: api(apiProcess.baseUrl, token),
    stream,
    async close() {
      stream.close();
      await apiProcess.kill("SIGTERM");
      await worker.kill("SIGTERM");
      killAllChildren();
      await target.close();
    },
  };
}

/** Creates a monitor of the target through the api process and waits for the worker's first check of it on the stream. */
export async function createWatchedMonitor(roles: LiveRoles): Promise<string> {
  const created = await roles.call("POST", "/api/monitors", { type: "api", name: "live", url: roles.target.url, intervalSeconds: 3600 });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  // each change of `v` is followed as a diff: the monitor does not learn noise (`v` changes on every check)
  expect((await roles.call("PATCH", `/api/monitors/${id}/settings`, { autoApplySuggestions: false })).status).toBe(200);
  const first = await roles.stream.next((e) => e.event === "check" && e.data.monitor.id === id);
  expect(first.data.diff).toBeNull();
  expect(first.data.monitor.lastCheckedAt).not.toBeNull();
  return id;
}

/**
 * Changes the target's `v`, asks the api process to check now (the worker runs it), and waits for
 * the check with its diff on the stream.
 */
export async function changeAndStreamDiff(roles: LiveRoles, id: string, v: number): Promise<{ diffId: string; event: SseEvent }> {
  roles.target.set(JSON.stringify({ v }));
  const checked = await roles.call("POST", `/api/monitors/${id}/check`);
  expect(checked.status).toBe(200);
  const diffId = checked.body.diff.id as string;
  const event = await roles.stream.next((e) => e.event === "check" && e.data.diff?.id === diffId);
  expect(event.data.monitor.id).toBe(id);
  expect(event.data.diff.changes.map((c: { path: string; op: string }) => [c.path, c.op])).toEqual([["$.v", "replace"]]);
  expect(event.data.diff.snapshotId).toBe(checked.body.snapshot.id);
  return { diffId, event };
}
