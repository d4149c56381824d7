import { FetchError, type FetchErrorCode } from "@driftwatch/core";

const DNS_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "EAI_FAIL", "EAI_NODATA", "ENODATA"]);
const TIMEOUT_CODES = new Set(["ETIMEDOUT", "UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);
const INVALID_REQUEST_CODES = new Set(["UND_ERR_INVALID_ARG", "ERR_INVALID_URL", "ERR_INVALID_HTTP_TOKEN", "ERR_INVALID_CHAR"]);

/** True for a FetchError, also one from another copy of `@driftwatch/core`. */
export function isFetchError(error: unknown): error is FetchError {
  return error instanceof FetchError || (error instanceof Error && error.name === "FetchError" && typeof (error as { code?: unknown }).code === "string");
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** The error and its causes, outermost first (bounded: cause chains can be cyclic). */
function chain(error: unknown): unknown[] {
  const out: unknown[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && out.length < 8) {
    out.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return out;
}

/**
 * Maps what undici, Node's net/tls/dns and zlib throw to a typed `FetchError`. A FetchError
 * anywhere in the cause chain (the guard throws from inside the connector) wins.
 */
export function toFetchError(error: unknown, url: string): FetchError {
  const errors = chain(error);
  const inner = errors.find(isFetchError);
  if (inner !== undefined) return inner;
  let code: FetchErrorCode = "connection_failed";
  for (const e of errors) {
    const c = codeOf(e);
    if (c === undefined) continue;
    if (DNS_CODES.has(c)) code = "dns_failure";
    else if (TIMEOUT_CODES.has(c)) code = "timeout";
    else if (INVALID_REQUEST_CODES.has(c)) code = "invalid_url";
    else continue;
    break;
  }
  const message = error instanceof Error ? error.message : String(error);
  return new FetchError(code, `Fetching ${url} failed: ${message}`, { cause: error });
}
