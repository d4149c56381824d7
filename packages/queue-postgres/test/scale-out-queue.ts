// The work queue the scale-out suite's engine processes use here: pg-boss on the test database,
// with the expiry sweep every second (the suite's lease is 3 s).
import type { OpenChildQueue } from "../../engine/test/scale-out/engine-child.js";
import { startPostgresJobs } from "../src/index.js";

export const openQueue: OpenChildQueue = async (url, store, leaseMs) => {
  const jobs = await startPostgresJobs({ connectionString: url, leaseMs, maintenanceIntervalSeconds: 1, max: 3 });
  return { queue: (context) => jobs.workQueue(store, context), close: () => jobs.close() };
};
