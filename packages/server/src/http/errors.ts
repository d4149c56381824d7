import { isDriftwatchError } from "@driftwatch/core";
import { isPeopleError } from "@driftwatch/people";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ApiError, isApiError, problemBody, PROBLEM_CONTENT_TYPE } from "./problem.js";

/**
 * Maps anything a route, hook or Fastify itself throws to an `ApiError`. Unknown errors become
 * `internal_error` with a generic detail: no stack traces or internals leave the process.
 */
export function toApiError(error: unknown): ApiError {
  if (isApiError(error)) return error;
  // The people domain refuses with the API's own codes: the same problem, status and headers.
  if (isPeopleError(error)) return new ApiError(error.code, error.message, { errors: error.errors, headers: error.headers, cause: error.cause });
  const fastifyCode = typeof (error as FastifyError | undefined)?.code === "string" ? (error as FastifyError).code : undefined;
  switch (fastifyCode) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new ApiError("payload_too_large", "The request body is larger than this server accepts.");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new ApiError("unsupported_media_type", "Request bodies must be JSON, sent with Content-Type: application/json.");
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new ApiError("invalid_json", "The request says Content-Type: application/json but its body is empty.");
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return new ApiError("invalid_json", "The request body is not valid JSON.");
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return new ApiError("invalid_request", "The Content-Length header does not match the body.");
    case "FST_ERR_MAX_PARAM_LENGTH":
      // No id is that long (ids are at most 100 characters): nothing can exist at this URL.
      return new ApiError("not_found", "No resource with this id exists.");
    case "FST_ERR_BAD_URL":
    case "FST_ERR_ASYNC_CONSTRAINT":
      return new ApiError("invalid_request", "The request URL is malformed.");
    case "FST_ERR_CTP_INVALID_TYPE":
    case "FST_ERR_CTP_INVALID_HEADER":
      return new ApiError("unsupported_media_type", "The Content-Type header is not a valid media type.");
    default:
      break;
  }
  if (error instanceof SyntaxError && (error as FastifyError).statusCode === 400) {
    return new ApiError("invalid_json", "The request body is not valid JSON.");
  }
  if (isDriftwatchError(error)) {
    switch (error.code) {
      case "invalid_cursor":
        return new ApiError("invalid_request", "The cursor is not one this API issued.", { errors: [{ path: "cursor", message: "is not a valid cursor" }] });
      case "not_found":
        return new ApiError("not_found", "No resource with this id exists.");
      case "conflict":
        return new ApiError("conflict", "The request conflicts with the current state of the resource.");
      case "last_owner":
        return new ApiError("last_owner", "The organization's only owner cannot leave or be demoted: make another member owner first.");
      case "stale_snapshot":
        return new ApiError("conflict", "The monitor was checked concurrently by another process; retry the request.");
      case "invalid_policy_rules":
        return new ApiError("invalid_policy_rules", "policyRules is invalid; see errors for each offending rule and field.", {
          errors: error.details.map((d) => ({ path: d.path.startsWith("policyRules") ? d.path : `policyRules.${d.path}`, message: d.message })),
        });
      case "invalid_track":
        return new ApiError("invalid_track", `track is invalid: ${error.message}`, {
          errors: error.details.map((d) => ({ path: d.path, message: d.message })),
        });
      case "invalid_conditions":
        return new ApiError("invalid_conditions", `alert is invalid: ${error.message}`, {
          errors: error.details.map((d) => ({ path: d.path, message: d.message })),
        });
      case "store_unavailable":
      case "store_closed":
        return new ApiError("unavailable", "The service is temporarily unavailable; retry shortly.", { headers: { "retry-after": "1" } });
      default:
        break;
    }
  }
  const status = (error as FastifyError | undefined)?.statusCode;
  if (typeof status === "number" && status === 404) return new ApiError("not_found", "Not found.");
  if (typeof status === "number" && status === 503) return new ApiError("unavailable", "The service is temporarily unavailable; retry shortly.");
  return new ApiError("internal_error", "An unexpected error occurred. Quote the requestId when reporting it.", { cause: error });
}

export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problemBody(error, request.id)));
}

/**
 * Answers an error with its problem, logged: a 5xx at error level with the error, a refusal at info.
 * Used by the error handler and by Fastify's `frameworkErrors` (errors before routing).
 */
export function answerError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const problem = toApiError(error);
  if (problem.status >= 500) request.log.error({ err: error, code: problem.code }, "request failed");
  else request.log.info({ code: problem.code, status: problem.status }, "request refused");
  return sendProblem(request, reply, problem);
}

/** Installs the error handler and the not-found handler (both answer problems). */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => answerError(error, request, reply));
  app.setNotFoundHandler((request, reply) => {
    return sendProblem(request, reply, new ApiError("not_found", `No route ${request.method} ${request.url.split("?")[0]}.`));
  });
}
