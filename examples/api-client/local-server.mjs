// Starts `driftwatch serve` (the built CLI of @driftwatch/server) on a throwaway SQLite file,
// with the SSRF guard lifted so the server may fetch this example's loopback target.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const require = createRequire(import.meta.url);

export function cliPath() {
  return path.join(path.dirname(require.resolve("@driftwatch/server/package.json")), "dist", "cli.js");
}

async function freePort() {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

export async function startLocalServer({ database, env = {} } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-example-"));
  const port = await freePort();
  const token = "dw_" + randomBytes(32).toString("base64url");
  const child = spawn(
    process.execPath,
    [cliPath(), "serve", "--host", "127.0.0.1", "--port", String(port), "--database", database ?? `sqlite:${path.join(dir, "driftwatch.db")}`, "--allow-private-networks"],
    { env: { ...process.env, DRIFTWATCH_ADMIN_TOKEN: token, ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`driftwatch serve exited (${child.exitCode}):\n${log}`);
    if (await fetch(`${baseUrl}/healthz`).then((r) => r.ok, () => false)) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`driftwatch serve did not start:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    baseUrl,
    token,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
