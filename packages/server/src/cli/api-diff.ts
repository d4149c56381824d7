import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createHttpFetcher } from "@driftwatch/fetcher-http";
import { type ChangeLevel, DEFAULT_LIMITS, diffOpenApi, type DocumentLoader, isOpenApiError, LEVEL_ORDER, loadOpenApi, type OpenApiChange } from "@driftwatch/openapi";
import { ConfigError, parseArgs, parseBoolean } from "../config/index.js";
import { type CliIo, EXIT_ERROR } from "./io.js";

export const API_DIFF_USAGE = `Usage: driftwatch api-diff <base> <revision> [--format text|json] [--fail-on breaking|potentially-breaking|none]
                          [--allow-private-networks]

Compares two versions of an OpenAPI 3.0 or 3.1 document (files or http(s) URLs, JSON or YAML,
$refs to other files or URLs followed) and prints the API changes, breaking first, with oasdiff's
rule ids (docs/contracts.md lists them). --format json prints { "changes": [{ "id", "level",
"operation", "path", "message" }] }. URLs are fetched behind the SSRF guard (loopback and private
addresses refused unless --allow-private-networks).

Exit status: 1 when a change at or above --fail-on (default breaking) exists, 0 when none (or
--fail-on none), 2 when an input cannot be read or parsed (the reason on stderr).
`;

const FAIL_ON = ["breaking", "potentially-breaking", "none"] as const;

class InputError extends Error {}

/** `driftwatch api-diff`: exit 1 when a change at or above --fail-on exists, 0 when none, 2 on error. */
export async function runApiDiff(args: readonly string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs(args, {
      format: { type: "string" },
      "fail-on": { type: "string" },
      "allow-private-networks": { type: "boolean" },
      help: { type: "boolean" },
    });
  } catch (error) {
    return usageError(io, (error as ConfigError).message);
  }
  const o = parsed.options;
  if (o.help === true) {
    io.stdout(API_DIFF_USAGE);
    return 0;
  }
  if (parsed.positionals.length !== 2) return usageError(io, `api-diff needs a base and a revision (got ${parsed.positionals.length}).`);
  const format = o.format ?? "text";
  if (format !== "text" && format !== "json") return usageError(io, `--format is text or json (got ${JSON.stringify(format)}).`);
  const failOn = o["fail-on"] ?? "breaking";
  if (!(FAIL_ON as readonly unknown[]).includes(failOn)) return usageError(io, `--fail-on is breaking, potentially-breaking or none (got ${JSON.stringify(failOn)}).`);
  let allowPrivateNetworks: boolean;
  try {
    const env = io.env.DRIFTWATCH_ALLOW_PRIVATE_NETWORKS;
    allowPrivateNetworks = o["allow-private-networks"] === true || (env !== undefined && env !== "" && parseBoolean(env, "DRIFTWATCH_ALLOW_PRIVATE_NETWORKS"));
  } catch (error) {
    if (error instanceof ConfigError) return usageError(io, error.message);
    throw error;
  }

  const fetcher = createHttpFetcher({ allowPrivateNetworks, maxBodyBytes: DEFAULT_LIMITS.maxDocumentBytes });
  try {
    const [baseArg, revisionArg] = parsed.positionals as [string, string];
    const base = await load(io, baseArg, fetcher);
    const revision = await load(io, revisionArg, fetcher);
    const changes = diffOpenApi(base, revision);
    if (format === "json") io.stdout(JSON.stringify({ changes: changes.map(toJson) }, null, 2) + "\n");
    else io.stdout(formatChanges(changes));
    if (failOn === "none") return 0;
    const threshold = LEVEL_ORDER.indexOf(failOn as ChangeLevel);
    return changes.some((change) => LEVEL_ORDER.indexOf(change.level) >= threshold) ? 1 : 0;
  } catch (error) {
    if (error instanceof InputError) io.stderr(`driftwatch api-diff: ${error.message}\n`);
    else if (isOpenApiError(error)) io.stderr(`driftwatch api-diff: ${error.message} (${error.code})\n`);
    // anything else is still "could not compare": never exit 1, which would read as a breaking change
    else io.stderr(`driftwatch api-diff: could not compare the documents: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_ERROR;
  } finally {
    await fetcher.close();
  }
}

type HttpFetcher = ReturnType<typeof createHttpFetcher>;

async function load(io: CliIo, arg: string, fetcher: HttpFetcher) {
  const remote = /^https?:\/\//i.test(arg);
  let url: URL;
  try {
    url = remote ? new URL(arg) : pathToFileURL(path.resolve(io.cwd, arg));
  } catch {
    throw new InputError(`${arg} is not a valid URL`);
  }
  // A document fetched from the network may point to other URLs, never to local files.
  const loader: DocumentLoader = async (target, maxBytes) => {
    if (target.protocol === "file:") {
      if (remote) throw new InputError(`${url.href} refers to a local file (${target.href}): refused`);
      return readFile(fileURLToPath(target), maxBytes);
    }
    if (target.protocol !== "http:" && target.protocol !== "https:") throw new InputError(`${target.href}: only files and http(s) URLs are read`);
    const response = await fetcher.fetch({ url: target.href, method: "GET" }); // capped at the document limit (createHttpFetcher below)
    if (response.status < 200 || response.status >= 300) throw new InputError(`${target.href} answered HTTP ${response.status}`);
    return response.body;
  };
  try {
    return await loadOpenApi(url, { loader });
  } catch (error) {
    if (isOpenApiError(error) && error.cause instanceof InputError) throw error.cause;
    if (isOpenApiError(error) && error.code === "load_failed" && error.cause !== undefined) {
      const cause = error.cause as { code?: unknown; message?: unknown };
      const code = typeof cause.code === "string" ? ` (${cause.code})` : "";
      throw new InputError(`cannot read ${url.protocol === "file:" ? arg : url.href}: ${String(cause.message)}${code}`);
    }
    throw error;
  }
}

function readFile(file: string, maxBytes: number): string {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(`cannot read ${file}: ${code === "ENOENT" ? "no such file" : (error as Error).message}`);
  }
  if (size > maxBytes) throw new InputError(`${file} is ${size} bytes, more than the limit of ${maxBytes}`);
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(`cannot read ${file}: ${code === "EISDIR" ? "is a directory" : (error as Error).message}`);
  }
}

function toJson(change: OpenApiChange): Record<string, string> {
  return {
    id: change.id,
    level: change.level,
    ...(change.operation === undefined ? {} : { operation: change.operation }),
    ...(change.path === undefined ? {} : { path: change.path }),
    message: change.message,
  };
}

/** The text form: a summary line, then `level  id  operation  message` per change, breaking first. */
export function formatChanges(changes: readonly OpenApiChange[]): string {
  if (changes.length === 0) return "No API changes.\n";
  const count = (level: ChangeLevel): number => changes.filter((c) => c.level === level).length;
  const summary = `${changes.length} API change${changes.length === 1 ? "" : "s"}: ${count("breaking")} breaking, ${count("potentially-breaking")} potentially breaking, ${count("non-breaking")} non-breaking`;
  const idWidth = Math.max(...changes.map((c) => c.id.length));
  const opWidth = Math.max(...changes.map((c) => (c.operation ?? "").length));
  const lines = changes.map((c) => `${c.level.padEnd(20)} ${c.id.padEnd(idWidth)}  ${(c.operation ?? "").padEnd(opWidth)}  ${c.message}`);
  return `${summary}\n\n${lines.join("\n")}\n`;
}

function usageError(io: CliIo, message: string): number {
  io.stderr(`driftwatch api-diff: ${message}\n\n${API_DIFF_USAGE}`);
  return EXIT_ERROR;
}
