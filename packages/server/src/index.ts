// The public API of @driftwatch/server: the composition root, the HTTP app on its own, the engine
// factories (check pipeline, scheduler, delivery service and worker, metrics) and the seams' types.
export {
  ALL_SCOPES,
  createDriftwatchServer,
  createUrlGuard,
  type BootstrapResult,
  type DriftwatchServer,
  type DriftwatchServerOptions,
} from "./service.js";
export { buildApp, SUPPORTED_API_VERSIONS } from "./app.js";
export * from "./engine/index.js";
export {
  ConfigError,
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_CHROMIUM_PATH,
  DEFAULT_DATABASE_URL,
  DEFAULT_HOST,
  DEFAULT_PORT,
  DEFAULT_RATE_LIMIT_READS,
  DEFAULT_RATE_LIMIT_WRITES,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  ENV,
  openDatabase,
  parseDatabaseUrl,
  resolveServeConfig,
  type ConfigErrorCode,
  type DatabaseLocation,
  type DriftwatchConfig,
} from "./config.js";
export { generateTokenSecret, hashTokenSecret, isWellFormedToken, TOKEN_PREFIX } from "./tokens.js";
export type {
  AppDependencies,
  CheckService,
  DeliveryService,
  MetricsRegistry,
  ServerConfig,
  UrlGuard,
} from "./types.js";
export { createEventHub, observeStore, type EventHub, type LiveEvent } from "./live/events.js";
