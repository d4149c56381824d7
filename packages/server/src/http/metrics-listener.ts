import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { newId } from "@driftwatch/core";
import type { Logger } from "pino";
import { ApiError, PROBLEM_CONTENT_TYPE, problemBody } from "./problem.js";

/** What `/metrics` renders: the engine's registry (or nothing, in tests without one). */
export interface MetricsSource {
  readonly contentType: string;
  render(): Promise<string>;
}

/**
 * Whether an `Authorization` header carries the metrics token (always true without one). The
 * token is compared by hash in constant time.
 */
export function metricsAuthorizer(token: string | null | undefined): (authorization: string | undefined) => boolean {
  if (token === null || token === undefined || token === "") return () => true;
  const expected = createHash("sha256").update(token).digest();
  return (authorization) => {
    const given = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? "")?.[1];
    return given !== undefined && timingSafeEqual(createHash("sha256").update(given).digest(), expected);
  };
}

export function metricsUnauthenticated(): ApiError {
  return new ApiError("unauthenticated", "/metrics needs the metrics token: Authorization: Bearer <DRIFTWATCH_METRICS_TOKEN>.", {
    headers: { "www-authenticate": 'Bearer realm="driftwatch-metrics"' },
  });
}

export interface MetricsListener {
  readonly address: AddressInfo;
  close(): Promise<void>;
}

/**
 * `/metrics` on an address of its own (`DRIFTWATCH_METRICS_LISTEN`), so that the API's port can
 * face the internet while Prometheus scrapes a private one. Serves `GET`/`HEAD /metrics` and
 * nothing else (a 404 problem); the metrics token still applies when set.
 */
export async function startMetricsListener(options: {
  host: string;
  port: number;
  metrics: MetricsSource | undefined;
  token: string | null | undefined;
  logger: Logger;
}): Promise<MetricsListener> {
  const authorized = metricsAuthorizer(options.token);
  const sendProblem = (res: ServerResponse, error: ApiError): void => {
    const requestId = newId("request");
    res.writeHead(error.status, { "content-type": PROBLEM_CONTENT_TYPE, "x-request-id": requestId, ...error.headers });
    res.end(JSON.stringify(problemBody(error, requestId)));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/metrics") return sendProblem(res, new ApiError("not_found", "This address serves only /metrics."));
    if (req.method !== "GET" && req.method !== "HEAD") {
      // as the API's port answers a method a route does not take
      return sendProblem(res, new ApiError("not_found", "/metrics answers GET and HEAD only."));
    }
    if (!authorized(req.headers.authorization)) return sendProblem(res, metricsUnauthenticated());
    const text = options.metrics === undefined ? "" : await options.metrics.render();
    res.writeHead(200, { "content-type": options.metrics?.contentType ?? "text/plain; version=0.0.4; charset=utf-8" });
    res.end(req.method === "HEAD" ? undefined : text);
  };
  const server = createServer((req, res) => {
    // The body of a request is never read: drain it so the connection can be reused.
    req.resume();
    handle(req, res).catch((error: unknown) => {
      options.logger.error({ err: error }, "metrics listener: rendering failed");
      if (!res.headersSent) sendProblem(res, new ApiError("internal_error", "The metrics could not be rendered."));
      else res.destroy();
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    address: server.address() as AddressInfo,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
