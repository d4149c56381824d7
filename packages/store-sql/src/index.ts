import { defineStore, type Store } from "@driftwatch/core";
import { SqlStoreAdapter, type SqlStoreOptions } from "./adapter.js";

export { SqlStoreAdapter, TRACKED_VALUES_VERSION, type SqlContext, type SqlStoreOptions } from "./adapter.js";
export { recordTrackedRows } from "./record-check.js";
export { CHANNEL_TABLE_NAMES, PEOPLE_TABLE_NAMES, TABLE_NAMES, TRACKED_TABLE_NAMES, type SqlDialect, type SqlDriver, type SqlExecutor, type SqlStatement, type TableName } from "./dialect.js";
export { MONITOR_PATCH_COLUMNS, RowCodec, SNAPSHOT_INSERT_COLUMNS, snapshotInsertColumns, WEBHOOK_PATCH_COLUMNS, type ColumnKind, type Row } from "./rows.js";

/** The shared SQL store on a driver and dialect, wrapped by `defineStore`. */
export function createSqlStore(options: SqlStoreOptions): Store {
  return defineStore(new SqlStoreAdapter(options), { mapError: (error) => options.dialect.mapError(error) });
}
export {
  canonicalValue,
  copySqlDatabase,
  COPY_ORDER,
  isEmptyDatabase,
  mergeColumnKinds,
  verifySqlCopy,
  type CopyColumn,
  type CopyColumnKind,
  type CopyOptions,
  type CopyResult,
  type SqlDatabase,
  type TableCheck,
  type TableProgress,
} from "./copy.js";
export { SqlChannels, channelDeliveryOf, insertChannelDeliveries } from "./channels.js";
export { SCREENSHOTS_SECRETS_VERSION } from "./media.js";
