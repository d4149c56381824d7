import { describe, expect, it } from "vitest";
import {
  ConfigError,
  DEFAULT_DATABASE_URL,
  ENV,
  LIMIT_ENV,
  parseDatabaseUrl,
  redactUrl,
  resolveServeConfig,
} from "../../src/config/index.js";
import { USAGE } from "../../src/cli/usage.js";

const TOKEN = "dw_" + "A".repeat(43);

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

describe("serve configuration", () => {
  it("has the documented defaults", () => {
    const config = resolveServeConfig([], {});
    expect(config).toMatchObject({
      port: 8080,
      host: "127.0.0.1",
      databaseUrl: DEFAULT_DATABASE_URL,
      allowPrivateNetworks: false,
      rateLimitReads: 600,
      rateLimitWrites: 120,
      adminToken: null,
      chromiumPath: "/usr/bin/chromium",
      demo: false,
    });
    expect(DEFAULT_DATABASE_URL).toBe("sqlite:./.driftwatch/driftwatch.db");
  });

  it("reads the environment, and flags win over it", () => {
    const env = {
      DRIFTWATCH_PORT: "9000",
      DRIFTWATCH_HOST: "0.0.0.0",
      DRIFTWATCH_DATABASE_URL: "postgres://postgres@127.0.0.1:5432/dw",
      DRIFTWATCH_ALLOW_PRIVATE_NETWORKS: "true",
      DRIFTWATCH_RATE_LIMIT_READS: "50",
      DRIFTWATCH_RATE_LIMIT_WRITES: "5",
      DRIFTWATCH_ADMIN_TOKEN: TOKEN,
      DRIFTWATCH_CHROMIUM_PATH: "/opt/chromium",
    };
    expect(resolveServeConfig([], env)).toMatchObject({
      port: 9000,
      host: "0.0.0.0",
      databaseUrl: "postgres://postgres@127.0.0.1:5432/dw",
      allowPrivateNetworks: true,
      rateLimitReads: 50,
      rateLimitWrites: 5,
      adminToken: TOKEN,
      chromiumPath: "/opt/chromium",
    });
    const flags = resolveServeConfig(
      ["--port", "0", "--host=::1", "--database", "sqlite:/tmp/x.db", "--allow-private-networks=false", "--rate-limit-reads", "7", "--rate-limit-writes=3", "--demo"],
      env,
    );
    expect(flags).toMatchObject({
      port: 0,
      host: "::1",
      databaseUrl: "sqlite:/tmp/x.db",
      allowPrivateNetworks: false,
      rateLimitReads: 7,
      rateLimitWrites: 3,
      demo: true,
    });
    expect(resolveServeConfig(["--allow-private-networks"], {}).allowPrivateNetworks).toBe(true);
  });

  it("queues on pg-boss on PostgreSQL and on the store's leases elsewhere, unless told", () => {
    expect(resolveServeConfig([], {}).queue).toBe("leases");
    expect(resolveServeConfig(["--database", "postgres://db.example/dw"], {}).queue).toBe("pg-boss");
    expect(resolveServeConfig(["--database", "postgres://db.example/dw", "--queue", "leases"], {}).queue).toBe("leases");
    expect(resolveServeConfig([], { DRIFTWATCH_DATABASE_URL: "postgresql://db.example/dw", DRIFTWATCH_QUEUE: "leases" }).queue).toBe("leases");
  });

  it("refuses bad values with a ConfigError naming the flag or variable", () => {
    const cases: [string[], Record<string, string>, string, string][] = [
      [["--port", "http"], {}, "invalid_value", "--port"],
      [["--port", "70000"], {}, "invalid_value", "--port"],
      [[], { DRIFTWATCH_PORT: "-1" }, "invalid_value", "DRIFTWATCH_PORT"],
      [["--rate-limit-reads", "0"], {}, "invalid_value", "--rate-limit-reads"],
      [[], { DRIFTWATCH_RATE_LIMIT_WRITES: "1.5" }, "invalid_value", "DRIFTWATCH_RATE_LIMIT_WRITES"],
      [["--database", "mysql://x"], {}, "invalid_value", "--database"],
      [["--database", "sqlite:"], {}, "invalid_value", "--database"],
      [[], { DRIFTWATCH_DATABASE_URL: "postgres://" }, "invalid_value", "DRIFTWATCH_DATABASE_URL"],
      [[], { DRIFTWATCH_ALLOW_PRIVATE_NETWORKS: "maybe" }, "invalid_value", "DRIFTWATCH_ALLOW_PRIVATE_NETWORKS"],
      [[], { DRIFTWATCH_ADMIN_TOKEN: "secret" }, "invalid_value", "DRIFTWATCH_ADMIN_TOKEN"],
      [["--host", ""], {}, "invalid_value", "--host"],
      [["--verbose"], {}, "unknown_option", "--verbose"],
      [["--port"], {}, "missing_value", "--port"],
      [["--port", "--host", "x"], {}, "missing_value", "--port"],
      [["extra"], {}, "unexpected_argument", "extra"],
      [["--queue", "redis"], {}, "invalid_value", "--queue"],
      [["--queue", "pg-boss"], {}, "invalid_value", "--queue"],
      [[], { DRIFTWATCH_QUEUE: "pg-boss", DRIFTWATCH_DATABASE_URL: "memory:" }, "invalid_value", "DRIFTWATCH_QUEUE"],
    ];
    for (const [args, env, code, mention] of cases) {
      const error = configError(() => resolveServeConfig(args, env));
      expect(error.code, args.join(" ") + JSON.stringify(env)).toBe(code);
      expect(error.message).toContain(mention);
    }
  });

  it("parses database URLs and never prints a password", () => {
    expect(parseDatabaseUrl("sqlite:./a/b.db", "--database", "/srv")).toEqual({ kind: "sqlite", url: "sqlite:./a/b.db", filename: "/srv/a/b.db" });
    expect(parseDatabaseUrl("sqlite:///var/lib/dw.db")).toMatchObject({ kind: "sqlite", filename: "/var/lib/dw.db" });
    expect(parseDatabaseUrl("postgresql://u:p@db:5432/x")).toMatchObject({ kind: "postgres" });
    expect(parseDatabaseUrl("memory:")).toEqual({ kind: "memory", url: "memory:" });
    expect(redactUrl("postgres://user:hunter2@db/x")).toBe("postgres://user:***@db/x");
    const error = configError(() => parseDatabaseUrl("mongodb://user:hunter2@db/x"));
    expect(error.message).not.toContain("hunter2");
  });
});

describe("serve configuration: limits", () => {
  it("has the documented default limits", () => {
    const { limits, publicUrl } = resolveServeConfig([], {});
    expect(limits).toMatchObject({
      workerThresholdBytes: 256 * 1024,
      compareTimeoutMs: 30_000,
      maxTargetBytes: 10 * 1024 * 1024,
      workerMemoryMb: 512,
      maxDiffChanges: 1000,
      maxDiffBytes: 1024 * 1024,
      maxWebhookPayloadBytes: 256 * 1024,
      maxListResponseBytes: 4 * 1024 * 1024,
    });
    expect(limits.workers).toBeGreaterThanOrEqual(1);
    expect(publicUrl).toBeNull();
  });

  it("reads every limit and the public URL from the environment", () => {
    const env: Record<string, string> = {};
    let n = 1;
    // A distinct value within each variable's range.
    for (const { variable, min, max } of Object.values(LIMIT_ENV)) env[variable] = String(Math.min(max, min + n++));
    env.DRIFTWATCH_WORKER_MEMORY_MB = "1024";
    env.DRIFTWATCH_COMPARE_WORKERS = "3";
    env.DRIFTWATCH_PUBLIC_URL = "https://dw.example.com/";
    const config = resolveServeConfig([], env);
    for (const [key, { variable }] of Object.entries(LIMIT_ENV)) expect(config.limits[key as keyof typeof config.limits]).toBe(Number(env[variable]));
    expect(config.publicUrl).toBe("https://dw.example.com");
  });

  it("refuses bad limit values naming the variable", () => {
    expect(configError(() => resolveServeConfig([], { DRIFTWATCH_MAX_DIFF_BYTES: "lots" })).message).toContain("DRIFTWATCH_MAX_DIFF_BYTES");
    expect(configError(() => resolveServeConfig([], { DRIFTWATCH_COMPARE_WORKERS: "0" })).code).toBe("invalid_value");
    expect(configError(() => resolveServeConfig([], { DRIFTWATCH_PUBLIC_URL: "ftp://x" })).message).toContain("DRIFTWATCH_PUBLIC_URL");
    expect(configError(() => resolveServeConfig([], { DRIFTWATCH_PUBLIC_URL: "https://x/?a=1" })).code).toBe("invalid_value");
  });
});

describe("process roles and concurrency", () => {
  it("defaults to every role, with concurrency derived from the machine", async () => {
    const { defaultCheckConcurrency } = await import("../../src/config/index.js");
    const config = resolveServeConfig([], {});
    expect(config.role).toBe("all");
    expect(config.perHostConcurrency).toBe(2);
    expect(config.checkWaitMs).toBe(30_000);
    expect(config.checkConcurrency).toBe(defaultCheckConcurrency());
    expect([defaultCheckConcurrency(1), defaultCheckConcurrency(2), defaultCheckConcurrency(8), defaultCheckConcurrency(64)]).toEqual([4, 8, 32, 64]);
  });

  it("reads --role, --check-concurrency and --per-host-concurrency, over the environment", () => {
    const env = { DRIFTWATCH_ROLE: "worker", DRIFTWATCH_CHECK_CONCURRENCY: "16", DRIFTWATCH_PER_HOST_CONCURRENCY: "3", DRIFTWATCH_CHECK_WAIT_MS: "5000" };
    expect(resolveServeConfig([], env)).toMatchObject({ role: "worker", checkConcurrency: 16, perHostConcurrency: 3, checkWaitMs: 5000 });
    expect(resolveServeConfig(["--role", "api", "--check-concurrency=2", "--per-host-concurrency", "1"], env)).toMatchObject({
      role: "api",
      checkConcurrency: 2,
      perHostConcurrency: 1,
    });
  });

  it("reads the warm-up of learning monitors (default 2 extra fetches, 1 s apart), flags over the environment", () => {
    expect(resolveServeConfig([], {})).toMatchObject({ warmupSamples: 2, warmupIntervalMs: 1000 });
    const env = { DRIFTWATCH_WARMUP_SAMPLES: "0", DRIFTWATCH_WARMUP_INTERVAL_MS: "250" };
    expect(resolveServeConfig([], env)).toMatchObject({ warmupSamples: 0, warmupIntervalMs: 250 });
    expect(resolveServeConfig(["--warmup-samples", "4", "--warmup-interval-ms=1000"], env)).toMatchObject({ warmupSamples: 4, warmupIntervalMs: 1000 });
    expect(configError(() => resolveServeConfig(["--warmup-samples", "11"], {})).message).toMatch(/--warmup-samples/);
    expect(configError(() => resolveServeConfig(["--warmup-interval-ms", "10001"], {})).message).toMatch(/--warmup-interval-ms/);
    expect(configError(() => resolveServeConfig([], { DRIFTWATCH_WARMUP_INTERVAL_MS: "-1" })).message).toMatch(/DRIFTWATCH_WARMUP_INTERVAL_MS/);
  });

  it("reads the learning samples of young monitors (default 3, 2 to 10), flags over the environment", () => {
    expect(resolveServeConfig([], {})).toMatchObject({ learningSamples: 3 });
    expect(resolveServeConfig([], { DRIFTWATCH_LEARNING_SAMPLES: "2" })).toMatchObject({ learningSamples: 2 });
    expect(resolveServeConfig(["--learning-samples", "5"], { DRIFTWATCH_LEARNING_SAMPLES: "2" })).toMatchObject({ learningSamples: 5 });
    expect(configError(() => resolveServeConfig(["--learning-samples", "1"], {})).message).toMatch(/--learning-samples/);
    expect(configError(() => resolveServeConfig([], { DRIFTWATCH_LEARNING_SAMPLES: "11" })).message).toMatch(/DRIFTWATCH_LEARNING_SAMPLES/);
  });

  it("names the flag or variable of a bad role or concurrency", () => {
    expect(configError(() => resolveServeConfig(["--role", "scheduler"], {})).message).toMatch(/--role must be one of all, api, worker/);
    expect(configError(() => resolveServeConfig([], { DRIFTWATCH_ROLE: "API" })).message).toMatch(/DRIFTWATCH_ROLE/);
    expect(configError(() => resolveServeConfig(["--check-concurrency", "0"], {})).message).toMatch(/--check-concurrency/);
    expect(configError(() => resolveServeConfig([], { DRIFTWATCH_PER_HOST_CONCURRENCY: "x" })).message).toMatch(/DRIFTWATCH_PER_HOST_CONCURRENCY/);
    expect(configError(() => resolveServeConfig([], { DRIFTWATCH_CHECK_WAIT_MS: "10" })).message).toMatch(/DRIFTWATCH_CHECK_WAIT_MS/);
  });
});

describe("serve configuration: people", () => {
  it("reads SMTP settings (both or neither) and whether to trust a proxy", () => {
    const none = resolveServeConfig([], {});
    expect(none.smtp).toBeNull();
    expect(none.trustProxy).toBe(false);
    const set = resolveServeConfig([], {
      DRIFTWATCH_SMTP_URL: "smtps://user:pass@mail.example.com:465",
      DRIFTWATCH_SMTP_FROM: "driftwatch <noreply@example.com>",
      DRIFTWATCH_TRUST_PROXY: "true",
    });
    expect(set.smtp).toEqual({ url: "smtps://user:pass@mail.example.com:465", from: "driftwatch <noreply@example.com>" });
    expect(set.trustProxy).toBe(true);
    expect(() => resolveServeConfig([], { DRIFTWATCH_SMTP_URL: "smtp://mail.example.com" })).toThrow(/set together/);
    expect(() => resolveServeConfig([], { DRIFTWATCH_SMTP_URL: "http://mail.example.com", DRIFTWATCH_SMTP_FROM: "a@b.co" })).toThrow(/smtp:\/\//);
    expect(() => resolveServeConfig([], { DRIFTWATCH_SMTP_URL: "smtp://mail.example.com", DRIFTWATCH_SMTP_FROM: "nobody" })).toThrow(/email address/);
    expect(() => resolveServeConfig([], { DRIFTWATCH_TRUST_PROXY: "maybe" })).toThrow(ConfigError);
  });

  it("reads the number of trusted proxy hops (a CDN in front of nginx: 2), which implies trusting a proxy", () => {
    expect(resolveServeConfig([], {}).trustProxyHops).toBeUndefined();
    const two = resolveServeConfig([], { DRIFTWATCH_TRUST_PROXY_HOPS: "2" });
    expect(two).toMatchObject({ trustProxy: true, trustProxyHops: 2 });
    expect(resolveServeConfig([], { DRIFTWATCH_TRUST_PROXY_HOPS: "2", DRIFTWATCH_TRUST_PROXY: "false" }).trustProxy).toBe(false);
    expect(() => resolveServeConfig([], { DRIFTWATCH_TRUST_PROXY_HOPS: "0" })).toThrow(/DRIFTWATCH_TRUST_PROXY_HOPS/);
    expect(() => resolveServeConfig([], { DRIFTWATCH_TRUST_PROXY_HOPS: "two" })).toThrow(ConfigError);
  });

  it("reads a metrics token, refusing a short or spaced one", () => {
    expect(resolveServeConfig([], {}).metricsToken).toBeNull();
    expect(resolveServeConfig([], { DRIFTWATCH_METRICS_TOKEN: "0123456789abcdef0123" }).metricsToken).toBe("0123456789abcdef0123");
    expect(() => resolveServeConfig([], { DRIFTWATCH_METRICS_TOKEN: "short" })).toThrow(/DRIFTWATCH_METRICS_TOKEN/);
    expect(() => resolveServeConfig([], { DRIFTWATCH_METRICS_TOKEN: "with a space in it here" })).toThrow(ConfigError);
  });

  it("reads a listen address of its own for /metrics: a port, host:port or [v6]:port", () => {
    expect(resolveServeConfig([], {}).metricsListen).toBeNull();
    expect(resolveServeConfig([], { DRIFTWATCH_METRICS_LISTEN: "9464" }).metricsListen).toEqual({ host: "127.0.0.1", port: 9464 });
    expect(resolveServeConfig([], { DRIFTWATCH_METRICS_LISTEN: "0.0.0.0:9100" }).metricsListen).toEqual({ host: "0.0.0.0", port: 9100 });
    expect(resolveServeConfig([], { DRIFTWATCH_METRICS_LISTEN: "[::1]:9464" }).metricsListen).toEqual({ host: "::1", port: 9464 });
    for (const bad of ["0", "70000", "host:", "http://127.0.0.1:9464", "a b:1", "::1:9464"]) {
      expect(() => resolveServeConfig([], { DRIFTWATCH_METRICS_LISTEN: bad }), bad).toThrow(/DRIFTWATCH_METRICS_LISTEN/);
    }
  });
});

describe("leases, polling and the org share", () => {
  it("defaults: the engine's lease (null), a 1 s poll, half the slots per org", () => {
    expect(resolveServeConfig([], {})).toMatchObject({ leaseMs: null, pollIntervalMs: 1000, orgSharePercent: 50 });
  });

  it("reads DRIFTWATCH_LEASE_MS, DRIFTWATCH_POLL_INTERVAL_MS and DRIFTWATCH_ORG_SHARE_PERCENT, and names a bad one", () => {
    const env = { DRIFTWATCH_LEASE_MS: "3000", DRIFTWATCH_POLL_INTERVAL_MS: "200", DRIFTWATCH_ORG_SHARE_PERCENT: "25" };
    expect(resolveServeConfig([], env)).toMatchObject({ leaseMs: 3000, pollIntervalMs: 200, orgSharePercent: 25 });
    expect(configError(() => resolveServeConfig([], { DRIFTWATCH_LEASE_MS: "999" })).message).toMatch(/DRIFTWATCH_LEASE_MS/);
    expect(configError(() => resolveServeConfig([], { DRIFTWATCH_POLL_INTERVAL_MS: "0" })).message).toMatch(/DRIFTWATCH_POLL_INTERVAL_MS/);
    expect(configError(() => resolveServeConfig([], { DRIFTWATCH_ORG_SHARE_PERCENT: "101" })).message).toMatch(/DRIFTWATCH_ORG_SHARE_PERCENT/);
    expect(configError(() => resolveServeConfig([], { DRIFTWATCH_ORG_SHARE_PERCENT: "0.5" })).code).toBe("invalid_value");
  });
});

describe("driftwatch --help", () => {
  it("names every environment variable serve reads", () => {
    const missing = Object.values(ENV).filter((name) => !new RegExp(`\\b${name}\\b`).test(USAGE));
    expect(missing).toEqual([]);
  });
});
