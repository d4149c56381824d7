export { createSqliteStore, createStore, openSqliteDatabase, DIFF_JSON_CACHE_TTL_MS, LOCK_SPIN_MS, type SqliteStore, type SqliteStoreOptions } from "./store.js";
export { SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION, migrateSqlite, type SqliteMigration } from "./migrations.js";
