// Installs the packages the way users get them: packs every public workspace package (npm pack),
// installs the tarballs into an empty project in a temporary folder outside the workspace (other
// dependencies from the registry) and there: imports core in ESM and CommonJS and diffs two
// documents; type-checks a TypeScript consumer with moduleResolution nodenext and bundler; runs
// the installed `driftwatch serve` on SQLite and drives it with the installed client to a received
// webhook verified with the client's verifyWebhook. Run by @driftwatch/server's `npm test`
// (needs the packages built: turbo builds them first). Exit status non-zero on any failure.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-pack-"));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const step = (what) => console.log(`pack-test: ${what}`);
const sh = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
let server = null;
let receiver = null;

try {
  // 1. Pack every public package.
  const tarballs = [];
  const tarDir = path.join(work, "tarballs");
  fs.mkdirSync(tarDir);
  for (const dir of fs.readdirSync(path.join(root, "packages"))) {
    const pkgDir = path.join(root, "packages", dir);
    const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8"));
    if (pkg.private) continue;
    for (const field of ["license", "repository", "files", "engines", "publishConfig"]) {
      if (pkg[field] === undefined) throw new Error(`${pkg.name}: package.json has no ${field}`);
    }
    if (typeof pkg.sideEffects !== "boolean" && !Array.isArray(pkg.sideEffects)) throw new Error(`${pkg.name}: no sideEffects`);
    if (!fs.existsSync(path.join(pkgDir, "dist"))) throw new Error(`${pkg.name} is not built (run npm run build)`);
    const [{ filename }] = JSON.parse(sh(npm, ["pack", "--json", "--pack-destination", tarDir], pkgDir));
    tarballs.push(path.join(tarDir, filename));
  }
  step(`packed ${tarballs.length} packages`);

  // 2. An empty project outside the workspace, with the tarballs; the rest from the registry.
  const app = path.join(work, "app");
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "consumer", private: true, version: "0.0.0" }, null, 2));
  const rootPkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
  const typescript = rootPkg.devDependencies.typescript;
  const nodeTypes = rootPkg.devDependencies["@types/node"];
  // @driftwatch/store-testkit has vitest as a peer: its users have vitest already (the repository's
  // version here); left to itself npm would add the newest, whose types need a newer @types/node.
  const vitest = rootPkg.devDependencies.vitest;
  // No overrides here: a consumer installs what the registry resolves for it.
  const installStart = Date.now();
  const result = spawnSync(npm, ["install", "--no-audit", "--no-fund", "--loglevel=warn", ...tarballs, `typescript@${typescript}`, `@types/node@${nodeTypes}`, `vitest@${vitest}`], {
    cwd: app,
    encoding: "utf8",
    // A hung install (a registry or download that never answers) fails the test instead of CI.
    timeout: 10 * 60_000,
    killSignal: "SIGKILL",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error !== undefined) throw new Error(`npm install did not finish (${result.error.message}):\n${result.stdout}\n${result.stderr}`);
  if (result.status !== 0) throw new Error(`npm install failed (${String(result.status)}):\n${result.stdout}\n${result.stderr}`);
  step(`installed the tarballs (${((Date.now() - installStart) / 1000).toFixed(0)} s)`);
  // npm prints engine warnings on stderr. One is known and upstream: on Node 20, fastify's
  // light-my-request pulls cookie 2 (engines >=22), used only by Fastify's inject(), never by
  // `driftwatch serve`; the repository overrides it, a consumer cannot be made to. Any other
  // engine warning fails the test.
  const engineWarnings = `${result.stdout}\n${result.stderr}`.split("\n").filter((line) => /EBADENGINE/.test(line));
  const packagesWarned = new Set();
  const installOutput = `${result.stdout}\n${result.stderr}`;
  for (const match of installOutput.matchAll(/EBADENGINE Unsupported engine \{[^}]*?package: '(@?[^@']+)@/g)) packagesWarned.add(match[1]);
  if (engineWarnings.length > 0) {
    const unexpected = [...packagesWarned].filter((name) => name !== "cookie");
    if (unexpected.length > 0 || packagesWarned.size === 0) throw new Error(`npm install printed an engine warning:\n${installOutput}`);
    step(`npm warned about the known upstream engine of ${[...packagesWarned].join(", ")} (Node ${process.versions.node})`);
  }

  // 3. core in ESM and CommonJS.
  const docs = `{ price: 10, tags: ["a"] }, { price: "10", tags: ["a", "b"] }`;
  fs.writeFileSync(
    path.join(app, "esm.mjs"),
    `import { diffJson } from "@driftwatch/core";\nconst d = diffJson(${docs});\nconsole.log(JSON.stringify(d.changes.map((c) => c.path).sort()));\n`,
  );
  fs.writeFileSync(
    path.join(app, "cjs.cjs"),
    `const { diffJson } = require("@driftwatch/core");\nconst d = diffJson(${docs});\nconsole.log(JSON.stringify(d.changes.map((c) => c.path).sort()));\n`,
  );
  const expected = JSON.stringify(["$.price", "$.tags[1]"]);
  for (const file of ["esm.mjs", "cjs.cjs"]) {
    const out = sh(process.execPath, [file], app).trim();
    if (out !== expected) throw new Error(`${file} printed ${out}, expected ${expected}`);
  }
  step("core diffs in ESM and CommonJS");

  // 4. A TypeScript consumer, type-checked with both module resolutions.
  fs.writeFileSync(
    path.join(app, "consumer.ts"),
    `import { diffJson, type JsonDiff } from "@driftwatch/core";
import { Driftwatch, verifyWebhook } from "@driftwatch/client";
import { createDriftwatchServer } from "@driftwatch/server";
import type { Monitor } from "@driftwatch/schema";
const d: JsonDiff | null = diffJson({ a: 1 }, { a: 2 });
const client = new Driftwatch({ baseUrl: "http://127.0.0.1:1", token: "dw_x" });
export async function f(m: Monitor): Promise<string> {
  const got = await client.monitors.get(m.id);
  void verifyWebhook; void createDriftwatchServer; void d;
  return got.name;
}
`,
  );
  for (const [moduleResolution, module] of [
    ["nodenext", "nodenext"],
    ["bundler", "esnext"],
  ]) {
    fs.writeFileSync(
      path.join(app, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module, moduleResolution, target: "es2022", types: ["node"], skipLibCheck: false }, files: ["consumer.ts"] }),
    );
    sh(process.execPath, [path.join(app, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], app);
    step(`types check with moduleResolution ${moduleResolution}`);
  }

  // 5. The installed CLI on SQLite, driven by the installed client to a verified webhook.
  const received = [];
  let secret = null;
  const { verifyWebhook, Driftwatch } = await import(path.join(app, "node_modules", "@driftwatch", "client", "dist", "index.js"));
  let targetValue = { v: 1 };
  receiver = http.createServer((req, res) => {
    if (req.url === "/target") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(targetValue));
      return;
    }
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      verifyWebhook(body, req.headers, secret).then(
        (event) => {
          received.push(event);
          res.writeHead(204).end();
        },
        () => res.writeHead(400).end(),
      );
    });
  });
  await new Promise((r) => receiver.listen(0, "127.0.0.1", r));
  const local = `http://127.0.0.1:${receiver.address().port}`;
  const token = "dw_" + Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  const bin = path.join(app, "node_modules", ".bin", "driftwatch");
  let output = "";
  server = spawn(bin, ["serve", "--port", "0", "--database", `sqlite:${path.join(app, "dw.db")}`, "--allow-private-networks", "--log-format", "json"], {
    cwd: app,
    env: { ...process.env, DRIFTWATCH_ADMIN_TOKEN: token },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout.on("data", (d) => (output += d));
  server.stderr.on("data", (d) => (output += d));
  const baseUrl = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`driftwatch serve did not start:\n${output}`)), 60_000);
    const poll = setInterval(() => {
      const line = output.split("\n").find((l) => l.includes('"driftwatch listening"'));
      if (line !== undefined) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(JSON.parse(line).url);
      }
    }, 100);
    server.once("exit", (code) => reject(new Error(`driftwatch serve exited with ${code}:\n${output}`)));
  });
  const client = new Driftwatch({ baseUrl, token });
  const hook = await client.webhooks.create({ url: `${local}/hook`, minSeverity: "info" });
  secret = hook.secret;
  const monitor = await client.monitors.create({ type: "api", name: "pack-test", url: `${local}/target`, intervalSeconds: 3600 });
  // The first change must be delivered: a learning monitor's second content is a learning diff,
  // recorded but not sent (a new monitor learns by default).
  await client.settings.update(monitor.id, { autoApplySuggestions: false });
  await client.monitors.check(monitor.id);
  targetValue = { v: 2 };
  const { diff } = await client.monitors.check(monitor.id);
  if (diff === null) throw new Error("no diff after the change");
  const deadline = Date.now() + 30_000;
  while (!received.some((e) => e.diffId === diff.id)) {
    if (Date.now() > deadline) throw new Error(`no verified webhook for diff ${diff.id}:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  step(`installed driftwatch serve delivered a verified webhook for ${diff.id}`);

  // 6. The installed server serves the installed dashboard at /, under its CSP, with its assets.
  const page = await fetch(`${baseUrl}/monitors`);
  const html = await page.text();
  const csp = page.headers.get("content-security-policy") ?? "";
  if (page.status !== 200 || !html.includes('<div id="root">') || !csp.includes("script-src 'self'")) {
    throw new Error(`the installed dashboard is not served at /: ${String(page.status)} ${csp}\n${html.slice(0, 500)}`);
  }
  const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  const asset = script === undefined ? null : await fetch(`${baseUrl}${script}`);
  if (asset === null || asset.status !== 200 || !(asset.headers.get("cache-control") ?? "").includes("immutable")) throw new Error(`the dashboard's script ${String(script)} is not served`);
  step(`installed driftwatch serve serves the installed dashboard (${script})`);
  console.log("pack-test: ok");
} finally {
  if (server !== null && server.exitCode === null) {
    const exited = new Promise((r) => server.once("exit", r));
    server.kill("SIGTERM");
    // A server that ignores SIGTERM is killed after 20 s rather than hanging the test.
    const force = setTimeout(() => server.kill("SIGKILL"), 20_000);
    await exited;
    clearTimeout(force);
  }
  receiver?.close();
  fs.rmSync(work, { recursive: true, force: true });
}
