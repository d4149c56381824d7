// A consumer that vanishes, for job-engines.ts (run with `node --import tsx`): it claims one job of
// the `crash` queue with the engine named on the command line, prints one JSON line with the job's
// id (and, for graphile-worker, the worker id that holds its lock) and then waits, holding the job
// without completing it, until the parent kills it with SIGKILL.
import PgBoss from "pg-boss";
import { Logger, run } from "graphile-worker";

const [engine, url] = process.argv.slice(2);
if ((engine !== "pg-boss" && engine !== "graphile-worker") || url === undefined) {
  throw new Error("usage: job-engines-child.ts <pg-boss|graphile-worker> <postgres url>");
}

const announce = (claimed: { jobId: string; workerId?: string }): void => {
  process.stdout.write(`${JSON.stringify(claimed)}\n`);
};

if (engine === "pg-boss") {
  const boss = new PgBoss({ connectionString: url, max: 2, supervise: false, schedule: false, migrate: false });
  await boss.start();
  for (;;) {
    const [job] = await boss.fetch("crash");
    if (job !== undefined) {
      announce({ jobId: job.id });
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
} else {
  await run({
    connectionString: url,
    concurrency: 1,
    noHandleSignals: true,
    logger: new Logger(() => () => undefined),
    taskList: {
      crash: (_payload, helpers) => {
        announce({ jobId: helpers.job.id, workerId: helpers.job.locked_by ?? "" });
        return new Promise<void>(() => undefined); // never settles: the job stays locked
      },
    },
  });
}
// keep the event loop alive until SIGKILL
setInterval(() => undefined, 60_000);
