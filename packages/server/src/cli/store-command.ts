// What the commands that write to a store from the command line share (`token create`,
// `user create`): the organization slug, the database URL, and opening, using and closing the store.
import { isDriftwatchError, type Store } from "@driftwatch/core";
import { DEFAULT_DATABASE_URL, ENV, openDatabase, parseDatabaseUrl } from "../config/index.js";
import { type CliIo, EXIT_ERROR } from "./io.js";

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The `--org` value: a slug of lowercase letters, digits and dashes. */
export function parseOrgSlug(value: string | boolean | undefined): string {
  if (typeof value !== "string") throw new Error("--org <slug> is required");
  if (!SLUG.test(value)) throw new Error(`--org must be a slug of lowercase letters, digits and dashes (got ${JSON.stringify(value)})`);
  return value;
}

/** `--database`, else DRIFTWATCH_DATABASE_URL, else the default, checked. */
export function commandDatabaseUrl(option: string | boolean | undefined, io: CliIo): string {
  const fromEnv = io.env[ENV.database];
  return parseDatabaseUrl(
    typeof option === "string" ? option : fromEnv !== undefined && fromEnv !== "" ? fromEnv : DEFAULT_DATABASE_URL,
    typeof option === "string" ? "--database" : ENV.database,
  ).url;
}

/**
 * Opens the store at `databaseUrl`, runs `use` and closes it; any failure is printed as
 * `driftwatch <command>: <message> (<code>)` and answers EXIT_ERROR.
 */
export async function withCommandStore(command: string, databaseUrl: string, io: CliIo, use: (store: Store) => Promise<number>): Promise<number> {
  if (databaseUrl === "memory:") {
    io.stderr(`driftwatch ${command}: a memory: database lives only inside a running server; use sqlite: or postgres://.\n`);
    return EXIT_ERROR;
  }
  let store: Store;
  try {
    store = await openDatabase(databaseUrl, { cwd: io.cwd });
  } catch (error) {
    io.stderr(`driftwatch ${command}: ${(error as Error).message}\n`);
    return EXIT_ERROR;
  }
  try {
    return await use(store);
  } catch (error) {
    io.stderr(`driftwatch ${command}: ${(error as Error).message}${isDriftwatchError(error) ? ` (${error.code})` : ""}\n`);
    return EXIT_ERROR;
  } finally {
    await store.close();
  }
}
