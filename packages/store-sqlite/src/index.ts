export { createSqliteStore, createStore, type SqliteStore, type SqliteStoreOptions } from "./store.js";
export { SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION, migrateSqlite, type SqliteMigration } from "./migrations.js";
