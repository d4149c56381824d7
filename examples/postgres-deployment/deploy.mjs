// A PostgreSQL deployment, end to end on one machine:
//   1. create the database when it does not exist (DRIFTWATCH_EXAMPLE_PG_ADMIN_URL, default the local server);
//   2. `driftwatch token create --org acme --database postgres://...` (applies the migrations, creates the org);
//   3. `driftwatch serve --database postgres://...` and use @driftwatch/client with the acme token;
//   4. stop the server (SIGTERM, graceful), start it again, and find the data still there.
import { execFileSync, spawn } from "node:child_process";
import { createRequire } from "node:module";
import net from "node:net";
import { pathToFileURL } from "node:url";
import { Driftwatch } from "@driftwatch/client";
import pg from "pg";

const require = createRequire(import.meta.url);
const cli = require.resolve("@driftwatch/server/package.json").replace(/package\.json$/, "dist/cli.js");

export async function ensureDatabase(adminUrl, name) {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const { rowCount } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (rowCount === 0) await admin.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropDatabase(adminUrl, name) {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name.replaceAll('"', '""')}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

async function freePort() {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

async function serve(databaseUrl, port) {
  const child = spawn(process.execPath, [cli, "serve", "--host", "127.0.0.1", "--port", String(port), "--database", databaseUrl], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`serve exited (${child.exitCode}):\n${log}`);
    if (await fetch(`${base}/readyz`).then((r) => r.ok, () => false)) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`serve did not become ready:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    async stop() {
      const exited = new Promise((r) => child.once("exit", (code, signal) => r({ code, signal })));
      child.kill("SIGTERM");
      return exited;
    },
  };
}

export async function deploy({ adminUrl, database, log = console.log }) {
  const databaseUrl = await ensureDatabase(adminUrl, database);
  log(`database ${database} ready`);
  const out = execFileSync(process.execPath, [cli, "token", "create", "--org", "acme", "--name", "deploy", "--scopes", "monitors:read,monitors:write,webhooks:read,webhooks:write", "--database", databaseUrl], { encoding: "utf8" });
  const token = out.match(/dw_[A-Za-z0-9_-]{43}/)?.[0];
  if (!token) throw new Error(`no token in the output of token create:\n${out}`);
  log("token for organization acme created");

  const port = await freePort();
  let server = await serve(databaseUrl, port);
  log(`serving on ${server.base} (PostgreSQL)`);
  const client = new Driftwatch({ baseUrl: server.base, token });
  // Public URL: the SSRF guard stays on in this deployment; the monitor is paused so nothing is fetched.
  const monitor = await client.monitors.create({ name: "status page", url: "https://status.example.com/api/v2/status.json", state: "paused" });
  log(`created ${monitor.id}`);
  const stopped = await server.stop();
  log(`stopped (exit ${stopped.code ?? stopped.signal})`);

  server = await serve(databaseUrl, port);
  try {
    const again = await client.monitors.get(monitor.id);
    log(`after restart: ${again.id} "${again.name}" is still there`);
    return { monitorId: monitor.id, afterRestart: again, gracefulExit: stopped };
  } finally {
    await server.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const adminUrl = process.env.DRIFTWATCH_EXAMPLE_PG_ADMIN_URL ?? process.env.DRIFTWATCH_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  deploy({ adminUrl, database: process.env.DRIFTWATCH_EXAMPLE_DATABASE ?? "driftwatch_example" }).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
