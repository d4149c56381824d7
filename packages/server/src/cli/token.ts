import { ScopeSchema, type Scope } from "@driftwatch/core";
import { DEFAULT_DATABASE_URL, parseArgs } from "../config/index.js";
import { generateTokenSecret, hashTokenSecret } from "@driftwatch/engine";
import { type CliIo, EXIT_ERROR } from "./io.js";
import { commandDatabaseUrl, parseOrgSlug, withCommandStore } from "./store-command.js";

export const TOKEN_USAGE = `Usage: driftwatch token create --org <slug> [--name name] [--scopes a,b] [--database url]

Creates an API token for an organization (creating the organization when it does not exist) and
prints its secret on stdout, once. Safe while a server runs on the same database.

  --org       organization slug (lowercase letters, digits and dashes)
  --name      token name (default "cli")
  --scopes    comma-separated, from monitors:read, monitors:write, webhooks:read,
              webhooks:write, admin (default: all of them)
  --database  default DRIFTWATCH_DATABASE_URL, else ${DEFAULT_DATABASE_URL}
`;

const ALL_SCOPES: Scope[] = ["monitors:read", "monitors:write", "webhooks:read", "webhooks:write", "admin"];

export async function runToken(args: readonly string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "--help" || sub === "-h" || sub === "help") {
    io.stdout(TOKEN_USAGE);
    return 0;
  }
  if (sub !== "create") {
    io.stderr(`driftwatch token: unknown subcommand ${JSON.stringify(sub ?? "")}.\n\n${TOKEN_USAGE}`);
    return EXIT_ERROR;
  }
  let org: string;
  let name: string;
  let scopes: Scope[];
  let databaseUrl: string;
  try {
    const { options, positionals } = parseArgs(rest, {
      org: { type: "string" },
      name: { type: "string" },
      scopes: { type: "string" },
      database: { type: "string" },
      help: { type: "boolean" },
    });
    if (options.help === true) {
      io.stdout(TOKEN_USAGE);
      return 0;
    }
    if (positionals.length > 0) throw new Error(`unexpected argument ${positionals[0]}`);
    org = parseOrgSlug(options.org);
    name = typeof options.name === "string" ? options.name.trim() : "cli";
    if (name === "" || name.length > 200) throw new Error("--name must be 1 to 200 characters");
    scopes = typeof options.scopes === "string" ? parseScopes(options.scopes) : ALL_SCOPES;
    databaseUrl = commandDatabaseUrl(options.database, io);
  } catch (error) {
    io.stderr(`driftwatch token create: ${(error as Error).message}.\n\n${TOKEN_USAGE}`);
    return EXIT_ERROR;
  }
  return withCommandStore("token create", databaseUrl, io, async (store) => {
    const organization = await store.ensureOrganization(org);
    const secret = generateTokenSecret();
    const token = await store.createToken(organization.id, { name, scopes, tokenHash: hashTokenSecret(secret) });
    io.stderr(
      `Created token ${token.id} (${JSON.stringify(name)}, scopes ${scopes.join(",")}) for organization ${organization.slug} (${organization.id}).\n` +
        "The secret below is shown once; store it now.\n",
    );
    io.stdout(`${secret}\n`);
    return 0;
  });
}

function parseScopes(value: string): Scope[] {
  const parts = value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (parts.length === 0) throw new Error("--scopes needs at least one scope");
  const scopes: Scope[] = [];
  for (const part of parts) {
    const parsed = ScopeSchema.safeParse(part);
    if (!parsed.success) throw new Error(`unknown scope ${JSON.stringify(part)} (use ${ALL_SCOPES.join(", ")})`);
    if (!scopes.includes(parsed.data)) scopes.push(parsed.data);
  }
  return scopes;
}
