// Process roles of `driftwatch serve`: `all` (API, scheduler and delivery worker in one process),
// `api` (the API only: no scheduled checks, no deliveries) and `worker` (checks and deliveries,
// and only the operations endpoints over HTTP).
import type { Store } from "@driftwatch/core";
import { CheckError, toPublicSnapshot, type CheckService } from "@driftwatch/engine";
import type { FastifyInstance } from "fastify";
import { ApiError } from "./http/problem.js";
import { presentDiff } from "./routes/present.js";

export const SERVER_ROLES = ["all", "api", "worker"] as const;
export type ServerRole = (typeof SERVER_ROLES)[number];

/** The paths a worker-only process serves: liveness, readiness and metrics. */
export const WORKER_PATHS: ReadonlySet<string> = new Set(["/healthz", "/readyz", "/metrics"]);

/** Whether a process of this role runs the scheduler and the delivery worker. */
export function runsBackgroundWork(role: ServerRole): boolean {
  return role !== "api";
}

/**
 * A worker-only process answers every path but the operations endpoints with a 404 problem
 * (request id included, as everywhere), so a load balancer that sends API traffic to a worker by
 * mistake gets a clear answer instead of a half-working API.
 */
export function restrictToWorkerPaths(app: FastifyInstance): void {
  app.addHook("onRequest", async (request) => {
    const path = request.url.split("?", 1)[0]!;
    if (!WORKER_PATHS.has(path)) {
      throw new ApiError("not_found", "This process runs with role worker: it serves only /healthz, /readyz and /metrics.");
    }
  });
}

export interface DelegatedChecksOptions {
  store: Store;
  /** How long a request waits for a worker to check the monitor. */
  waitMs: number;
  /** How often the store is read while waiting (default 200 ms). */
  pollMs?: number;
  now?: () => Date;
}

/**
 * "Check now" for an api-only process, which runs no checks itself: the monitor is made due at
 * once, and the request waits until a worker process on the same database has checked it, then
 * answers as an in-process check would (the new snapshot and diff; a failed check as a
 * `CheckError` with code `check_failed` and the error the worker recorded). A monitor no worker
 * checks within `waitMs` is answered with 503 `unavailable`; it stays due.
 */
export function createDelegatedChecks(options: DelegatedChecksOptions): CheckService {
  const { store, waitMs } = options;
  const pollMs = options.pollMs ?? 200;
  const now = options.now ?? (() => new Date());
  return {
    async checkNow(orgId, monitorId) {
      const before = await store.getMonitor(orgId, monitorId);
      if (before === null) return null;
      const updated = await store.updateMonitor(orgId, monitorId, { nextCheckAt: now().toISOString() });
      if (updated === null) return null;
      const deadline = Date.now() + waitMs;
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, pollMs));
        const monitor = await store.getMonitor(orgId, monitorId);
        if (monitor === null) return null;
        // Any check recorded after the request asked for one answers it (clocks of other machines
        // are not compared with this one's).
        if (monitor.lastCheckedAt !== null && monitor.lastCheckedAt !== before.lastCheckedAt) {
          if (monitor.lastError !== null) throw new CheckError("check_failed", monitor.lastError);
          const snapshot = await store.getLatestSnapshot(orgId, monitorId);
          if (snapshot === null) throw new CheckError("check_failed", "The worker recorded the check but no snapshot is stored");
          // A diff belongs to this check only if its snapshot is new since the request.
          const fresh = before.lastCheckedAt === null || snapshot.fetchedAt > before.lastCheckedAt;
          const diff = fresh ? (await store.listDiffs(orgId, monitorId, { limit: 1 })).data[0] : undefined;
          return { snapshot: toPublicSnapshot(snapshot), diff: diff !== undefined && diff.snapshotId === snapshot.id ? presentDiff(diff) : null };
        }
        if (Date.now() >= deadline) {
          throw new ApiError("unavailable", `No worker process checked the monitor within ${String(Math.round(waitMs / 1000))} s; it stays due and will be checked when a worker is running.`, {
            headers: { "retry-after": "5" },
          });
        }
      }
    },
  };
}
