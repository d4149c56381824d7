import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliIo } from "../../src/cli/io.js";
import { runCli } from "../../src/cli/main.js";

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

// a document served over HTTP whose $ref names a local file
const sneakyFile = write("served/sneaky.yaml", fs.readFileSync(base, "utf8").replace("schemas/pet.yaml#/Pet", `${pathToFileURL(path.join(dir, "schemas/pet.yaml")).href}#/Pet`));

let server: http.Server;
let origin = "";
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const file = req.url === "/openapi.yaml" ? base : req.url === "/schemas/pet.yaml" ? path.join(dir, "schemas/pet.yaml") : req.url === "/sneaky.yaml" ? sneakyFile : undefined;
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

async function runInProcess(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env: {}, cwd: dir };
  const code = await runCli(["api-diff", ...args], io);
  return { code, stdout, stderr };
}

describe("driftwatch api-diff as a real process", () => {
  it("exit status 1 on a breaking change (text), 0 below --fail-on (JSON), 2 on an unreadable file, URLs read", async () => {
    // in parallel: each process starts tsx
    const [text, json, missing, url] = await Promise.all([
      run(path.relative(packageDir, base), breaking),
      run(base, potentially, "--format", "json"),
      run(path.join(dir, "missing.yaml"), base),
      run(`${origin}/openapi.yaml`, breaking, "--allow-private-networks", "--format", "json"),
    ]);
    expect(text.code).toBe(1);
    expect(text.stderr).toBe("");
    expect(text.stdout).toMatch(/^1 API change: 1 breaking, 0 potentially breaking, 0 non-breaking\n/);
    expect(text.stdout).toMatch(/breaking\s+request-parameter-became-required\s+GET \/pets\s+the query request parameter "limit" became required/);

    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      changes: [{ id: "response-property-enum-value-added", level: "potentially-breaking", operation: "GET /pets", path: "/paths/~1pets/get/responses/200/content/application~1json/schema/properties/status", message: 'the response property "status" (response 200): enum value "pending" added' }],
    });

    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toMatch(/cannot read .*missing\.yaml: no such file/);

    expect(url.code).toBe(1);
    expect(JSON.parse(url.stdout).changes.map((c: { id: string }) => c.id)).toEqual(["request-parameter-became-required"]);
  }, 60_000);
});

describe("driftwatch api-diff", () => {
  it("exits 0 with no API change, and prints the change as JSON with id, level, operation, path, message", async () => {
    expect(await runInProcess(base, "base.yaml")).toEqual({ code: 0, stdout: "No API changes.\n", stderr: "" });
    const json = await runInProcess("base.yaml", breaking, "--format", "json");
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      changes: [{ id: "request-parameter-became-required", level: "breaking", operation: "GET /pets", path: "/paths/~1pets/get/parameters/0", message: 'the query request parameter "limit" became required' }],
    });
  });

  it("--fail-on picks the level that fails: potentially-breaking, breaking (default), none", async () => {
    expect((await runInProcess("base.yaml", potentially)).code).toBe(0);
    expect((await runInProcess("base.yaml", potentially, "--fail-on", "potentially-breaking")).code).toBe(1);
    expect((await runInProcess("base.yaml", breaking, "--fail-on", "none")).code).toBe(0);
  });

  it("exits 2 with the reason on stderr for invalid input and bad flags", async () => {
    const swagger = write("swagger.yaml", 'swagger: "2.0"\ninfo: {title: t, version: "1"}\npaths: {}\n');
    const refused = await runInProcess(swagger, "base.yaml");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/Swagger 2\.0.*\(swagger_2_unsupported\)/);
    const broken = await runInProcess(write("broken.yaml", "openapi: [unclosed\n"), "base.yaml");
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/broken\.yaml is neither JSON nor YAML: .*\(invalid_document\)/);
    const flag = await runInProcess("base.yaml", "base.yaml", "--fail-on", "sometimes");
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--fail-on is breaking, potentially-breaking or none/);
    const one = await runInProcess("base.yaml");
    expect(one.code).toBe(2);
  });

  it("reads URLs behind the SSRF guard: loopback refused without --allow-private-networks; a remote document may not point to local files", async () => {
    const guarded = await runInProcess(`${origin}/openapi.yaml`, "base.yaml");
    expect(guarded.code).toBe(2);
    expect(guarded.stderr).toMatch(/unsafe_url/);
    const sneaky = await runInProcess(`${origin}/sneaky.yaml`, "base.yaml", "--allow-private-networks");
    expect(sneaky.code).toBe(2);
    expect(sneaky.stderr).toMatch(/refers to a local file .*refused/);
  });

  it("diffs real documents: Redocly's Museum API between two releases", async () => {
    const result = await runInProcess(path.join(real, "museum/openapi-2024-06-04.yaml"), path.join(real, "museum/openapi-2024-11-20.yaml"), "--format", "json");
    expect(result.code).toBe(1);
    const ids = JSON.parse(result.stdout).changes.map((c: { id: string }) => c.id);
    expect(ids).toContain("response-property-became-optional");
    expect(ids).toContain("webhook-added");
  });
});
