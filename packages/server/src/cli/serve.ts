import type { AddressInfo } from "node:net";
import { activeWebhookSecrets, isDriftwatchError } from "@driftwatch/core";
import { ConfigError, ENV, redactUrl, resolveServeConfig } from "../config/index.js";
import { startDemoReceiver, type DemoReceiver } from "../demo/receiver.js";
import { seedDemo, type DemoSetup } from "../demo/seed.js";
import { startDemoTarget, type DemoTarget } from "../demo/target.js";
import { resolveDashboardDir } from "../http/dashboard.js";
import { createSetupLink } from "@driftwatch/people";
import { createDriftwatchServer, type DriftwatchServer } from "../service.js";
import { type CliIo, EXIT_ERROR } from "./io.js";
import { appliedHeapChoice, HEAP_GROWING_PERCENT, settleHeapAfterStartup, YOUNG_GENERATION_MAX_MB, type HeapSettled } from "./heap.js";
import { createCliLogger, defaultLogFormat } from "./log.js";
import { USAGE } from "./usage.js";

export interface ServeHooks {
  /** Called once the server listens (tests use it to stop an in-process server). */
  onListening?(server: DriftwatchServer, baseUrl: string): void;
  /** Where log lines go (default stdout; its being a terminal picks the default format). */
  logDestination?: NodeJS.WritableStream;
  /** Replaces process signal handling (tests). Returns an unsubscribe function. */
  onSignal?(handler: (signal: NodeJS.Signals) => void): () => void;
}

function processSignals(handler: (signal: NodeJS.Signals) => void): () => void {
  process.on("SIGTERM", handler);
  process.on("SIGINT", handler);
  return () => {
    process.off("SIGTERM", handler);
    process.off("SIGINT", handler);
  };
}

/**
 * `driftwatch serve`: opens the database, bootstraps an empty one, listens, runs the scheduler and
 * the delivery worker, and shuts down gracefully on SIGTERM / SIGINT (a second signal exits at once).
 */
export async function runServe(args: readonly string[], io: CliIo, hooks: ServeHooks = {}): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout(USAGE);
    return 0;
  }
  let config;
  try {
    config = resolveServeConfig(args, io.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr(`driftwatch serve: ${error.message}\n`);
      return EXIT_ERROR;
    }
    throw error;
  }

  const logDestination = hooks.logDestination ?? process.stdout;
  const logFormat = config.logFormat ?? defaultLogFormat((logDestination as { isTTY?: boolean }).isTTY);
  const logger = createCliLogger({ format: logFormat, level: io.env.DRIFTWATCH_LOG_LEVEL || "info", destination: logDestination });

  let target: DemoTarget | null = null;
  let receiver: DemoReceiver | null = null;
  let server: DriftwatchServer | null = null;
  let demo: DemoSetup | null = null;
  let settled: HeapSettled | null = null;
  const cleanupDemo = async (): Promise<void> => {
    await Promise.allSettled([target?.close(), receiver?.close()]);
  };

  try {
    if (config.demo) {
      target = await startDemoTarget();
      receiver = await startDemoReceiver({
        secrets: async () => {
          if (server === null || demo === null) return [];
          const hook = await server.store.getWebhook(demo.orgId, demo.webhook.id);
          return hook === null ? [] : activeWebhookSecrets(hook);
        },
        onEvent: (event) =>
          server?.logger.info(
            { eventId: event.eventId, monitorId: event.monitorId, diffId: event.diffId, classification: event.data.classification },
            "demo receiver: verified diff.detected",
          ),
        onRejected: (reason) => server?.logger.warn({ reason }, "demo receiver: rejected a delivery"),
      });
    }
    server = await createDriftwatchServer({
      ...config,
      logger,
      trustedOrigins: target !== null && receiver !== null ? [target.origin, receiver.origin] : [],
    });
  } catch (error) {
    await cleanupDemo();
    io.stderr(`driftwatch serve: cannot open ${redactUrl(config.databaseUrl)}: ${(error as Error).message}\n`);
    return EXIT_ERROR;
  }
  const running = server;

  let resolveStopped!: (code: number) => void;
  const stopped = new Promise<number>((resolve) => (resolveStopped = resolve));
  let signals = 0;
  const unsubscribe = (hooks.onSignal ?? processSignals)((signal) => {
    signals++;
    if (signals > 1) {
      io.stderr(`driftwatch serve: second ${signal}, exiting without waiting.\n`);
      process.exit(130);
    }
    settled?.stop();
    running.logger.info({ signal }, "shutting down: no new work; in-flight checks and deliveries finish or stay pending");
    void running
      .close()
      .then(cleanupDemo)
      .then(
        () => {
          running.logger.info("stopped");
          resolveStopped(0);
        },
        (error: unknown) => {
          running.logger.error({ err: error }, "shutdown failed");
          resolveStopped(1);
        },
      );
  });

  try {
    // The demo prints a token of its own: without DRIFTWATCH_ADMIN_TOKEN, no second admin token
    // that nobody would ever see.
    const boot = config.demo && config.adminToken === null ? { created: false, generatedToken: null } : await running.bootstrap();
    if (boot.created && !config.demo && logFormat === "json") {
      // Machine-read logs stay one JSON object a line: the notice is a log line, the one-time
      // token (never logged) goes to stderr.
      running.logger.info({ organization: "default", tokenFrom: boot.generatedToken === null ? ENV.adminToken : "generated" }, "created the default organization");
      if (boot.generatedToken !== null) io.stderr(`Admin token (shown only this once): ${boot.generatedToken}\n`);
    } else if (boot.created && !config.demo) {
      if (boot.generatedToken !== null) {
        io.stdout(
          `\nCreated organization "default" and an admin token. It is shown only this once:\n\n  ${boot.generatedToken}\n\n`,
        );
      } else {
        io.stdout('\nCreated organization "default" with the admin token from DRIFTWATCH_ADMIN_TOKEN.\n\n');
      }
    }
    if (config.demo && target !== null && receiver !== null) {
      demo = await seedDemo(running.store, { apiUrl: target.apiUrl, pageUrl: target.pageUrl, receiverUrl: receiver.url });
    }
    await running.listen();
    settled = settleHeapAfterStartup();
    const { port } = running.app.server.address() as AddressInfo;
    const host = config.host.includes(":") ? `[${config.host}]` : config.host;
    const baseUrl = `http://${host === "0.0.0.0" || host === "[::]" ? "127.0.0.1" : host}:${port}`;
    const summary = {
      url: baseUrl,
      dashboard: resolveDashboardDir() === null ? "not built (npm run build -w @driftwatch/dashboard)" : `${baseUrl}/`,
      database: redactUrl(config.databaseUrl),
      role: config.role,
      roles: config.role === "api" ? ["api"] : config.role === "worker" ? ["scheduler", "delivery worker"] : ["api", "scheduler", "delivery worker"],
      queue: config.queue,
      privateNetworks: config.allowPrivateNetworks ? "allowed" : "blocked",
      openapi: `${baseUrl}/api/openapi.json`,
      metrics: metricsUrl(running, baseUrl),
      ...heapSummary(settled),
    };
    running.logger.info(summary, "driftwatch listening");
    if (logFormat === "pretty" && demo === null) io.stdout(startupSummary(summary));
    if (demo !== null && target !== null) io.stdout(demoBanner(baseUrl, summary.dashboard, demo, target));
    if (config.role !== "worker") {
      // No user yet: a one-time link to create the first owner (a fresh one on every start).
      const setup = await createSetupLink(running.store, config.publicUrl ?? baseUrl, config.limits.setupTtlSeconds);
      if (setup !== null) {
        const line = `Finish setup: ${setup.url}`;
        if (logFormat === "json") {
          // The link is a secret: not in the (machine-read, often shipped) log, only on stderr.
          running.logger.info({ expiresAt: setup.expiresAt }, "no user yet: the setup link is printed on stderr");
          io.stderr(`${line}\n`);
        } else {
          io.stdout(`\n${line}\n  (creates the first owner; works once, until ${setup.expiresAt}; or run: driftwatch user create)\n\n`);
        }
      }
    }
    hooks.onListening?.(running, baseUrl);
  } catch (error) {
    settled?.stop();
    unsubscribe();
    await running.close().catch(() => undefined);
    await cleanupDemo();
    const code = isDriftwatchError(error) ? ` (${error.code})` : "";
    const hint =
      (error as NodeJS.ErrnoException).code === "EADDRINUSE"
        ? `\nPort ${config.port} is taken: pass another with --port (npm start -- --port 9090) or DRIFTWATCH_PORT.`
        : "";
    io.stderr(`driftwatch serve: ${(error as Error).message}${code}${hint}\n`);
    return EXIT_ERROR;
  }

  const code = await stopped;
  unsubscribe();
  return code;
}

/** The heap settings in the "driftwatch listening" line (cli/heap.ts; nothing when `serve` runs inside another program). */
function heapSummary(settled: HeapSettled | null): { heap?: Record<string, unknown> } {
  const choice = appliedHeapChoice();
  if (choice === null) return {};
  if (choice.mode === "node") return { heap: { settings: "node", reason: choice.reason } };
  return {
    heap: {
      settings: "lean",
      youngGenerationMaxMb: YOUNG_GENERATION_MAX_MB,
      heapGrowingPercent: HEAP_GROWING_PERCENT,
      ...(settled === null ? {} : { youngGenerationMb: settled.youngGenerationMb, oldSpaceMb: settled.oldSpaceMb }),
    },
  };
}

function metricsUrl(server: DriftwatchServer, baseUrl: string): string {
  const own = server.metricsAddress();
  if (own === null) return `${baseUrl}/metrics`;
  const host = own.address === "0.0.0.0" || own.address === "::" ? "127.0.0.1" : own.family === "IPv6" ? `[${own.address}]` : own.address;
  return `http://${host}:${own.port}/metrics`;
}

function startupSummary(summary: { url: string; metrics: string; dashboard: string; database: string; roles: string[]; privateNetworks: string; openapi: string }): string {
  return `
driftwatch is running
  Dashboard ${summary.dashboard}   (sign in with your account, or an API token)
  API       ${summary.url}   (every endpoint: ${summary.openapi})
  Store     ${summary.database}
  Roles     ${summary.roles.join(", ")}
  Egress    private networks ${summary.privateNetworks}
  Health    ${summary.url}/readyz   metrics: ${summary.metrics}

Stop with Ctrl-C (in-flight work finishes or stays pending).

`;
}

function demoBanner(baseUrl: string, dashboard: string, demo: DemoSetup, target: DemoTarget): string {
  const auth = `-H "authorization: Bearer ${demo.token}"`;
  return `
driftwatch demo
  Dashboard   ${dashboard}   (sign in with the admin token below, or create an account with the setup link)
  API         ${baseUrl}   (open ${baseUrl}/api/openapi.json for every endpoint)
  Demo target ${target.apiUrl} and ${target.pageUrl} (change every 15 s)
  Monitors    ${demo.apiMonitor.id} (api), ${demo.pageMonitor.id} (website), checked every 10 s
  Webhook     ${demo.webhook.id} -> the built-in receiver, which verifies each signature
  Admin token ${demo.token}

Within a minute, try:

  curl -s ${auth} "${baseUrl}/api/monitors/${demo.apiMonitor.id}/diffs?limit=3"
  curl -s ${auth} "${baseUrl}/api/monitors/${demo.pageMonitor.id}/diffs?limit=3"
  curl -s ${auth} "${baseUrl}/api/webhooks/${demo.webhook.id}/deliveries?limit=5"

What the monitors learned from their recent snapshots (applied to their diffs: autoApplySuggestions):

  curl -s ${auth} "${baseUrl}/api/monitors/${demo.apiMonitor.id}/noise"

Stop with Ctrl-C.

`;
}
