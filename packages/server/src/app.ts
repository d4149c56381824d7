import fastifyCookie from "@fastify/cookie";
import { newId } from "@driftwatch/core";
import { API_VERSION } from "@driftwatch/schema";
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { pino } from "pino";
import { createAuthenticator, requireOwnerSession, requireScope, requireSession } from "./http/auth.js";
import { answerError, installErrorHandling } from "./http/errors.js";
import { ApiError } from "./http/problem.js";
import { applyRateLimit, createMemoryCounter, createStoreCounter, rateLimitPolicy } from "./http/rate-limit.js";
import { zodValidatorCompiler } from "./http/validation.js";
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
import { registerCompareRoutes } from "./routes/compare.js";
import { registerSystemRoutes } from "./routes/system.js";
import { registerTokenRoutes } from "./routes/tokens.js";
import { registerWebhookRoutes } from "./routes/webhooks.js";
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
    // Behind a reverse proxy that sets X-Forwarded-For/-Proto/-Host (docs/deployment.md): the
    // client address, the scheme (Secure cookies) and the origin (CSRF check) come from them.
    // Only the nearest proxy is trusted (one hop): the client address is the last X-Forwarded-For
    // entry, the one that proxy added, never an earlier one the client may have written itself.
    trustProxy: deps.config.trustProxy === true ? (_address: string, hop: number) => hop === 0 : false,
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
    if (body === "") {
      done(null, undefined);
      return;
    }
    parseJson(request, body as string, done);
  });
  app.setValidatorCompiler(zodValidatorCompiler);
  // Handlers build response objects with explicit mappers; response schemas document them.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.decorateRequest("auth", null);
  installErrorHandling(app);
  // Parses the Cookie header (the session cookie) and sets cookies; no signing (the session id
  // is a random secret looked up by its hash).
  await app.register(fastifyCookie);

  const people = createPeopleContext({
    store: deps.store,
    now,
    ...(deps.config.people === undefined ? {} : { limits: deps.config.people }),
    mailer: deps.mailer ?? null,
    publicUrl: deps.config.publicUrl ?? null,
  });
  const authenticator = createAuthenticator(deps.store, now, {
    ...(deps.config.tokenCacheTtlMs === undefined ? {} : { tokenCacheTtlMs: deps.config.tokenCacheTtlMs }),
    sessionIdleSeconds: people.limits.sessionIdleSeconds,
    publicOrigin: people.publicUrl === null ? null : new URL(people.publicUrl).origin,
  });
  const counter = (deps.config.rateLimitCounters === "memory" ? null : createStoreCounter(deps.store)) ?? createMemoryCounter();

  // Built once: the policies and their RateLimit-Policy header values.
  const readPolicy = rateLimitPolicy("reads", deps.config.rateLimitReads);
  const writePolicy = rateLimitPolicy("writes", deps.config.rateLimitWrites);

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
    await applyRateLimit(counter, reply, auth.orgId, `${request.method} ${config.url ?? ""}`, kind === "read" ? readPolicy : writePolicy, at);
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
  registerWebhookRoutes(app, deps, now);
  registerTokenRoutes(app, deps, people, (tokenId) => authenticator.forget(tokenId));
  registerAuthRoutes(app, people);
  registerOrgRoutes(app, people, (orgId) => authenticator.forgetOrganization(orgId));
  registerInviteRoutes(app, people);
  registerAuditRoutes(app, people);
  registerSettingsPreviewRoutes(app, deps);
  registerCompareRoutes(app, deps);
  registerDeliveryDetailRoutes(app, deps);
  registerEventRoutes(app, deps.events ?? createEventHub(), { stillAllowed: (auth, at) => authenticator.stillValid(auth, at), now });
  await registerDashboard(app, resolveDashboardDir(deps.dashboardDir));
  return app;
}
