import { execFile } from "node:child_process";
import dns from "node:dns/promises";
import fs from "node:fs";
import { isDriftwatchError } from "@driftwatch/core";
import { DEFAULT_CHROMIUM_PATH, DEFAULT_DATABASE_URL, ENV, parseArgs, parseBoolean, parseDatabaseUrl, redactUrl } from "../config/index.js";
import { type CliIo, EXIT_ERROR } from "./io.js";

export const DOCTOR_USAGE = `Usage: driftwatch doctor [--database url] [--dns-host name] [--skip-browser]

Checks what driftwatch serve needs and prints what to fix; exits 1 when something is wrong.
  store    reachable, schema version current, integrity (SQLite) or a query (PostgreSQL)
  browser  Chromium at DRIFTWATCH_CHROMIUM_PATH (default ${DEFAULT_CHROMIUM_PATH}) launches
  egress   private networks allowed or blocked (DRIFTWATCH_ALLOW_PRIVATE_NETWORKS), DNS resolves
  clock    this machine's clock against PostgreSQL's now() (skipped on SQLite: same clock)

  --database      default DRIFTWATCH_DATABASE_URL, else ${DEFAULT_DATABASE_URL}
  --dns-host      the name DNS must resolve (default example.com)
  --skip-browser  when no monitor uses browserOptions
`;

/** Largest clock difference with the store that doctor accepts (leases and schedules rely on it). */
export const MAX_CLOCK_SKEW_MS = 2_000;

export interface DoctorCheck {
  name: "store" | "browser" | "egress" | "clock";
  status: "ok" | "fail" | "skip";
  detail: string;
  /** What to do about a failure. */
  fix?: string;
}

async function checkSqliteStore(filename: string): Promise<DoctorCheck> {
  if (!fs.existsSync(filename)) {
    return {
      name: "store",
      status: "fail",
      detail: `no database at ${filename}`,
      fix: "Start driftwatch serve once (it creates and migrates the file) or point --database / DRIFTWATCH_DATABASE_URL at yours.",
    };
  }
  const { inspectSqliteFile, SQLITE_SCHEMA_VERSION } = await import("@driftwatch/store-sqlite");
  const result = inspectSqliteFile(filename);
  if (!result.ok) {
    return {
      name: "store",
      status: "fail",
      detail: `${filename}: ${result.problems.join("; ")}`,
      fix: "Restore the latest good backup (driftwatch restore <file> --force, with the server stopped).",
    };
  }
  if (result.schemaVersion !== SQLITE_SCHEMA_VERSION) {
    return {
      name: "store",
      status: "fail",
      detail: `${filename}: schema version ${result.schemaVersion ?? "none"}, this build expects ${SQLITE_SCHEMA_VERSION}`,
      fix: "Start driftwatch serve: it applies the pending migrations (take a backup first).",
    };
  }
  return { name: "store", status: "ok", detail: `SQLite ${filename}: integrity ok, schema version ${result.schemaVersion} (current)` };
}

async function checkPostgresStore(url: string): Promise<{ store: DoctorCheck; clock: DoctorCheck }> {
  const { inspectPostgresDatabase, POSTGRES_SCHEMA_VERSION } = await import("@driftwatch/store-postgres");
  const shown = redactUrl(url);
  let found;
  try {
    found = await inspectPostgresDatabase(url);
  } catch (error) {
    if (isDriftwatchError(error) && error.code === "store_unavailable") {
      return {
        store: {
          name: "store",
          status: "fail",
          detail: `cannot connect to ${shown}: ${error.message}`,
          fix: "Check that PostgreSQL runs, the host, port, user and password in the URL, and pg_hba.conf.",
        },
        clock: { name: "clock", status: "skip", detail: "the store is unreachable" },
      };
    }
    return {
      store: { name: "store", status: "fail", detail: `${shown}: ${(error as Error).message}`, fix: "Check the user's privileges on the driftwatch schema." },
      clock: { name: "clock", status: "skip", detail: "the store query failed" },
    };
  }
  const skew = found.clockSkewMs;
  const clock: DoctorCheck =
    Math.abs(skew) <= MAX_CLOCK_SKEW_MS + found.roundTripMs / 2
      ? { name: "clock", status: "ok", detail: `within ${Math.abs(Math.round(skew))} ms of PostgreSQL's now()` }
      : {
          name: "clock",
          status: "fail",
          detail: `${Math.round(skew)} ms off PostgreSQL's now()`,
          fix: "Synchronize the clocks (systemd-timesyncd, chrony or ntpd) on this host and the database host.",
        };
  if (!found.hasSchema) {
    return { store: { name: "store", status: "fail", detail: `${shown}: no driftwatch schema yet`, fix: "Start driftwatch serve once: it creates the schema." }, clock };
  }
  const version = found.schemaVersion;
  if (version !== POSTGRES_SCHEMA_VERSION) {
    return {
      store: {
        name: "store",
        status: "fail",
        detail: `${shown}: schema version ${version ?? "none"}, this build expects ${POSTGRES_SCHEMA_VERSION}`,
        fix:
          version !== null && version > POSTGRES_SCHEMA_VERSION
            ? "A newer driftwatch migrated this database: run that version."
            : "Start driftwatch serve: it applies the pending migrations (pg_dump first).",
      },
      clock,
    };
  }
  return { store: { name: "store", status: "ok", detail: `PostgreSQL ${shown}: reachable, schema version ${version} (current)` }, clock };
}

function checkBrowser(chromiumPath: string): Promise<DoctorCheck> {
  const fix = `Install Chromium (apt-get install chromium) or set ${ENV.chromiumPath} to its path; only website monitors with browserOptions need it.`;
  if (!fs.existsSync(chromiumPath)) return Promise.resolve({ name: "browser", status: "fail", detail: `no Chromium at ${chromiumPath}`, fix });
  return new Promise((resolve) => {
    execFile(
      chromiumPath,
      ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--dump-dom", "data:text/html,<p>driftwatch-doctor</p>"],
      { timeout: 30_000, maxBuffer: 1024 * 1024 },
      (error, stdout) => {
        if (error === null && stdout.includes("driftwatch-doctor")) {
          resolve({ name: "browser", status: "ok", detail: `${chromiumPath} launches and renders a page` });
        } else {
          resolve({ name: "browser", status: "fail", detail: `${chromiumPath} did not render a page: ${error?.message.split("\n")[0] ?? "no output"}`, fix });
        }
      },
    );
  });
}

async function checkEgress(allowPrivate: boolean, host: string): Promise<DoctorCheck> {
  const policy = allowPrivate
    ? "private networks ALLOWED (monitors may reach loopback, LAN and cloud metadata addresses)"
    : "private networks blocked";
  try {
    const addresses = await dns.lookup(host, { all: true });
    return { name: "egress", status: "ok", detail: `${policy}; DNS resolves ${host} (${addresses.map((a) => a.address).join(", ")})` };
  } catch (error) {
    return {
      name: "egress",
      status: "fail",
      detail: `${policy}; DNS cannot resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      fix: "Fix /etc/resolv.conf or the host's DNS; monitors of public URLs fail until names resolve.",
    };
  }
}

export async function runDoctor(args: readonly string[], io: CliIo): Promise<number> {
  let options;
  try {
    const parsed = parseArgs(args, {
      database: { type: "string" },
      "dns-host": { type: "string" },
      "skip-browser": { type: "boolean" },
      help: { type: "boolean" },
    });
    options = parsed.options;
    if (options.help === true) {
      io.stdout(DOCTOR_USAGE);
      return 0;
    }
    if (parsed.positionals.length > 0) throw new Error(`unexpected argument ${parsed.positionals[0]}`);
  } catch (error) {
    io.stderr(`driftwatch doctor: ${(error as Error).message}.\n\n${DOCTOR_USAGE}`);
    return EXIT_ERROR;
  }
  const fromFlag = typeof options.database === "string" ? options.database : undefined;
  const fromEnv = io.env[ENV.database] === "" ? undefined : io.env[ENV.database];
  let location;
  let allowPrivate = false;
  try {
    location = parseDatabaseUrl(fromFlag ?? fromEnv ?? DEFAULT_DATABASE_URL, fromFlag !== undefined ? "--database" : ENV.database, io.cwd);
    const allow = io.env[ENV.allowPrivateNetworks];
    allowPrivate = allow !== undefined && allow !== "" && parseBoolean(allow, ENV.allowPrivateNetworks);
  } catch (error) {
    io.stderr(`driftwatch doctor: ${(error as Error).message}\n`);
    return EXIT_ERROR;
  }

  const checks: DoctorCheck[] = [];
  if (location.kind === "sqlite") {
    checks.push(await checkSqliteStore(location.filename));
    checks.push({ name: "clock", status: "skip", detail: "SQLite runs in this process: there is no second clock to compare" });
  } else if (location.kind === "postgres") {
    const { store, clock } = await checkPostgresStore(location.url);
    checks.push(store, clock);
  } else {
    checks.push({ name: "store", status: "ok", detail: "memory: nothing is kept across restarts" });
    checks.push({ name: "clock", status: "skip", detail: "memory: no second clock to compare" });
  }
  const chromiumPath = io.env[ENV.chromiumPath] || DEFAULT_CHROMIUM_PATH;
  checks.push(
    options["skip-browser"] === true ? { name: "browser", status: "skip", detail: "--skip-browser" } : await checkBrowser(chromiumPath),
  );
  checks.push(await checkEgress(allowPrivate, typeof options["dns-host"] === "string" ? options["dns-host"] : "example.com"));

  const order = ["store", "browser", "egress", "clock"];
  checks.sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  let out = "";
  for (const check of checks) {
    out += `${check.status.toUpperCase().padEnd(4)}  ${check.name.padEnd(7)}  ${check.detail}\n`;
    if (check.fix !== undefined) out += `      ${"".padEnd(7)}  fix: ${check.fix}\n`;
  }
  const failed = checks.filter((c) => c.status === "fail").length;
  out += failed === 0 ? "\nAll checks passed.\n" : `\n${failed} problem${failed === 1 ? "" : "s"} to fix.\n`;
  (failed === 0 ? io.stdout : io.stderr)(out);
  return failed === 0 ? 0 : 1;
}
