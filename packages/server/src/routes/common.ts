import { isDriftwatchError } from "@driftwatch/core";
import { idSchema, ProblemSchema } from "@driftwatch/schema";
import { z } from "zod";
import { ApiError } from "../http/problem.js";
import type { UrlGuard } from "@driftwatch/engine";

/** Path parameter schemas; a malformed id answers 404 (see validationProblem). */
export const MonitorParams = z.strictObject({ id: idSchema("monitor") });
export const WebhookParams = z.strictObject({ id: idSchema("webhook") });
export const TokenParams = z.strictObject({ id: idSchema("token") });


/** Problem responses a route documents in OpenAPI, by status. */
export function problems(...statuses: number[]): Record<number, typeof ProblemSchema> {
  const base = [400, 401, 403, 429, 500];
  const out: Record<number, typeof ProblemSchema> = {};
  for (const status of [...base, ...statuses]) out[status] = ProblemSchema;
  return out;
}

/** Authenticated routes: an API token, or a browser session (writes with the CSRF header). */
export const security: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { cookieAuth: [] }];

/**
 * Checks a monitor or webhook URL with the SSRF guard: a refused URL is `422 unsafe_url` naming
 * the field, an unusable one `422 validation_failed`. A host that does not resolve right now is
 * accepted: the guard checks the resolved address again on every connection the fetcher or the
 * delivery worker opens, so nothing unsafe is reached later either.
 */
export async function assertSafeUrl(guard: UrlGuard, url: string, field = "url"): Promise<void> {
  try {
    await guard.assertSafeUrl(url);
  } catch (error) {
    if (!isDriftwatchError(error)) throw error;
    if (error.code === "unsafe_url" || error.code === "invalid_url") {
      const code = error.code === "invalid_url" ? "validation_failed" : "unsafe_url";
      throw new ApiError(code, `The ${field} is refused: ${error.message}`, { errors: [{ path: field, message: error.message }] });
    }
    if (error.code === "dns_failure" || error.code === "timeout" || error.code === "connection_failed") return;
    throw error;
  }
}

/** Page request from the validated query. */
export function pageOf(query: { limit: number; cursor?: string | undefined }): { limit: number; cursor: string | null } {
  return { limit: query.limit, cursor: query.cursor ?? null };
}
