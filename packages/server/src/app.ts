import fastifyCookie from "@fastify/cookie";
import { newId } from "@driftwatch/core";
import { API_VERSION, PROBLEM_TYPE_BASE } from "@driftwatch/schema";
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { pino } from "pino";
import { createAuthenticator, requireOwnerSession, requireScope, requireSession } from "./http/auth.js";
import { answerError, installErrorHandling } from "./http/errors.js";
import { ApiError } from "./http/problem.js";
import { EXPENSIVE_RATE_PER_CALLER, EXPENSIVE_RATE_PER_ORG } from "./config/limits.js";
import { applyRateLimit, createMemoryCounter, createStoreCounter, rateLimitPolicy } from "./http/rate-limit.js";
import { requireBodyOnRoute, zodValidatorCompiler } from "./http/validation.js";
import { registerDashboard, resolveDashboardDir } from "./http/dashboard.js";
import { createEventHub } from "./live/events.js";
import { registerOpenApi } from "./openapi/index.js";
import { createPeopleContext } from "./people/context.js";
import { registerAuditRoutes } from "./routes/audit.js";
import { registerAuthRoutes } from "./routes/auth.js";
import { registerDeliveryDetailRoutes } from "./routes/delivery-detail.js";
import { registerInviteRoutes } from "./routes/invites.js";
import { registerOrgRoutes } from "./routes/orgs.js";
import { registerEventRoutes } from "./routes/events.js";
import { registerMonitorRoutes } from "./routes/monitors.js";
import { registerMonitorDataRoutes } from "./routes/monitor-data.js";
import { registerSettingsPreviewRoutes } from "./routes/settings-preview.js";
import { registerBrowserRoutes } from "./routes/browser.js";
import { registerAlertPreviewRoutes } from "./routes/alert-preview.js";
import { registerCompareRoutes } from "./routes/compare.js";
import { registerSchemaRoutes } from "./routes/inferred-schema.js";
import { registerSystemRoutes } from "./routes/system.js";
import { registerTokenRoutes } from "./routes/tokens.js";
import { registerWebhookRoutes } from "./routes/webhooks.js";
import { registerChannelRoutes } from "./routes/channels.js";
import { createNotifier } from "@driftwatch/notify";
import type { AppDependencies } from "./types.js";

/**
 * One access-log line per request: "request completed" at info carries the request (method, url,
 * host, remote address), the status and the response time; "incoming request" is logged at debug
 * only. Errors are logged as Fastify does.
 */
class AccessLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, "incoming request");
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    if (error) {
      super.requestCompleted(error, request, reply, metadata);
      return;
    }
    reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, "request completed");
  }
}

/** Query parameters whose values are secrets (the invitation lookup's `token`): logged as `[redacted]`. */
const SECRET_QUERY = /([?&]token=)[^&#]*/gi;

/** Fastify's request log fields, with secret query values redacted from the URL. */
function requestForLog(request: FastifyRequest) {
  return {
    method: request.method,
    url: request.url.replace(SECRET_QUERY, "$1[redacted]"),
    version: request.headers?.["accept-version"],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/**
 * Answers a request Node could not parse (headers over the size limit: 431; a read timeout: 408;
 * anything else: 400) as every other error: problem+json with a request id, in the body and in
 * `x-request-id`, and the id in the log line.
 */
function clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: import("node:net").Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const requestId = newId("request");
  const [status, title, detail] =
    error.code === "HPE_HEADER_OVERFLOW"
      ? [431, "Request header fields too large", "The request line and headers are larger than this server accepts (a URL or a cookie too long)."]
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "Request timeout", "The request was not received in time."]
        : [400, "Bad request", "The request is not valid HTTP."];
  this.log.info({ requestId, err: { code: error.code, message: error.message }, statusCode: status }, "client error");
  const body = JSON.stringify({ type: `${PROBLEM_TYPE_BASE}invalid_request`, title, status, detail, code: "invalid_request", requestId });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${String(status)} ${title}\r\nContent-Type: application/problem+json\r\nContent-Length: ${String(Buffer.byteLength(body))}\r\n` +
        `x-request-id: ${requestId}\r\ndriftwatch-version: ${API_VERSION}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** API versions a request may pin with `driftwatch-version`. */
export const SUPPORTED_API_VERSIONS: readonly string[] = [API_VERSION];

/**
 * Builds the HTTP API of the reference server (the routes of src/routes, docs/api.md) on the given dependencies.
 * The caller listens (or uses `inject`) and closes the app; the store is not closed by it.
 */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const now = deps.now ?? (() => new Date());
  const app = Fastify({
    // The request serializer of this child replaces Fastify's, so no log line carries a secret from a URL.
    loggerInstance: (deps.logger ?? pino({ level: process.env.DRIFTWATCH_LOG_LEVEL ?? "info" })).child({}, { serializers: { req: requestForLog } }) as FastifyBaseLogger,
    genReqId: () => newId("request"),
    requestIdHeader: false,
    logController: new AccessLogController({ requestIdLogLabel: "requestId" }),
    bodyLimit: deps.config.bodyLimitBytes,
    clientErrorHandler,
    // Behind a reverse proxy that sets X-Forwarded-For/-Proto/-Host (docs/deployment.md): the
    // client address, the scheme (Secure cookies) and the origin (CSRF check) come from them.
    // Only the nearest proxy is trusted (one hop): the client address is the last X-Forwarded-For
    // entry, the one that proxy added, never an earlier one the client may have written itself.
    // With N hops (a CDN in front of nginx: 2) the N nearest are trusted, each having appended the
    // address it was reached from.
    trustProxy: deps.config.trustProxy === true ? (_address: string, hop: number) => hop < Math.max(1, deps.config.trustProxyHops ?? 1) : false,
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors: (error, request, reply) => {
      reply.header("x-request-id", request.id);
      reply.header("driftwatch-version", API_VERSION);
      void answerError(error, request, reply);
    },
  });
  // Only JSON request bodies; anything else is 415 unsupported_media_type. An empty body sent
  // with a JSON content type counts as no body (some clients label every request as JSON).
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    // Bodies are read as sent: a compressed one would only read as malformed JSON.
    const encoding = request.headers["content-encoding"];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== "identity") {
      done(
        new ApiError("unsupported_media_type", `Content-Encoding ${JSON.stringify(encoding)} is not supported; send the JSON body uncompressed.`, {
          headers: { "accept-encoding": "identity" },
        }),
      );
      return;
    }
    if (body === "") {
      done(null, undefined);
      return;
    }
    parseJson(request, body as string, done);
  });
  app.setValidatorCompiler(zodValidatorCompiler);
  app.addHook("onRoute", requireBodyOnRoute);
  // Handlers build response objects with explicit mappers; response schemas document them.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.decorateRequest("auth", null);
  installErrorHandling(app);
  // Parses the Cookie header (the session cookie) and sets cookies; no signing (the session id
  // is a random secret looked up by its hash).
  await app.register(fastifyCookie);

  // Sign-in limits and failed authentications are counted in the store whenever it can (rare
  // writes: a failure, a sign-in), so N API processes on one database, SQLite included, do not give
  // a guesser N times the limits. Request rate limits too, unless told `memory` (a write per request).
  const people = createPeopleContext({
    store: deps.store,
    now,
    ...(deps.config.people === undefined ? {} : { limits: deps.config.people }),
    mailer: deps.mailer ?? null,
    publicUrl: deps.config.publicUrl ?? null,
    sharedCounters: true,
  });
  const authenticator = createAuthenticator(deps.store, now, {
    ...(deps.config.tokenCacheTtlMs === undefined ? {} : { tokenCacheTtlMs: deps.config.tokenCacheTtlMs }),
    sessionIdleSeconds: people.limits.sessionIdleSeconds,
    sharedCounters: true,
    publicOrigin: people.publicUrl === null ? null : new URL(people.publicUrl).origin,
  });
  const counter = (deps.config.rateLimitCounters === "memory" ? null : createStoreCounter(deps.store)) ?? createMemoryCounter();

  // Built once: the policies and their RateLimit-Policy header values.
  const readPolicy = rateLimitPolicy("reads", deps.config.rateLimitReads);
  const writePolicy = rateLimitPolicy("writes", deps.config.rateLimitWrites);
  const expensiveCallerPolicy = rateLimitPolicy("expensive-caller", deps.config.rateLimitExpensivePerCaller ?? EXPENSIVE_RATE_PER_CALLER);
  const expensivePolicy = rateLimitPolicy("expensive", deps.config.rateLimitExpensivePerOrg ?? EXPENSIVE_RATE_PER_ORG);

  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
    const pinned = request.headers["driftwatch-version"];
    reply.header("driftwatch-version", API_VERSION);
    if (pinned !== undefined && (typeof pinned !== "string" || !SUPPORTED_API_VERSIONS.includes(pinned.trim()))) {
      throw new ApiError("invalid_request", `Unsupported driftwatch-version; this server speaks ${SUPPORTED_API_VERSIONS.join(", ")}.`, {
        errors: [{ path: "driftwatch-version", message: `must be one of ${SUPPORTED_API_VERSIONS.join(", ")}` }],
      });
    }
    // (request.routeOptions builds a new object on every access: read it once)
    const config = request.routeOptions.config;
    if (config.scope === undefined) return;
    const at = now().getTime();
    const auth = await authenticator.authenticate(request, at);
    request.auth = auth;
    requireScope(auth, config.scope);
    if (config.caller === "owner") requireOwnerSession(auth);
    else if (config.caller === "session") requireSession(auth);
    const readLike = request.method === "GET" || request.method === "HEAD";
    const kind = config.rateLimit ?? (readLike ? "read" : "write");
    const endpoint = `${request.method} ${config.url ?? ""}`;
    if (kind === "expensive") {
      // per caller first, so that one caller spending its share does not use the organization's
      await applyRateLimit(counter, reply, auth.orgId, endpoint, expensiveCallerPolicy, at, auth.tokenId ?? `user:${auth.userId}`);
      await applyRateLimit(counter, reply, auth.orgId, endpoint, expensivePolicy, at);
      return;
    }
    await applyRateLimit(counter, reply, auth.orgId, endpoint, kind === "read" ? readPolicy : writePolicy, at);
  });

  if (deps.metrics?.observeRequest !== undefined) {
    const observe = deps.metrics.observeRequest.bind(deps.metrics);
    app.addHook("onResponse", async (request, reply) => {
      observe(request.routeOptions.config.url ?? "unmatched", request.method, reply.statusCode, reply.elapsedTime / 1000);
    });
  }

  await registerOpenApi(app);
  registerSystemRoutes(app, deps);
  registerMonitorRoutes(app, deps, now);
  registerMonitorDataRoutes(app, deps, now);
  registerWebhookRoutes(app, deps, people, now);
  // Notification channels: every request a channel sends passes the app's URL guard.
  const notifier =
    deps.notifier ??
    createNotifier({ env: process.env, publicUrl: deps.config.publicUrl ?? undefined, checkUrl: (url) => deps.urlGuard.assertSafeUrl(url), guard: { allowPrivateNetworks: deps.config.allowPrivateNetworks } });
  if (deps.notifier === undefined) app.addHook("onClose", () => notifier.close());
  registerChannelRoutes(app, deps, people, notifier, now);
  registerTokenRoutes(app, deps, people, (tokenId) => authenticator.forget(tokenId));
  registerAuthRoutes(app, people);
  registerOrgRoutes(app, people, (orgId) => authenticator.forgetOrganization(orgId));
  registerInviteRoutes(app, people);
  registerAuditRoutes(app, people);
  registerSettingsPreviewRoutes(app, deps);
  registerAlertPreviewRoutes(app, deps);
  registerCompareRoutes(app, deps);
  registerSchemaRoutes(app, deps);
  registerDeliveryDetailRoutes(app, deps);
  registerBrowserRoutes(app, deps, now);
  registerEventRoutes(app, deps.events ?? createEventHub(), { stillAllowed: (auth, at) => authenticator.stillValid(auth, at), now });
  await registerDashboard(app, resolveDashboardDir(deps.dashboardDir));
  return app;
}
