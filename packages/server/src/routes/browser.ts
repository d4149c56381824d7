import { createSecretResolver, isDriftwatchError, MAX_SECRETS_PER_ORGANIZATION, newId, secretContext, type BrowserStep, type FetchScreenshot, type SecretRecord, type Store } from "@driftwatch/core";
import type { BrowserFetcher, StepOutcome } from "@driftwatch/fetcher-browser";
import {
  BrowserRunRequestSchema,
  idSchema,
  InspectResultSchema,
  SecretCreateSchema,
  SecretListSchema,
  SecretSchema,
  StepsRunResultSchema,
  type BrowserOptions,
  type Secret,
  type StepsRunResult,
} from "@driftwatch/schema";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { requireSecretBox } from "../config/secret-key.js";
import { authOf, type AuthContext } from "../http/auth.js";
import { ApiError, notFound } from "../http/problem.js";
import { actorOf } from "../people/context.js";
import type { AppDependencies } from "../types.js";
import { assertSafeUrl, problems, security } from "./common.js";

const SecretParams = z.strictObject({ id: idSchema("secret") });
const ScreenshotParams = z.strictObject({ id: idSchema("monitor"), snapshotId: idSchema("snapshot") });

function presentSecret(record: SecretRecord): Secret {
  return { id: record.id, name: record.name, createdAt: record.createdAt };
}

function dataUrl(shot: FetchScreenshot): string {
  return `data:${shot.type};base64,${Buffer.from(shot.data.buffer, shot.data.byteOffset, shot.data.byteLength).toString("base64")}`;
}

/**
 * Refuses steps that name a secret the organization does not have: `422 unknown_secret` naming
 * each such step (monitors are saved with names only; values are resolved when a check runs).
 */
export async function assertKnownSecrets(store: Store, orgId: string, steps: readonly BrowserStep[] | undefined, field = "browserOptions"): Promise<void> {
  if (steps === undefined) return;
  const errors: { path: string; message: string }[] = [];
  const known = new Map<string, boolean>();
  for (const [index, step] of steps.entries()) {
    if (step.secret === undefined) continue;
    let exists = known.get(step.secret);
    if (exists === undefined) {
      exists = (await store.getSecretByName(orgId, step.secret)) !== null;
      known.set(step.secret, exists);
    }
    if (!exists) errors.push({ path: `${field}.steps[${String(index)}].secret`, message: `no secret named ${JSON.stringify(step.secret)} in this organization (POST /api/secrets)` });
  }
  if (errors.length > 0) throw new ApiError("unknown_secret", "A browser step names a secret this organization does not have; see errors.", { errors });
}

/** A render's failure as the dry run and the inspection answer it (a failed step is the dry run's result, not an error). */
function renderFailure(error: unknown): ApiError | null {
  if (!isDriftwatchError(error) || error.name !== "FetchError") return null;
  if (error.code === "unsafe_url") return new ApiError("unsafe_url", `The URL is refused by the SSRF guard: ${error.message}`, { errors: [{ path: "url", message: error.message }] });
  if (error.code === "invalid_url") return new ApiError("validation_failed", `The URL cannot be fetched: ${error.message}`, { errors: [{ path: "url", message: error.message }] });
  if (error.code === "browser_failed" && /Invalid browserOptions/.test(error.message)) {
    return new ApiError("invalid_browser_options", error.message, { errors: [{ path: "browserOptions", message: error.message }] });
  }
  return new ApiError("unavailable", `The render failed (${error.code}): ${error.message}`, { status: 502, title: "Target render failed", extensions: { reason: error.code } });
}

async function writeAudit(store: Store, request: FastifyRequest, auth: AuthContext, action: "secret.created" | "secret.deleted", targetId: string, data: Record<string, unknown>): Promise<void> {
  try {
    await store.appendAudit(auth.orgId, { ...actorOf(auth), action, targetId, data, ip: request.ip, at: new Date().toISOString() });
  } catch (error) {
    request.log.error({ err: error, action }, "could not write the audit entry");
  }
}

/**
 * Stored secrets (`/api/secrets`), a snapshot's screenshot, and the browser tools for building a
 * website monitor: the steps' dry run (`POST /api/monitors/steps/run`) and the page inspection
 * (`POST /api/monitors/inspect`). The tools render in the server's browser fetcher (its
 * concurrency, its SSRF guard on every request) and are rate limited as expensive calls.
 */
export function registerBrowserRoutes(app: FastifyInstance, deps: AppDependencies, now: () => Date): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { store } = deps;
  const resolver = createSecretResolver(store, deps.secrets?.box ?? null);

  r.get(
    "/api/monitors/:id/snapshots/:snapshotId/screenshot",
    {
      config: { scope: "monitors:read" },
      schema: {
        tags: ["monitors"],
        security,
        summary: "The screenshot taken with a snapshot (image/png or image/webp)",
        description: "Website monitors rendered with browserOptions.screenshot keep one screenshot per snapshot (with the snapshot's retention). 404 when the snapshot has none.",
        params: ScreenshotParams,
        response: { 200: z.any().describe("The image (image/png or image/webp)"), ...problems(404) },
      },
    },
    async (request, reply) => {
      const { orgId } = authOf(request);
      const shot = await (deps.screenshots ?? store).getScreenshot(orgId, request.params.id, request.params.snapshotId);
      if (shot === null) throw notFound("screenshot");
      const body = Buffer.from(shot.data.buffer, shot.data.byteOffset, shot.data.byteLength);
      return reply
        .type(shot.type)
        .header("cache-control", "private, max-age=86400, immutable")
        .header("x-content-type-options", "nosniff")
        .header("x-screenshot-size", `${String(shot.width)}x${String(shot.height)}`)
        .send(body);
    },
  );

  r.get(
    "/api/monitors/:id/failure-screenshot",
    {
      config: { scope: "monitors:read" },
      schema: {
        tags: ["monitors"],
        security,
        summary: "The page when the monitor's latest failed browser step failed (image/png)",
        description:
          "Kept when a check fails with reason browser_step_failed (the latest one only). Headers x-failed-step-index and x-failed-step-action name the step, " +
          "x-taken-at when it failed. 404 when no step of the monitor has failed.",
        params: z.strictObject({ id: idSchema("monitor") }),
        response: { 200: z.any().describe("The image (image/png or image/webp)"), ...problems(404) },
      },
    },
    async (request, reply) => {
      const { orgId } = authOf(request);
      const shot = await (deps.screenshots ?? store).getFailureScreenshot(orgId, request.params.id);
      if (shot === null) throw notFound("failure screenshot");
      return reply
        .type(shot.type)
        .header("cache-control", "private, no-cache")
        .header("x-content-type-options", "nosniff")
        .header("x-failed-step-index", String(shot.step.index))
        .header("x-failed-step-action", shot.step.action)
        .header("x-taken-at", shot.createdAt)
        .send(Buffer.from(shot.data.buffer, shot.data.byteOffset, shot.data.byteLength));
    },
  );

  r.post(
    "/api/secrets",
    {
      config: { scope: "monitors:write" },
      schema: {
        tags: ["secrets"],
        security,
        summary: "Store a secret for browser steps",
        description:
          'Steps refer to it with `"secret": "<name>"` instead of `value`. The value is sealed with the server key (AES-256-GCM) and never returned or logged. ' +
          "409 conflict when the name is taken; 503 secret_key_missing when the server has no key.",
        body: SecretCreateSchema,
        response: { 201: SecretSchema, ...problems(409, 413, 415, 422, 503) },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      const box = requireSecretBox(deps.secrets);
      const { name, value } = request.body;
      if ((await store.listSecrets(auth.orgId)).length >= MAX_SECRETS_PER_ORGANIZATION) {
        throw new ApiError("validation_failed", `An organization keeps at most ${String(MAX_SECRETS_PER_ORGANIZATION)} secrets; delete one first.`, {
          errors: [{ path: "name", message: `at most ${String(MAX_SECRETS_PER_ORGANIZATION)} secrets` }],
        });
      }
      const id = newId("secret");
      let record: SecretRecord;
      try {
        record = await store.createSecret(auth.orgId, {
          id,
          name,
          sealedValue: box.seal(value, secretContext(auth.orgId, id)),
          createdAt: now().toISOString(),
          createdBy: auth.userId,
        });
      } catch (error) {
        if (isDriftwatchError(error) && error.code === "conflict") {
          throw new ApiError("conflict", `A secret named ${JSON.stringify(name)} exists; delete it first to replace it.`, { errors: [{ path: "name", message: "is taken" }] });
        }
        throw error;
      }
      await writeAudit(store, request, auth, "secret.created", record.id, { name });
      return reply.code(201).send(presentSecret(record));
    },
  );

  r.get(
    "/api/secrets",
    {
      config: { scope: "monitors:read" },
      schema: { tags: ["secrets"], security, summary: "The organization's secrets, by name (never their values)", response: { 200: SecretListSchema, ...problems() } },
    },
    async (request) => ({ data: (await store.listSecrets(authOf(request).orgId)).map(presentSecret) }),
  );

  r.delete(
    "/api/secrets/:id",
    {
      config: { scope: "monitors:write" },
      schema: {
        tags: ["secrets"],
        security,
        summary: "Delete a secret",
        description: "Monitors whose steps name it fail those steps (browser_step_failed) until a secret of that name is stored again.",
        params: SecretParams,
        response: { 204: z.null(), ...problems(404) },
      },
    },
    async (request, reply) => {
      const auth = authOf(request);
      const existing = (await store.listSecrets(auth.orgId)).find((secret) => secret.id === request.params.id);
      if (existing === undefined || !(await store.deleteSecret(auth.orgId, request.params.id))) throw notFound("secret");
      await writeAudit(store, request, auth, "secret.deleted", existing.id, { name: existing.name });
      return reply.code(204).send(null);
    },
  );

  /** The browser fetcher, or 503 when this server renders nothing (an embedder passed a plain fetcher). */
  function browser(): Pick<BrowserFetcher, "fetchWith" | "inspect"> {
    if (deps.browser === undefined) throw new ApiError("unavailable", "This server has no browser fetcher for dry runs and inspections.", { status: 503 });
    return deps.browser;
  }

  const browserRunDescription =
    "Renders the URL in the server's browser (its concurrency; every request through the SSRF guard), steps included, and saves nothing. " +
    "Steps' secrets are resolved from the organization's stored secrets. Rate limited per caller and per organization (429 rate_limited).";

  r.post(
    "/api/monitors/steps/run",
    {
      config: { scope: "monitors:write", rateLimit: "expensive" },
      schema: {
        tags: ["monitors"],
        security,
        summary: "Dry run of browser steps",
        description: `${browserRunDescription} Answers each step run (ok, ms, error) up to the first that failed, and a screenshot (data URL) of the page at the end or at the failure.`,
        body: BrowserRunRequestSchema,
        response: { 200: StepsRunResultSchema, ...problems(413, 415, 422, 502, 503) },
      },
    },
    async (request): Promise<StepsRunResult> => {
      const { orgId } = authOf(request);
      const fetcher = browser();
      await assertSafeUrl(deps.urlGuard, request.body.url);
      const options = (request.body.browserOptions ?? {}) as BrowserOptions;
      await assertKnownSecrets(store, orgId, options.steps);
      const steps: StepOutcome[] = [];
      try {
        const response = await fetcher.fetchWith(
          {
            url: request.body.url,
            browserOptions: { ...options, screenshot: options.screenshot === undefined || options.screenshot === "off" ? "viewport" : options.screenshot },
            resolveSecret: (name) => resolver(orgId, name),
          },
          { onStep: (outcome) => steps.push(outcome) },
        );
        return { steps: steps.map(presentStep), screenshot: response.screenshot === undefined ? null : dataUrl(response.screenshot) };
      } catch (error) {
        if (isDriftwatchError(error) && error.name === "FetchError" && error.code === "browser_step_failed") {
          const shot = (error as { screenshot?: FetchScreenshot }).screenshot;
          return { steps: steps.map(presentStep), screenshot: shot === undefined ? null : dataUrl(shot) };
        }
        throw renderFailure(error) ?? error;
      }
    },
  );

  r.post(
    "/api/monitors/inspect",
    {
      config: { scope: "monitors:write", rateLimit: "expensive" },
      schema: {
        tags: ["monitors"],
        security,
        summary: "Inspect a page for the point-and-click selector",
        description: `${browserRunDescription} Answers the full-page screenshot (data URL), its size, and the visible block elements with a unique selector, their box on the screenshot and their text. A failed step is 502 with reason browser_step_failed and the step.`,
        body: BrowserRunRequestSchema,
        response: { 200: InspectResultSchema, ...problems(413, 415, 422, 502, 503) },
      },
    },
    async (request) => {
      const { orgId } = authOf(request);
      const fetcher = browser();
      await assertSafeUrl(deps.urlGuard, request.body.url);
      const options = (request.body.browserOptions ?? {}) as BrowserOptions;
      await assertKnownSecrets(store, orgId, options.steps);
      try {
        const result = await fetcher.inspect(request.body.url, options, { resolveSecret: (name) => resolver(orgId, name) });
        return { screenshot: dataUrl(result.screenshot), width: result.width, height: result.height, elements: result.elements };
      } catch (error) {
        if (isDriftwatchError(error) && error.name === "FetchError" && error.code === "browser_step_failed") {
          const step = (error as { step?: unknown }).step;
          throw new ApiError("unavailable", `The render failed (browser_step_failed): ${error.message}`, {
            status: 502,
            title: "Target render failed",
            extensions: { reason: "browser_step_failed", ...(step === undefined ? {} : { step }) },
          });
        }
        throw renderFailure(error) ?? error;
      }
    },
  );
}

function presentStep(outcome: StepOutcome): StepsRunResult["steps"][number] {
  return { index: outcome.index, action: outcome.action, ok: outcome.ok, ms: outcome.ms, ...(outcome.error === undefined ? {} : { error: outcome.error }) };
}
