// The server's configuration, one idea a module: flag and environment values (values.ts),
// command-line flags (cli-flags.ts), environment variables (env.ts), limits (limits.ts), store URLs
// (store-url.ts) and `driftwatch serve`'s resolved configuration (serve.ts).
export { parseArgs, SERVE_OPTIONS, type OptionSpec, type ParsedArgs } from "./cli-flags.js";
export { ENV, type Env } from "./env.js";
export * from "./limits.js";
export {
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_CHROMIUM_PATH,
  DEFAULT_DATABASE_URL,
  DEFAULT_HOST,
  DEFAULT_PORT,
  DEFAULT_RATE_LIMIT_READS,
  DEFAULT_RATE_LIMIT_WRITES,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  DEFAULT_PER_HOST_CONCURRENCY,
  DEFAULT_WARMUP_INTERVAL_MS,
  DEFAULT_WARMUP_SAMPLES,
  DEFAULT_LEARNING_SAMPLES,
  DEFAULT_CHECK_WAIT_MS,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_ORG_SHARE_PERCENT,
  defaultCheckConcurrency,
  QUEUE_KINDS,
  type QueueKind,
  resolveServeConfig,
  type DriftwatchConfig,
} from "./serve.js";
export { openDatabase, openStore, parseDatabaseUrl, redactUrl, type DatabaseLocation, type OpenStoreOptions } from "./store-url.js";
export { ConfigError, parseBoolean, parseHost, parseInteger, parsePublicUrl, type ConfigErrorCode } from "./values.js";
export { SECRET_KEY_FILE, requireSecretBox, resolveServerSecrets, type SecretKeySource, type ServerSecrets } from "./secret-key.js";
