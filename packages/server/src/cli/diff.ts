import fs from "node:fs";
import path from "node:path";
import {
  type Change,
  type DiffExplanation,
  diffJson,
  explainDiffJson,
  isDriftwatchError,
  type JsonDiff,
  type PolicyRules,
  validatePolicyRules,
} from "@driftwatch/core";
import { ConfigError, parseArgs } from "../config/index.js";
import { type CliIo, EXIT_ERROR } from "./io.js";

export const DIFF_USAGE = `Usage: driftwatch diff <before.json> <after.json> [--rules rules.json] [--explain] [--json]

Prints the structured diff of two JSON documents: classification, severity and one line per
changed path. --rules applies policy rules ({ "rules": [...], "arrayKeys": {...}, "volatile": [...] });
--explain adds which rule or inference hid or rated each change (volatile, tolerance, unordered,
ignore and severity rules, inferred array keys, float noise); --json prints the diff as JSON (null
when nothing changed), with --explain as { "diff": ..., "explanations": [...] }.

Exit status: 0 no change, 1 changed, 2 error (like diff(1)).
`;

/** `driftwatch diff`: exit 0 when the documents are the same, 1 when they differ, 2 on error. */
export async function runDiff(args: readonly string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs(args, { rules: { type: "string" }, json: { type: "boolean" }, explain: { type: "boolean" }, help: { type: "boolean" } });
  } catch (error) {
    return usageError(io, (error as ConfigError).message);
  }
  if (parsed.options.help === true) {
    io.stdout(DIFF_USAGE);
    return 0;
  }
  if (parsed.positionals.length !== 2) {
    return usageError(io, `diff needs exactly two files (got ${parsed.positionals.length}).`);
  }
  const [beforeFile, afterFile] = parsed.positionals as [string, string];
  try {
    const before = readJson(io, beforeFile);
    const after = readJson(io, afterFile);
    const rulesFile = parsed.options.rules;
    let policy: PolicyRules | undefined;
    if (typeof rulesFile === "string") policy = validatePolicyRules(readJson(io, rulesFile));
    const options = policy === undefined ? {} : { policy };
    if (parsed.options.explain === true) {
      const { diff, explanations } = explainDiffJson(before, after, options);
      if (parsed.options.json === true) {
        // the explanations once, beside the diff (not repeated inside it)
        const plain = diff === null ? null : (({ explanations: _inside, ...rest }) => rest)(diff);
        io.stdout(JSON.stringify({ diff: plain, explanations }, null, 2) + "\n");
      } else io.stdout(formatDiff(diff) + formatExplanations(explanations));
      return diff === null ? 0 : 1;
    }
    const diff = diffJson(before, after, options);
    if (parsed.options.json === true) io.stdout(JSON.stringify(diff, null, 2) + "\n");
    else io.stdout(formatDiff(diff));
    return diff === null ? 0 : 1;
  } catch (error) {
    if (error instanceof InputError) io.stderr(`driftwatch diff: ${error.message}\n`);
    else if (isDriftwatchError(error)) {
      io.stderr(`driftwatch diff: ${error.message} (${error.code})\n`);
      for (const detail of error.details) io.stderr(`  ${detail.path}: ${detail.message}\n`);
    } else throw error;
    return EXIT_ERROR;
  }
}

class InputError extends Error {}

function readJson(io: CliIo, file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(path.resolve(io.cwd, file), "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(`cannot read ${file}: ${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory" : (error as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InputError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
}

function usageError(io: CliIo, message: string): number {
  io.stderr(`driftwatch diff: ${message}\n\n${DIFF_USAGE}`);
  return EXIT_ERROR;
}

const SEVERITY_WIDTH = 8;

/** The human-readable form: a summary line, then `severity category op path  detail` per change. */
export function formatDiff(diff: JsonDiff | null): string {
  if (diff === null) return "No changes.\n";
  const lines = [
    `${diff.classification}: ${plural(diff.schemaChanges, "schema change")}, ${plural(diff.valueChanges, "value change")}, top severity ${diff.topSeverity}`,
    `fingerprint ${diff.diffFingerprint}`,
    "",
    ...diff.changes.map(formatChange),
  ];
  return lines.join("\n") + "\n";
}

/** `--explain`: one line per decision, `outcome path  [rule]  detail`. */
export function formatExplanations(explanations: readonly DiffExplanation[]): string {
  if (explanations.length === 0) return "\nExplained: nothing was hidden or rated by a rule or an inference.\n";
  const width = Math.max(...explanations.map((e) => e.outcome.length));
  const lines = explanations.map((e) => {
    const rule = e.rule === undefined ? "" : `  [${e.rule}]`;
    const severity = e.severity === undefined ? "" : ` -> ${e.severity}`;
    return `${e.outcome.padEnd(width)} ${e.path}${severity}${rule}  ${e.detail}`;
  });
  return `\nExplained (${plural(explanations.length, "decision")}):\n${lines.join("\n")}\n`;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function formatChange(change: Change): string {
  const head = `${change.severity.padEnd(SEVERITY_WIDTH)} ${change.category.padEnd(6)} ${change.op.padEnd(7)} ${change.path}`;
  const parts = [head];
  if (change.detail !== undefined) parts.push(`  ${change.detail}`);
  else if (change.op === "replace" && ("before" in change || "after" in change)) {
    parts.push(`  ${preview(change.before)} -> ${preview(change.after)}`);
  }
  return parts.join("");
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
