// The environment variables the server reads (limits: see limits.ts).

/** An environment to read configuration from (default `process.env`). */
export type Env = Record<string, string | undefined>;

/** The environment variables `serve` reads. */
export const ENV = {
  port: "DRIFTWATCH_PORT",
  host: "DRIFTWATCH_HOST",
  database: "DRIFTWATCH_DATABASE_URL",
  allowPrivateNetworks: "DRIFTWATCH_ALLOW_PRIVATE_NETWORKS",
  rateLimitReads: "DRIFTWATCH_RATE_LIMIT_READS",
  rateLimitWrites: "DRIFTWATCH_RATE_LIMIT_WRITES",
  adminToken: "DRIFTWATCH_ADMIN_TOKEN",
  chromiumPath: "DRIFTWATCH_CHROMIUM_PATH",
  bodyLimit: "DRIFTWATCH_BODY_LIMIT_BYTES",
  shutdownTimeout: "DRIFTWATCH_SHUTDOWN_TIMEOUT_MS",
  lease: "DRIFTWATCH_LEASE_MS",
  pollInterval: "DRIFTWATCH_POLL_INTERVAL_MS",
  orgShare: "DRIFTWATCH_ORG_SHARE_PERCENT",
  webhookEndpointConcurrency: "DRIFTWATCH_WEBHOOK_ENDPOINT_CONCURRENCY",
  publicUrl: "DRIFTWATCH_PUBLIC_URL",
  logFormat: "DRIFTWATCH_LOG_FORMAT",
  role: "DRIFTWATCH_ROLE",
  queue: "DRIFTWATCH_QUEUE",
  checkConcurrency: "DRIFTWATCH_CHECK_CONCURRENCY",
  perHostConcurrency: "DRIFTWATCH_PER_HOST_CONCURRENCY",
  warmupSamples: "DRIFTWATCH_WARMUP_SAMPLES",
  warmupInterval: "DRIFTWATCH_WARMUP_INTERVAL_MS",
  learningSamples: "DRIFTWATCH_LEARNING_SAMPLES",
  checkWait: "DRIFTWATCH_CHECK_WAIT_MS",
  trustProxy: "DRIFTWATCH_TRUST_PROXY",
  trustProxyHops: "DRIFTWATCH_TRUST_PROXY_HOPS",
  metricsToken: "DRIFTWATCH_METRICS_TOKEN",
  metricsListen: "DRIFTWATCH_METRICS_LISTEN",
  smtpUrl: "DRIFTWATCH_SMTP_URL",
  smtpFrom: "DRIFTWATCH_SMTP_FROM",
  userPassword: "DRIFTWATCH_USER_PASSWORD",
  secretKey: "DRIFTWATCH_SECRET_KEY",
  screenshotDir: "DRIFTWATCH_SCREENSHOT_DIR",
  heap: "DRIFTWATCH_HEAP",
} as const;
