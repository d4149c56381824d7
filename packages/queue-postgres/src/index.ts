export { startPostgresJobs, type PostgresJobs, type PostgresJobsOptions, type Reconciled } from "./queue.js";
export { CHECK_DEAD_LETTER, CHECK_QUEUE, DELIVERY_DEAD_LETTER, DELIVERY_QUEUE, PGBOSS_SCHEMA_VERSION } from "./sql.js";
