import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// `driftwatch api-diff` run as a real process (src/cli.ts through tsx) on real files and a local
// HTTP server.
const packageDir = path.join(import.meta.dirname, "../..");
const cli = path.join(packageDir, "src/cli.ts");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-cli-api-diff-"));
const real = path.join(import.meta.dirname, "../../../openapi/test/real");

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--conditions=@driftwatch/source", "--import", "tsx", cli, "api-diff", ...args],
      // cwd: the package, where `--import tsx` resolves
      { cwd: packageDir, env: { ...process.env, DRIFTWATCH_ALLOW_PRIVATE_NETWORKS: "" }, timeout: 30_000 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr }),
    );
  });
}

const base = write(
  "base.yaml",
  `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /pets:
    get:
      parameters:
        - {name: limit, in: query, schema: {type: integer}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "schemas/pet.yaml#/Pet"}
`,
);
write("schemas/pet.yaml", `Pet:\n  type: object\n  required: [id]\n  properties:\n    id: {type: integer}\n    name: {type: string}\n    status: {type: string, enum: [available, sold]}\n`);
const potentially = write("potentially.json", JSON.stringify({
  openapi: "3.1.0",
  info: { title: "t", version: "2" },
  paths: { "/pets": { get: { parameters: [{ name: "limit", in: "query", schema: { type: "integer" } }], responses: { 200: { description: "ok", content: { "application/json": { schema: { type: "object", required: ["id"], properties: { id: { type: "integer" }, name: { type: "string" }, status: { type: "string", enum: ["available", "sold", "pending"] } } } } } } } } } },
}));
const breaking = write("breaking.yaml", fs.readFileSync(base, "utf8").replace("{name: limit, in: query, schema: {type: integer}}", "{name: limit, in: query, required: true, schema: {type: integer}}"));

let server: http.Server;
let origin = "";
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const file = req.url === "/openapi.yaml" ? base : req.url === "/schemas/pet.yaml" ? path.join(dir, "schemas/pet.yaml") : undefined;
    if (file === undefined) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": "application/yaml" }).end(fs.readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("driftwatch api-diff (a real process)", () => {
  it("exits 0 with no API change, 1 on a breaking change, with the change in text and JSON", async () => {
    const same = await run(base, path.relative(packageDir, base));
    expect(same).toEqual({ code: 0, stdout: "No API changes.\n", stderr: "" });

    const text = await run(path.relative(packageDir, base), breaking);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^1 API change: 1 breaking, 0 potentially breaking, 0 non-breaking\n/);
    expect(text.stdout).toMatch(/breaking\s+request-parameter-became-required\s+GET \/pets\s+the query request parameter "limit" became required/);

    const json = await run(path.relative(packageDir, base), breaking, "--format", "json");
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      changes: [{ id: "request-parameter-became-required", level: "breaking", operation: "GET /pets", path: "/paths/~1pets/get/parameters/0", message: 'the query request parameter "limit" became required' }],
    });
  }, 60_000);

  it("--fail-on picks the level that fails: potentially-breaking, breaking (default), none", async () => {
    const byDefault = await run(path.relative(packageDir, base), potentially, "--format", "json");
    expect(byDefault.code).toBe(0);
    expect(JSON.parse(byDefault.stdout).changes.map((c: { id: string; level: string }) => [c.id, c.level])).toEqual([["response-property-enum-value-added", "potentially-breaking"]]);
    expect((await run(path.relative(packageDir, base), potentially, "--fail-on", "potentially-breaking")).code).toBe(1);
    expect((await run(path.relative(packageDir, base), breaking, "--fail-on", "none")).code).toBe(0);
  }, 60_000);

  it("exits 2 with the reason on stderr for unreadable or invalid input and bad flags", async () => {
    const missing = await run(path.join(dir, "missing.yaml"), base);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read .*missing\.yaml: no such file/);
    const swagger = write("swagger.yaml", 'swagger: "2.0"\ninfo: {title: t, version: "1"}\npaths: {}\n');
    const refused = await run(swagger, path.relative(packageDir, base));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/Swagger 2\.0.*\(swagger_2_unsupported\)/);
    const flag = await run(path.relative(packageDir, base), path.relative(packageDir, base), "--fail-on", "sometimes");
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--fail-on is breaking, potentially-breaking or none/);
  }, 60_000);

  it("reads URLs behind the SSRF guard: refused on loopback, read with --allow-private-networks, $refs followed", async () => {
    const guarded = await run(`${origin}/openapi.yaml`, path.relative(packageDir, base));
    expect(guarded.code).toBe(2);
    expect(guarded.stderr).toMatch(/unsafe_url/);
    const allowed = await run(`${origin}/openapi.yaml`, breaking, "--allow-private-networks", "--format", "json");
    expect(allowed.code).toBe(1);
    expect(JSON.parse(allowed.stdout).changes.map((c: { id: string }) => c.id)).toEqual(["request-parameter-became-required"]);
  }, 60_000);

  it("diffs real documents: Redocly's Museum API between two releases", async () => {
    const result = await run(path.join(real, "museum/openapi-2024-06-04.yaml"), path.join(real, "museum/openapi-2024-11-20.yaml"), "--format", "json");
    expect(result.code).toBe(1);
    const ids = JSON.parse(result.stdout).changes.map((c: { id: string }) => c.id);
    expect(ids).toContain("response-property-became-optional");
    expect(ids).toContain("webhook-added");
  }, 60_000);
});
