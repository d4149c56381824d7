import { createHash } from "node:crypto";
import type { Store } from "@driftwatch/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { IDEMPOTENCY_TTL_MS } from "../config/limits.js";
import { ApiError } from "./problem.js";

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** JSON with object keys sorted, so equal bodies hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/** What a key is bound to: the endpoint (method + route template) and the validated body. */
export function idempotencyRequestHash(endpoint: string, body: unknown): string {
  return "sha256:" + createHash("sha256").update(`${endpoint}\n${canonicalJson(body)}`, "utf8").digest("hex");
}

export interface IdempotentResult {
  status: number;
  body: unknown;
  /**
   * What a replay answers instead of `body` (default: `body`): a response carrying a secret
   * (a webhook's signing secret) is stored and replayed without it, so the secret is shown once.
   */
  replayBody?: unknown;
}

/**
 * `Location` of a resource a collection's POST created (RFC 9110 15.3.2): the collection's path
 * and the new resource's `id`, e.g. `/api/monitors/mon_...`. Nothing when the answer is not a
 * `201` with an `id`.
 */
export function createdLocation(request: FastifyRequest, status: number, body: unknown): string | undefined {
  if (status !== 201 || body === null || typeof body !== "object") return undefined;
  const id = (body as { id?: unknown }).id;
  const collection = request.routeOptions.url;
  if (typeof id !== "string" || collection === undefined) return undefined;
  return `${collection.replace(/\/+$/, "")}/${encodeURIComponent(id)}`;
}

function withLocation(reply: FastifyReply, location: string | undefined): FastifyReply {
  return location === undefined ? reply : reply.header("location", location);
}

/**
 * Runs `create` at most once per `Idempotency-Key` (per organization, 24 h): a repeat with the
 * same body gets the first response again (header `idempotent-replayed: true`); a repeat with
 * another body is `409 idempotency_key_reused`; a repeat while the first is still running is
 * `409 conflict`. A request that fails is forgotten, so its retry runs again. Without the header,
 * `create` simply runs. A `201` (first answer or replay) carries `Location`, see {@link createdLocation}.
 */
export async function withIdempotency(
  store: Store,
  request: FastifyRequest,
  reply: FastifyReply,
  orgId: string,
  now: Date,
  create: () => Promise<IdempotentResult>,
): Promise<FastifyReply> {
  const header = request.headers["idempotency-key"];
  if (header === undefined) {
    const result = await create();
    return withLocation(reply, createdLocation(request, result.status, result.body)).code(result.status).send(result.body);
  }
  const key = Array.isArray(header) ? header[0] : header;
  if (key === undefined || !KEY_PATTERN.test(key) || Array.isArray(header)) {
    throw new ApiError("invalid_request", "Idempotency-Key must be one value of 1 to 255 visible ASCII characters.", {
      errors: [{ path: "Idempotency-Key", message: "is malformed" }],
    });
  }
  const requestHash = idempotencyRequestHash(`${request.method} ${request.routeOptions.url ?? request.url}`, request.body);
  const claim = await store.claimIdempotencyKey(orgId, {
    key,
    requestHash,
    now: now.toISOString(),
    expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
  });
  if (claim.state === "existing") {
    if (claim.requestHash !== requestHash) {
      throw new ApiError("idempotency_key_reused", "This Idempotency-Key was already used with a different request; use a new key.");
    }
    if (claim.response === null) {
      throw new ApiError("conflict", "A request with this Idempotency-Key is still being processed; retry shortly.", {
        headers: { "retry-after": "1" },
      });
    }
    let replayed: unknown = null;
    try {
      replayed = JSON.parse(claim.response.body);
    } catch {
      // a stored body that is not JSON names no resource
    }
    return withLocation(reply, createdLocation(request, claim.response.status, replayed))
      .code(claim.response.status)
      .header("idempotent-replayed", "true")
      .type("application/json; charset=utf-8")
      .send(claim.response.body);
  }
  let result: IdempotentResult;
  try {
    result = await create();
  } catch (error) {
    await store.releaseIdempotencyKey(orgId, key).catch((releaseError: unknown) => {
      request.log.warn({ err: releaseError }, "could not release an idempotency key");
    });
    throw error;
  }
  const body = JSON.stringify(result.body);
  const stored = result.replayBody === undefined ? body : JSON.stringify(result.replayBody);
  await store.completeIdempotencyKey(orgId, key, { status: result.status, body: stored });
  return withLocation(reply, createdLocation(request, result.status, result.body))
    .code(result.status).type("application/json; charset=utf-8").send(body);
}
