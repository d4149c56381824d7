import { normalizeEmail, RoleSchema, type Role } from "@driftwatch/core";
import { DisplayNameSchema, EmailSchema } from "@driftwatch/schema";
import { DEFAULT_DATABASE_URL, ENV, parseArgs, resolveLimits } from "../config/index.js";
import { addMember, createPeople, newSecret, passwordProblem } from "@driftwatch/people";
import { type CliIo, EXIT_ERROR } from "./io.js";
import { commandDatabaseUrl, parseOrgSlug, withCommandStore } from "./store-command.js";

export const USER_USAGE = `Usage: driftwatch user create --email <address> --org <slug> [--role owner] [--name "Display Name"]
                              [--password-stdin] [--database url]

Creates a user who can sign in to the dashboard, as a member of an organization (created when it
does not exist), for scripted installs: the same as the first-run setup link, from the command line.
Safe while a server runs on the same database.

  --email           the user's email address (sign-in name)
  --org             organization slug (lowercase letters, digits and dashes)
  --role            owner, admin, member or viewer (default owner)
  --name            display name (default: the part of the email before @)
  --password-stdin  read the password from standard input (first line)
                    else DRIFTWATCH_USER_PASSWORD, else a generated one printed once
  --database        default DRIFTWATCH_DATABASE_URL, else ${DEFAULT_DATABASE_URL}

An existing user (same email) is added to the organization with the role; their password is kept.
`;

export interface UserCommandInput {
  /** Standard input's text (read only with --password-stdin). */
  readStdin?: () => Promise<string>;
}

async function readProcessStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function runUser(args: readonly string[], io: CliIo, input: UserCommandInput = {}): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "--help" || sub === "-h" || sub === "help") {
    io.stdout(USER_USAGE);
    return 0;
  }
  if (sub !== "create") {
    io.stderr(`driftwatch user: unknown subcommand ${JSON.stringify(sub ?? "")}.\n\n${USER_USAGE}`);
    return EXIT_ERROR;
  }
  let email: string;
  let org: string;
  let role: Role;
  let name: string;
  let databaseUrl: string;
  let passwordFrom: "stdin" | "env" | "generated";
  try {
    const { options, positionals } = parseArgs(rest, {
      email: { type: "string" },
      org: { type: "string" },
      role: { type: "string" },
      name: { type: "string" },
      "password-stdin": { type: "boolean" },
      database: { type: "string" },
      help: { type: "boolean" },
    });
    if (options.help === true) {
      io.stdout(USER_USAGE);
      return 0;
    }
    if (positionals.length > 0) throw new Error(`unexpected argument ${positionals[0]}`);
    if (typeof options.email !== "string") throw new Error("--email <address> is required");
    const parsedEmail = EmailSchema.safeParse(options.email);
    if (!parsedEmail.success) throw new Error(`--email must be an email address (got ${JSON.stringify(options.email)})`);
    email = normalizeEmail(parsedEmail.data);
    org = parseOrgSlug(options.org);
    const parsedRole = RoleSchema.safeParse(typeof options.role === "string" ? options.role : "owner");
    if (!parsedRole.success) throw new Error(`--role must be one of ${RoleSchema.options.join(", ")}`);
    role = parsedRole.data;
    const parsedName = DisplayNameSchema.safeParse(typeof options.name === "string" ? options.name : email.split("@")[0]!);
    if (!parsedName.success) throw new Error("--name must be 1 to 200 characters, none of them control characters");
    name = parsedName.data;
    const envPassword = io.env[ENV.userPassword];
    passwordFrom = options["password-stdin"] === true ? "stdin" : envPassword !== undefined && envPassword !== "" ? "env" : "generated";
    databaseUrl = commandDatabaseUrl(options.database, io);
  } catch (error) {
    io.stderr(`driftwatch user create: ${(error as Error).message}.\n\n${USER_USAGE}`);
    return EXIT_ERROR;
  }
  let password: string;
  if (passwordFrom === "stdin") password = ((await (input.readStdin ?? readProcessStdin)()).split(/\r?\n/, 1)[0] ?? "");
  else if (passwordFrom === "env") password = io.env[ENV.userPassword]!;
  else password = newSecret();
  const weak = await passwordProblem(password, email);
  if (weak !== null) {
    io.stderr(`driftwatch user create: the password ${weak}.\n`);
    return EXIT_ERROR;
  }

  let limits;
  try {
    limits = resolveLimits(io.env);
  } catch (error) {
    io.stderr(`driftwatch user create: ${(error as Error).message}\n`);
    return EXIT_ERROR;
  }
  return withCommandStore("user create", databaseUrl, io, async (store) => {
    const people = createPeople({ store, limits: { scryptLogN: limits.scryptLogN } });
    const { user, organization, existed } = await addMember(people, { ip: null, log: { error: (_, message) => io.stderr(`driftwatch user create: ${message}.\n`), warn: () => undefined } }, { email, displayName: name, password, orgSlug: org, role, via: "cli" });
    io.stderr(
      `${existed ? "Added existing user" : "Created user"} ${user.id} (${email}) as ${role} of organization ${organization.slug} (${organization.id}).\n`,
    );
    if (!existed && passwordFrom === "generated") io.stdout(`Password (shown only this once): ${password}\n`);
    else if (existed && passwordFrom !== "generated") io.stderr("The user existed: their password is unchanged.\n");
    return 0;
  });
}
