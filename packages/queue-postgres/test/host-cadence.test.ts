// 500 monitors at a 10 s interval on one fast host, on PostgreSQL with the pg-boss work queue (one
// scheduler, then three, each with its own queue): each is checked every 10 s (+- 2 s).
import type { Store } from "@driftwatch/core";
import { createPostgresStore } from "@driftwatch/store-postgres";
import { hostCadenceSuite } from "../../engine/test/host-cadence/suite.js";
import { createPostgresDatabase, postgresSkipReason } from "../../../tooling/test-postgres.js";
import { startPostgresJobs } from "../src/index.js";

const skip = await postgresSkipReason();
if (skip !== null) console.warn(`skipping the pg-boss host cadence suite: ${skip}`);

if (skip === null) {
  hostCadenceSuite({
    backend: "PostgreSQL, pg-boss",
    async open(prefix) {
      const database = await createPostgresDatabase(`dw_cadence_${prefix}`);
      const store: Store = await createPostgresStore({ connectionString: database.url, max: 8 });
      const jobs = await startPostgresJobs({ connectionString: database.url, max: 4 });
      const queues = new Set<ReturnType<typeof jobs.workQueue>>();
      return {
        store,
        queue(owner) {
          const queue = jobs.workQueue(store, { owner });
          queues.add(queue);
          return queue;
        },
        async close() {
          for (const queue of queues) queue.close();
          await jobs.close();
          await store.close();
          await database.drop();
        },
      };
    },
  });
}
