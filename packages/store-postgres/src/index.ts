export { createPostgresStore, createStore, openPostgresDatabase, type PostgresStoreOptions } from "./store.js";
export { createPostgresDialect } from "./dialect.js";
export { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION, migratePostgres, quoteIdentifier, type PostgresMigration } from "./migrations.js";
export { renewLeasesStatement } from "./leases.js";
export { inspectPostgresDatabase, type InspectPostgresOptions, type PostgresInspection } from "./inspect.js";
