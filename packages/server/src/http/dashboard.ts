import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "./problem.js";

/**
 * The Content-Security-Policy of every dashboard response: scripts, styles and connections only
 * from this origin, no inline script, no eval, no plugins, not framable. (React sets inline
 * `style` attributes through the CSSOM, which `style-src 'self'` allows.)
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy": DASHBOARD_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
};

const IMMUTABLE = "public, max-age=31536000, immutable";
const NO_CACHE = "no-cache";

/**
 * Where the built dashboard is: `dir` when given, else the `dist` folder of an installed
 * `@driftwatch/dashboard` package. Null when there is none with an `index.html` (not installed or
 * not built): the server then answers `/` with a page saying how to build it.
 */
export function resolveDashboardDir(dir?: string | null): string | null {
  if (dir === null) return null;
  let candidate = dir;
  if (candidate === undefined) {
    try {
      const require = createRequire(import.meta.url);
      candidate = path.join(path.dirname(require.resolve("@driftwatch/dashboard/package.json")), "dist");
    } catch {
      return null;
    }
  }
  return existsSync(path.join(candidate, "index.html")) ? path.resolve(candidate) : null;
}

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>driftwatch</title></head>
<body><main><h1>driftwatch is running; the dashboard is not built</h1>
<p>The API works: see <a href="/api/openapi.json">/api/openapi.json</a>.</p>
<p>To serve the dashboard here, build it (<code>npm run build -w @driftwatch/dashboard</code>, or
<code>npm start</code> from the repository root) or install <code>@driftwatch/dashboard</code> next to
<code>@driftwatch/server</code>, then restart the server.</p></main></body></html>
`;

/** The API's 404 problem, answered (and logged) by the app's error handler as for any unknown route. */
function notFound(request: FastifyRequest): never {
  throw new ApiError("not_found", `No route ${request.method} ${request.url.split("?")[0] ?? ""}.`);
}

function isApiPath(url: string): boolean {
  return url === "/api" || url.startsWith("/api/") || url.startsWith("/api?");
}

/**
 * Serves the dashboard's static files at `/`: hashed files under `/assets/` with immutable cache
 * headers, other files and every other non-API path (the single-page app's routes) with
 * `index.html`, revalidated on every load. Every answer carries the strict CSP. Paths under
 * `/api` stay the API's (unknown ones are its 404 problem).
 */
export async function registerDashboard(app: FastifyInstance, dir: string | null): Promise<void> {
  const send = (reply: FastifyReply): FastifyReply => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
    return reply;
  };

  if (dir === null) {
    // only `/` explains; other paths stay the API's 404
    app.get("/", { schema: { hide: true } }, async (_request, reply) =>
      send(reply).code(404).header("cache-control", NO_CACHE).type("text/html; charset=utf-8").send(NOT_BUILT),
    );
    return;
  }

  await app.register(fastifyStatic, { root: dir, serve: false, dotfiles: "deny", index: false, etag: true, lastModified: true });

  const serveFile = (reply: FastifyReply, file: string, cacheControl: string): FastifyReply =>
    send(reply).header("cache-control", cacheControl).sendFile(file, dir, { cacheControl: false });

  const fileExists = (relative: string): boolean => {
    const full = path.join(dir, relative);
    if (!full.startsWith(dir + path.sep)) return false;
    try {
      return statSync(full).isFile();
    } catch {
      return false;
    }
  };

  const serve = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    if (isApiPath(request.url)) return notFound(request);
    let pathname: string;
    try {
      pathname = decodeURIComponent(new URL(request.url, "http://dashboard.invalid").pathname);
    } catch {
      return notFound(request);
    }
    const relative = pathname.replace(/^\/+/, "");
    // no dotfiles, no parent segments: never anything outside the built files
    if (relative.split("/").some((segment) => segment.startsWith("."))) return notFound(request);
    if (relative.startsWith("assets/")) {
      // hashed names: a missing one is a 404 (an old tab asking for last release's chunk), never index.html
      if (!fileExists(relative)) return notFound(request);
      return serveFile(reply, relative, IMMUTABLE);
    }
    if (relative !== "" && relative !== "index.html" && fileExists(relative)) return serveFile(reply, relative, NO_CACHE);
    // a file-like path that does not exist is a 404, not the app
    if (/\.[a-z0-9]{1,8}$/i.test(relative)) return notFound(request);
    return serveFile(reply, "index.html", NO_CACHE);
  };
  app.get("/", { schema: { hide: true } }, serve);
  app.get("/*", { schema: { hide: true } }, serve);
}
