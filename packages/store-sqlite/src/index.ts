export { createSqliteStore, createStore, openSqliteDatabase, DIFF_JSON_CACHE_TTL_MS, LOCK_SPIN_MS, type SqliteStore, type SqliteStoreOptions } from "./store.js";
export { SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION, migrateSqlite, type SqliteMigration } from "./migrations.js";
export {
  backupSqliteFile,
  inspectSqliteFile,
  restoreSqliteFile,
  sqliteFileInUse,
  SqliteFileError,
  type BackupSqliteOptions,
  type RestoreSqliteOptions,
  type SqliteBackup,
  type SqliteFileErrorCode,
  type SqliteFileInspection,
  type SqliteRestore,
} from "./files.js";
