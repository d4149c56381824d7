import { createRequire } from "node:module";
import { pino, type Logger } from "pino";
import type PinoPretty from "pino-pretty";

// pino-pretty is loaded only for the pretty format (about 9 MB of a process's memory that a server
// logging JSON should not pay; issue 26). `require` keeps the logger's creation synchronous;
// pino-pretty ships CommonJS. The CommonJS build has `__filename`; the ESM build (and the sources) `import.meta.url`.
function loadPretty(): typeof PinoPretty {
  const loaded = createRequire(typeof __filename === "string" ? __filename : import.meta.url)("pino-pretty") as typeof PinoPretty & { default?: typeof PinoPretty };
  return loaded.default ?? loaded;
}

/** `pretty`: coloured, readable lines for a terminal; `json`: one JSON object a line (log shippers). */
export type LogFormat = "pretty" | "json";

/**
 * Fields that may carry a secret, wherever a log call puts them: tokens, webhook secrets, header
 * values, passwords and URLs with credentials. pino replaces their values before a line is written.
 */
export const REDACTED_PATHS: readonly string[] = [
  "token",
  "secret",
  "secrets",
  "password",
  "authorization",
  "headers",
  "*.token",
  "*.secret",
  "*.secrets",
  "*.password",
  "*.authorization",
  "*.headers",
  "req.headers.authorization",
  "req.headers.cookie",
  "res.headers['set-cookie']",
];

/** The format when neither `--log-format` nor DRIFTWATCH_LOG_FORMAT chose one: pretty on a terminal. */
export function defaultLogFormat(isTty: boolean | undefined): LogFormat {
  return isTty === true ? "pretty" : "json";
}

export interface CliLoggerOptions {
  format: LogFormat;
  level?: string;
  /** Where lines go (stdout by default). */
  destination?: NodeJS.WritableStream;
  /** Colours in pretty lines (default: when the destination is a terminal). */
  colorize?: boolean;
}

/** The logger of `driftwatch serve`: secrets redacted in both formats. */
export function createCliLogger(options: CliLoggerOptions): Logger {
  const destination = options.destination ?? process.stdout;
  const base = {
    level: options.level ?? "info",
    redact: { paths: [...REDACTED_PATHS], censor: "[redacted]" },
  };
  if (options.format === "json") return pino(base, destination as pino.DestinationStream);
  const colorize = options.colorize ?? (destination as { isTTY?: boolean }).isTTY === true;
  const stream = loadPretty()({
    colorize,
    destination: destination as pino.DestinationStream,
    sync: true,
    translateTime: "SYS:HH:MM:ss",
    ignore: "pid,hostname",
    singleLine: true,
  });
  return pino(base, stream);
}
