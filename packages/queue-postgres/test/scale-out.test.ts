// The engine's scale-out suite (kill -9 takeover, SIGTERM hand-back, random kills during
// thousands of checks and deliveries) with every engine process on the pg-boss work queue.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { scaleOutSuite } from "../../engine/test/scale-out/suite.js";

await scaleOutSuite({
  queue: "pg-boss",
  queueModule: path.join(path.dirname(fileURLToPath(import.meta.url)), "scale-out-queue.ts"),
  // pg-boss notices an expired job at its next maintenance run (every second here) and the
  // timer of that run may have just fired: up to two intervals after the lease.
  takeoverSlackMs: 2000,
});
