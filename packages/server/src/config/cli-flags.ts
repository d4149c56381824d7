// Command-line flags: a small strict parser and the flags of `driftwatch serve`.
import { ConfigError, parseBoolean } from "./values.js";

/** One command-line option: `--name value`, `--name=value`, or a boolean `--name`. */
export interface OptionSpec {
  type: "string" | "boolean";
}

export interface ParsedArgs {
  options: Record<string, string | boolean>;
  positionals: string[];
}

/**
 * A small strict parser (node:util parseArgs reports unknown options with messages meant for
 * developers; these go to users). `--` ends the options.
 */
export function parseArgs(args: readonly string[], spec: Record<string, OptionSpec>): ParsedArgs {
  const options: Record<string, string | boolean> = {};
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith("--") || arg === "-") {
      if (arg.startsWith("-") && arg !== "-") throw new ConfigError("unknown_option", `Unknown option ${arg}.`);
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const option = spec[name];
    if (option === undefined) throw new ConfigError("unknown_option", `Unknown option --${name}.`);
    if (option.type === "boolean") {
      if (eq !== -1) options[name] = parseBoolean(arg.slice(eq + 1), `--${name}`);
      else options[name] = true;
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      value = args[i + 1];
      if (value === undefined || value.startsWith("--")) throw new ConfigError("missing_value", `Option --${name} needs a value.`);
      i++;
    }
    options[name] = value;
  }
  return { options, positionals };
}

export const SERVE_OPTIONS: Record<string, OptionSpec> = {
  port: { type: "string" },
  host: { type: "string" },
  database: { type: "string" },
  "allow-private-networks": { type: "boolean" },
  "rate-limit-reads": { type: "string" },
  "rate-limit-writes": { type: "string" },
  demo: { type: "boolean" },
  "log-format": { type: "string" },
  role: { type: "string" },
  queue: { type: "string" },
  "check-concurrency": { type: "string" },
  "per-host-concurrency": { type: "string" },
  "warmup-samples": { type: "string" },
  "warmup-interval-ms": { type: "string" },
  "learning-samples": { type: "string" },
};
