import { cssSelectorError, isDriftwatchError, type MonitorPatch } from "@driftwatch/core";
import {
  CheckResultSchema,
  MonitorCreateSchema,
  MonitorListQuerySchema,
  MonitorSchema,
  MonitorUpdateSchema,
  pageSchema,
  type Contract,
  type MonitorType,
} from "@driftwatch/schema";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { authOf } from "../http/auth.js";
import { withIdempotency } from "../http/idempotency.js";
import { ApiError, notFound } from "../http/problem.js";
import { optionalBody } from "../http/validation.js";
import type { AppDependencies } from "../types.js";
import { assertSafeUrl, MonitorParams, pageOf, problems, security } from "./common.js";
import { assertKnownSecrets } from "./browser.js";
import { isCredentialHeader, MASK, mergeMaskedHeaders, presentDiff, presentMonitor, presentSnapshot } from "./present.js";

const IdempotencyHeaders = z.object({
  "idempotency-key": z.string().optional().describe("Repeating a create with the same key (24 h) returns the first response."),
});

function browserOptionsRefused(type: MonitorType): ApiError {
  return new ApiError("invalid_browser_options", `browserOptions is only accepted for website monitors; this is an ${type} monitor.`, {
    errors: [{ path: "browserOptions", message: "is only accepted for website monitors" }],
  });
}

/**
 * A contract names an OpenAPI document by URL (behind the SSRF guard) or by an `openapi` monitor
 * of the organization; only `api` monitors validate responses against one.
 */
async function assertContract(deps: AppDependencies, orgId: string, type: MonitorType, contract: Contract | null | undefined): Promise<void> {
  if (contract == null) return;
  if (type !== "api") {
    throw new ApiError("validation_failed", `contract is only accepted for api monitors; this is an ${type} monitor.`, {
      errors: [{ path: "contract", message: "is only accepted for api monitors" }],
    });
  }
  if (typeof contract.document === "string") {
    await assertSafeUrl(deps.urlGuard, contract.document, "contract.document");
    return;
  }
  const source = await deps.store.getMonitor(orgId, contract.document.monitorId);
  if (source === null || source.type !== "openapi") {
    throw new ApiError("validation_failed", "contract.document.monitorId must name an openapi monitor of this organization.", {
      errors: [{ path: "contract.document.monitorId", message: source === null ? "no such monitor" : `is ${source.type === "api" ? "an" : "a"} ${source.type} monitor, not an openapi monitor` }],
    });
  }
}

/** A readable default name: host and path of the URL. */
function defaultName(url: string): string {
  const u = new URL(url);
  return (u.host + (u.pathname === "/" ? "" : u.pathname)).slice(0, 200);
}

/**
 * A failed check now. An unsafe target URL is the caller's input (422 `unsafe_url`); every other
 * failure is the target's (FetchError: dns_failure, connection_failed, timeout, too_large,
 * too_many_redirects, browser_failed; CheckError: bad_status, invalid_body, diff_failed) and
 * answers 502 with `code: unavailable` and that code in the `reason` extension member. The
 * failure is also recorded on the monitor (lastError, consecutiveFailures, state).
 */
function checkFailure(error: unknown): ApiError | null {
  if (!isDriftwatchError(error) || (error.name !== "FetchError" && error.name !== "CheckError")) return null;
  if (error.code === "unsafe_url") {
    return new ApiError("unsafe_url", `The monitor URL is refused by the SSRF guard: ${error.message}`, {
      errors: [{ path: "url", message: error.message }],
    });
  }
  if (error.code === "invalid_url") {
    return new ApiError("validation_failed", `The monitor URL cannot be fetched: ${error.message}`, { errors: [{ path: "url", message: error.message }] });
  }
  // A failed browser step also names the step: { index, action, selector }.
  const step = (error as { step?: unknown }).step;
  return new ApiError("unavailable", `The check failed (${error.code}): ${error.message}`, {
    status: 502,
    title: "Target check failed",
    extensions: { reason: error.code, ...(step === undefined ? {} : { step }) },
  });
}

/** Connection-level headers a monitor cannot set: the fetcher manages them (RFC 9110 7.6.1). */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "host", "content-length"]);
/** RFC 9110 token characters: a valid field name. */
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Control characters other than horizontal tab (CR and LF included) cannot appear in a field value. */
// eslint-disable-next-line no-control-regex
const BAD_FIELD_VALUE = /[\u0000-\u0008\u000a-\u001f\u007f]/;
/** A field value is bytes: a character past U+00FF (`€`, an emoji) cannot be sent at all. */
const NOT_LATIN1 = /[^\u0000-\u00ff]/;

/**
 * Refuses request headers a monitor cannot send: names that are not RFC 9110 tokens, values with
 * CR, LF or other control characters (header injection) or with characters past U+00FF (no HTTP
 * client can send them: every check would fail), hop-by-hop headers, and the mask `***` for a
 * credential header the monitor does not store (`stored`: the monitor's headers on update). `422
 * validation_failed` names each offending header.
 */
function assertSendableHeaders(headers: Record<string, string> | undefined, stored: Record<string, string> = {}): void {
  if (headers === undefined) return;
  const errors: { path: string; message: string }[] = [];
  const storedNames = new Set(Object.keys(stored).map((name) => name.toLowerCase()));
  for (const [name, value] of Object.entries(headers)) {
    const path = `headers.${name}`;
    // "***" keeps a stored credential; with none stored it would be sent as the credential itself
    if (value === MASK && isCredentialHeader(name) && !storedNames.has(name.toLowerCase())) {
      errors.push({ path, message: `is "${MASK}", the masked form of a stored value, but this monitor stores none for it: send the real value` });
      continue;
    }
    if (!FIELD_NAME.test(name)) errors.push({ path, message: "is not a valid header name" });
    else if (HOP_BY_HOP.has(name.toLowerCase())) errors.push({ path, message: "is a hop-by-hop header the fetcher manages; it cannot be set" });
    if (BAD_FIELD_VALUE.test(value)) errors.push({ path, message: "must not contain CR, LF or other control characters" });
    else if (NOT_LATIN1.test(value)) errors.push({ path, message: "must contain only characters up to U+00FF (encode others, e.g. percent-encoded UTF-8)" });
  }
  if (errors.length > 0) throw new ApiError("validation_failed", "Some request headers cannot be sent; see errors.", { errors });
}

/** A website monitor's selector scopes the page comparison: it must be CSS the diff can use. */
function assertPageSelector(type: string, selector: string | null | undefined): void {
  if (type !== "website" || selector === null || selector === undefined) return;
  const message = cssSelectorError(selector);
  if (message !== null) throw new ApiError("validation_failed", `The request body is invalid: selector is ${message}.`, { errors: [{ path: "selector", message }] });
}

export function registerMonitorRoutes(app: FastifyInstance, deps: AppDependencies, now: () => Date): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { store } = deps;
  const tags = ["monitors"];

  r.post(
    "/api/monitors",
    {
      config: { scope: "monitors:write" },
      schema: {
        tags,
        security,
        summary: "Create a monitor",
        description:
          "browserOptions only for website monitors; contract only for api monitors (an OpenAPI document URL or an openapi monitor, and an operation). " +
          "type openapi watches an OpenAPI 3.0/3.1 document: its diffs are API changes. Honours Idempotency-Key for 24 hours.",
        headers: IdempotencyHeaders,
        body: MonitorCreateSchema,
        response: { 201: MonitorSchema, ...problems(409, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const { orgId } = authOf(request);
      const body = request.body;
      return withIdempotency(store, request, reply, orgId, now(), async () => {
        if (body.browserOptions != null && body.type !== "website") throw browserOptionsRefused(body.type);
        assertSendableHeaders(body.headers);
        assertPageSelector(body.type, body.selector);
        await assertSafeUrl(deps.urlGuard, body.url);
        await assertKnownSecrets(store, orgId, body.browserOptions?.steps);
        await assertContract(deps, orgId, body.type, body.contract);
        const at = now().toISOString();
        // A new monitor learns its target's noise when its organization says so (the default).
        const org = await store.getOrganization(orgId);
        const monitor = await store.createMonitor(orgId, {
          type: body.type,
          name: body.name ?? defaultName(body.url),
          url: body.url,
          method: body.method,
          headers: body.headers,
          body: body.body,
          intervalSeconds: body.intervalSeconds,
          selector: body.selector,
          browserOptionsJson: body.browserOptions ?? null,
          tags: body.tags,
          contract: body.contract,
          state: body.state,
          nextCheckAt: body.state === "active" ? at : null,
          autoApplySuggestions: org?.learnNoiseByDefault ?? true,
          learning: org?.learningDefaults ?? null,
        });
        return { status: 201, body: presentMonitor(monitor) };
      });
    },
  );

  r.get(
    "/api/monitors",
    {
      config: { scope: "monitors:read" },
      schema: {
        tags,
        security,
        summary: "List monitors",
        description: "Newest first. `tag` keeps the monitors that have that tag (a tag no monitor has gives an empty page).",
        querystring: MonitorListQuerySchema,
        response: { 200: pageSchema(MonitorSchema), ...problems() },
      },
    },
    async (request) => {
      const page = await store.listMonitors(authOf(request).orgId, { ...pageOf(request.query), tag: request.query.tag });
      return { data: page.data.map(presentMonitor), nextCursor: page.nextCursor };
    },
  );

  r.get(
    "/api/monitors/:id",
    {
      config: { scope: "monitors:read" },
      schema: { tags, security, summary: "Get a monitor", params: MonitorParams, response: { 200: MonitorSchema, ...problems(404) } },
    },
    async (request) => {
      const monitor = await store.getMonitor(authOf(request).orgId, request.params.id);
      if (monitor === null) throw notFound("monitor");
      return presentMonitor(monitor);
    },
  );

  r.patch(
    "/api/monitors/:id",
    {
      config: { scope: "monitors:write" },
      schema: {
        tags,
        security,
        summary: "Update a monitor",
        description: "Accepts browserOptions (website monitors; null turns browser rendering off) and state (active or paused).",
        params: MonitorParams,
        body: MonitorUpdateSchema,
        response: { 200: MonitorSchema, ...problems(404, 413, 415, 422) },
      },
    },
    async (request) => {
      const { orgId } = authOf(request);
      const current = await store.getMonitor(orgId, request.params.id);
      if (current === null) throw notFound("monitor");
      const body = request.body;
      if (body.browserOptions != null && current.type !== "website") throw browserOptionsRefused(current.type);
      assertPageSelector(current.type, body.selector);
      if (body.url !== undefined && body.url !== current.url) await assertSafeUrl(deps.urlGuard, body.url);
      await assertKnownSecrets(store, orgId, body.browserOptions?.steps);
      await assertContract(deps, orgId, current.type, body.contract);
      const at = now().toISOString();
      const patch: MonitorPatch = { updatedAt: at };
      if (body.name !== undefined) patch.name = body.name;
      if (body.url !== undefined) patch.url = body.url;
      if (body.method !== undefined) patch.method = body.method;
      if (body.headers !== undefined) {
        assertSendableHeaders(body.headers, current.headers);
        patch.headers = mergeMaskedHeaders(body.headers, current.headers);
      }
      if (body.body !== undefined) patch.body = body.body;
      if (body.intervalSeconds !== undefined) patch.intervalSeconds = body.intervalSeconds;
      if (body.selector !== undefined) patch.selector = body.selector;
      if (body.browserOptions !== undefined) patch.browserOptionsJson = body.browserOptions;
      if (body.tags !== undefined) patch.tags = body.tags;
      if (body.contract !== undefined) patch.contract = body.contract;
      // A new target (URL, method, request body or a website's selector): what was learned about
      // the old one's noise no longer applies, the noise profile learns again from here.
      if (
        (patch.url !== undefined && patch.url !== current.url) ||
        (patch.method !== undefined && patch.method !== current.method) ||
        (patch.body !== undefined && patch.body !== current.body) ||
        (patch.selector !== undefined && patch.selector !== current.selector)
      ) {
        patch.learningSince = at;
      }
      if (body.state === "paused" && current.state !== "paused") patch.state = "paused";
      if (body.state === "active" && current.state === "paused") {
        // resuming: due now; a failing monitor stays failing until a check succeeds
        patch.state = "active";
        patch.nextCheckAt = at;
      }
      const updated = await store.updateMonitor(orgId, current.id, patch);
      if (updated === null) throw notFound("monitor");
      return presentMonitor(updated);
    },
  );

  r.delete(
    "/api/monitors/:id",
    {
      config: { scope: "monitors:write" },
      schema: { tags, security, summary: "Delete a monitor with its snapshots, diffs and settings", params: MonitorParams, response: { 204: z.null(), ...problems(404) } },
    },
    async (request, reply) => {
      const { orgId } = authOf(request);
      const deleted = await store.deleteMonitor(orgId, request.params.id);
      if (!deleted) throw notFound("monitor");
      // The store's screenshots went with the snapshots; files of a screenshot directory go now.
      if (deps.screenshots !== undefined) await deps.screenshots.deleteMonitorScreenshots(orgId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  r.post(
    "/api/monitors/:id/check",
    {
      config: { scope: "monitors:write" },
      schema: {
        tags,
        security,
        summary: "Check a monitor now",
        description:
          "Fetches, diffs and records now. 200 { snapshot, diff | null }. A target that cannot be fetched or answers badly is 502 with code " +
          "unavailable and the failure in reason (timeout, dns_failure, bad_status, invalid_body, ...); a URL the SSRF guard refuses is 422 unsafe_url.",
        params: MonitorParams,
        body: optionalBody(z.strictObject({})),
        response: { 200: CheckResultSchema, ...problems(404, 422, 502) },
      },
    },
    async (request) => {
      const { orgId } = authOf(request);
      let result;
      try {
        result = await deps.checks.checkNow(orgId, request.params.id, { requestId: request.id });
      } catch (error) {
        const problem = checkFailure(error);
        if (problem !== null) throw problem;
        throw error;
      }
      if (result === null) throw notFound("monitor");
      return { snapshot: presentSnapshot(result.snapshot, false), diff: result.diff === null ? null : presentDiff(result.diff) };
    },
  );
}
