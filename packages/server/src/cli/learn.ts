import { type Fetcher, type FetchResponse, isDriftwatchError, type PolicyEvidence, type PolicySuggestion, suggestPolicy } from "@driftwatch/core";
import { createHttpFetcher } from "@driftwatch/fetcher-http";
import { ConfigError, LEARN_MAX_INTERVAL_MS, LEARN_MAX_SAMPLES, LEARN_MAX_TOTAL_BYTES, parseArgs, parseBoolean } from "../config/index.js";
import { type CliIo, EXIT_ERROR } from "./io.js";

export const LEARN_USAGE = `Usage: driftwatch learn <url> [--samples 5] [--interval 2s] [--selector css] [--kind json|html]
                        [--allow-private-networks] [--json]

Fetches a target several times and prints the policy driftwatch would learn from it: volatile
fields (timestamps, ids, tokens, counters), identity keys of arrays, unordered arrays, float
tolerances and severity rules, each with its evidence, and the changing fields it kept (and why).
Paste the policy into PATCH /api/monitors/{id}/settings as policyRules, or let a monitor learn it
by itself with autoApplySuggestions: true.

  --samples n        fetches to learn from, 2..50 (default 5)
  --interval d       wait between fetches: 500ms, 2s, 1m (default 2s, at most 10m)
  --kind json|html   how to read the target (default: json when the first answer is JSON)
  --selector css     website targets: only learn inside this element
  --allow-private-networks
                     lift the SSRF guard (loopback and private addresses; also
                     DRIFTWATCH_ALLOW_PRIVATE_NETWORKS=true)
  --json             print { url, kind, samples, policy, evidence } as JSON

Exit status: 0 learned, 2 error (bad usage, a fetch that failed or answered non-2xx).
`;


class LearnError extends Error {}

/** `500ms`, `2s`, `1m`, or a bare number of seconds. */
export function parseDuration(text: string, option: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (match === null) throw new LearnError(`${option} must be a duration such as 500ms, 2s or 1m (got ${JSON.stringify(text)}).`);
  const value = Number(match[1]);
  const ms = match[2] === "ms" ? value : match[2] === "m" ? value * 60_000 : value * 1000;
  if (ms > LEARN_MAX_INTERVAL_MS) throw new LearnError(`${option} is at most 10m (got ${text}).`);
  return Math.round(ms);
}

function parseSamples(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 2 || n > LEARN_MAX_SAMPLES) throw new LearnError(`--samples must be an integer from 2 to ${LEARN_MAX_SAMPLES} (got ${JSON.stringify(text)}).`);
  return n;
}

function looksLikeJson(response: FetchResponse): boolean {
  if (response.contentType !== null && /[/+]json\b/i.test(response.contentType)) return true;
  if (response.contentType !== null && /html|xml/i.test(response.contentType)) return false;
  try {
    JSON.parse(response.body);
    return true;
  } catch {
    return false;
  }
}

export interface LearnDependencies {
  /** Defaults to the HTTP fetcher with the SSRF guard (lifted by --allow-private-networks). */
  fetcher?: Fetcher;
  sleep?: (ms: number) => Promise<void>;
}

/** `driftwatch learn`: exit 0 with the suggestion printed, 2 on error. */
export async function runLearn(args: readonly string[], io: CliIo, deps: LearnDependencies = {}): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs(args, {
      samples: { type: "string" },
      interval: { type: "string" },
      selector: { type: "string" },
      kind: { type: "string" },
      "allow-private-networks": { type: "boolean" },
      json: { type: "boolean" },
      help: { type: "boolean" },
    });
  } catch (error) {
    return usageError(io, (error as ConfigError).message);
  }
  const o = parsed.options;
  if (o.help === true) {
    io.stdout(LEARN_USAGE);
    return 0;
  }
  if (parsed.positionals.length !== 1) return usageError(io, `learn needs exactly one URL (got ${parsed.positionals.length}).`);
  const url = parsed.positionals[0]!;
  let samples: number;
  let intervalMs: number;
  let allowPrivateNetworks: boolean;
  try {
    samples = typeof o.samples === "string" ? parseSamples(o.samples) : 5;
    intervalMs = typeof o.interval === "string" ? parseDuration(o.interval, "--interval") : 2000;
    if (o.kind !== undefined && o.kind !== "json" && o.kind !== "html") throw new LearnError(`--kind is json or html (got ${JSON.stringify(o.kind)}).`);
    if (o.selector !== undefined && (typeof o.selector !== "string" || o.selector.trim() === "")) throw new LearnError("--selector needs a CSS selector.");
    const env = io.env.DRIFTWATCH_ALLOW_PRIVATE_NETWORKS;
    allowPrivateNetworks = o["allow-private-networks"] === true || (env !== undefined && env !== "" && parseBoolean(env, "DRIFTWATCH_ALLOW_PRIVATE_NETWORKS"));
  } catch (error) {
    if (error instanceof LearnError || error instanceof ConfigError) return usageError(io, error.message);
    throw error;
  }

  const fetcher = deps.fetcher ?? createHttpFetcher({ allowPrivateNetworks });
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  try {
    const bodies: string[] = [];
    let total = 0;
    let kind = o.kind as "json" | "html" | undefined;
    for (let i = 0; i < samples; i++) {
      if (i > 0 && intervalMs > 0) await sleep(intervalMs);
      const response = await fetcher.fetch({ url, method: "GET" });
      if (response.status < 200 || response.status >= 300) throw new LearnError(`fetch ${i + 1} of ${samples}: ${url} answered HTTP ${response.status}.`);
      total += response.size;
      if (total > LEARN_MAX_TOTAL_BYTES) {
        throw new LearnError(`the answers add up to more than ${LEARN_MAX_TOTAL_BYTES / 1024 / 1024} MB after ${i + 1} fetches: ask for fewer --samples.`);
      }
      kind ??= looksLikeJson(response) ? "json" : "html";
      bodies.push(response.body);
      if (o.json !== true) io.stderr(`fetched ${i + 1}/${samples} (${response.size} bytes, ${response.latencyMs} ms)\n`);
    }
    const selector = typeof o.selector === "string" ? o.selector : null;
    const suggestion = suggestPolicy(bodies, { kind: kind!, selector });
    if (o.json === true) io.stdout(JSON.stringify({ url, kind, samples, policy: suggestion.policy, evidence: suggestion.evidence }, null, 2) + "\n");
    else io.stdout(formatSuggestion(url, kind!, samples, suggestion));
    return 0;
  } catch (error) {
    if (error instanceof LearnError) io.stderr(`driftwatch learn: ${error.message}\n`);
    else if (isDriftwatchError(error)) {
      io.stderr(`driftwatch learn: ${error.message} (${error.code})\n`);
      if (error.code === "unsafe_url") io.stderr("  (a loopback or private address: add --allow-private-networks to learn from it anyway)\n");
    } else throw error;
    return EXIT_ERROR;
  } finally {
    if (deps.fetcher === undefined) await fetcher.close();
  }
}

function usageError(io: CliIo, message: string): number {
  io.stderr(`driftwatch learn: ${message}\n\n${LEARN_USAGE}`);
  return EXIT_ERROR;
}

function evidenceLine(e: PolicyEvidence, width: number): string {
  const where = e.path ?? e.selector ?? "";
  const rule = e.rule === undefined ? "" : `  [${e.rule}]`;
  return `  ${e.kind.padEnd(width)} ${where}${rule}\n  ${" ".repeat(width)} ${e.reason}`;
}

/** The readable form: the policy as JSON to paste, then the evidence for each entry and what was kept. */
export function formatSuggestion(url: string, kind: "json" | "html", samples: number, suggestion: PolicySuggestion): string {
  const width = Math.max(8, ...suggestion.evidence.map((e) => e.kind.length));
  const applied = suggestion.evidence.filter((e) => e.kind !== "kept");
  const kept = suggestion.evidence.filter((e) => e.kind === "kept");
  const lines = [`Learned from ${samples} fetches of ${url} (${kind}).`, "", "Suggested policy (policyRules for PATCH /api/monitors/{id}/settings):"];
  lines.push(JSON.stringify(suggestion.policy, null, 2), "");
  if (applied.length === 0) lines.push("Nothing to hide or rate: no noise was seen.");
  else lines.push("Why:", ...applied.map((e) => evidenceLine(e, width)));
  if (kept.length > 0) lines.push("", "Changed, but kept (still reported):", ...kept.map((e) => evidenceLine(e, width)));
  return lines.join("\n") + "\n";
}
