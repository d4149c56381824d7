// The server key that seals the secrets users give driftwatch (notification channels' tokens and
// URLs, browser steps' passwords): DRIFTWATCH_SECRET_KEY, or on SQLite a key file generated
// beside the database on first start. docs/security.md ("Secrets at rest") describes rotation.
import { createSecretBox, generateSecretKey, isDriftwatchError, parseSecretKeys, type SecretBox } from "@driftwatch/core";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { ENV } from "./env.js";
import { parseDatabaseUrl } from "./store-url.js";
import { ConfigError } from "./values.js";
import { ApiError } from "../http/problem.js";

/** The file a SQLite database's key is kept in: `secret.key` beside the database file. */
export const SECRET_KEY_FILE = "secret.key";

export type SecretKeySource =
  /** DRIFTWATCH_SECRET_KEY (or the `secretKey` option). */
  | "env"
  /** The key file beside the SQLite database (generated on first start). */
  | "file"
  /** A key held in memory only (a `memory:` database, whose data dies with the process anyway). */
  | "ephemeral"
  /** No key: storing a secret answers `secret_key_missing` (PostgreSQL, or a store passed in, without a key). */
  | "missing";

export interface ServerSecrets {
  /** Null when no key is configured: see `missingReason`. */
  box: SecretBox | null;
  source: SecretKeySource;
  /** The key file, when the key came from one. */
  file?: string;
  /** Why there is no key, and how to give one (for the `secret_key_missing` problem). */
  missingReason?: string;
}

/**
 * The box to seal a secret with; `503 secret_key_missing` (saying how to configure one) when the
 * server has no key. Routes that store a user's secret call it before writing anything.
 */
export function requireSecretBox(secrets: ServerSecrets | undefined): SecretBox {
  if (secrets?.box) return secrets.box;
  throw new ApiError("secret_key_missing", `This server cannot store secrets: ${secrets?.missingReason ?? `set ${ENV.secretKey}`}.`);
}

/** Validates a key list as `serve` reads it; a bad one is a `ConfigError` naming the variable (never the value). */
export function checkSecretKey(value: string, source: string = ENV.secretKey): string {
  try {
    parseSecretKeys(value);
    return value;
  } catch (error) {
    if (isDriftwatchError(error)) throw new ConfigError("invalid_value", `${source}: ${error.message}`);
    throw error;
  }
}

async function readOrCreateKeyFile(file: string): Promise<string> {
  try {
    return (await readFile(file, "utf8")).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  await mkdir(path.dirname(file), { recursive: true });
  try {
    // `wx`: of two processes starting on one new database, one writes the key and the other reads it.
    await writeFile(file, `${generateSecretKey()}\n`, { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  await chmod(file, 0o600).catch(() => undefined);
  return (await readFile(file, "utf8")).trim();
}

/**
 * The server's secret box: from `secretKey` (DRIFTWATCH_SECRET_KEY: the current key, then older
 * ones during a rotation), else for a SQLite database the key file beside it (created on first
 * start, mode 0600), else for `memory:` a key in memory. PostgreSQL (several processes must share
 * one key) and a store passed in by an embedder get none without `secretKey`.
 */
export async function resolveServerSecrets(options: { secretKey?: string | null; databaseUrl: string | null }): Promise<ServerSecrets> {
  if (options.secretKey !== undefined && options.secretKey !== null && options.secretKey.trim() !== "") {
    return { box: createSecretBox(parseSecretKeys(checkSecretKey(options.secretKey))), source: "env" };
  }
  if (options.databaseUrl === null) {
    return {
      box: null,
      source: "missing",
      missingReason: "this server was given its store without a secret key: pass `secretKey` (or set DRIFTWATCH_SECRET_KEY)",
    };
  }
  const location = parseDatabaseUrl(options.databaseUrl);
  switch (location.kind) {
    case "sqlite": {
      const file = path.join(path.dirname(path.resolve(location.filename)), SECRET_KEY_FILE);
      const text = await readOrCreateKeyFile(file);
      try {
        return { box: createSecretBox(parseSecretKeys(text)), source: "file", file };
      } catch (error) {
        if (isDriftwatchError(error)) throw new ConfigError("invalid_value", `${file}: ${error.message}`);
        throw error;
      }
    }
    case "memory":
      return { box: createSecretBox(parseSecretKeys(generateSecretKey())), source: "ephemeral" };
    default:
      return {
        box: null,
        source: "missing",
        missingReason: `on PostgreSQL every process must seal secrets with the same key: set ${ENV.secretKey} (generate one with \`openssl rand -base64 32\`)`,
      };
  }
}
