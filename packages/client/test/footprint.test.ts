import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";

const here = path.dirname(fileURLToPath(import.meta.url));
const clientDir = path.resolve(here, "..");
const schemaDir = path.resolve(clientDir, "../schema");
const FORBIDDEN = ["cheerio", "jsonpath-plus", "playwright-core", "better-sqlite3", "pg"];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "dw-client-footprint-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function run(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false" } });
}

describe("footprint (needs the built dist: npm test builds first)", () => {
  it("installs into an empty project without the engine's heavy dependencies", () => {
    for (const dir of [clientDir, schemaDir]) {
      expect(fs.existsSync(path.join(dir, "dist/index.js")), `${dir} is built`).toBe(true);
    }
    const packed = [schemaDir, clientDir].map((dir) => {
      const out = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", tmp], dir)) as Array<{ filename: string }>;
      return path.join(tmp, out[0]!.filename);
    });
    const project = path.join(tmp, "project");
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    run("npm", ["install", "--no-package-lock", "--ignore-scripts", ...packed], project);
    const installed = fs.readdirSync(path.join(project, "node_modules"));
    for (const name of FORBIDDEN) expect(installed, `${name} must not be installed`).not.toContain(name);
    const script = `import { Driftwatch, verifyWebhook } from "@driftwatch/client"; console.log(typeof Driftwatch, typeof verifyWebhook);`;
    expect(run("node", ["--input-type=module", "-e", script], project).trim()).toBe("function function");
    const cjs = `const { Driftwatch } = require("@driftwatch/client"); console.log(typeof Driftwatch);`;
    expect(run("node", ["-e", cjs], project).trim()).toBe("function");
  }, 180_000);

  it("bundles for the browser without Node built-ins", async () => {
    const result = await build({
      entryPoints: [path.join(clientDir, "dist/index.js")],
      bundle: true,
      platform: "browser",
      format: "esm",
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((i) => i.includes("node:") || /^(fs|crypto|http|https|net|buffer|stream)$/.test(i))).toBe(false);
    expect(result.errors).toEqual([]);
    // types come from @driftwatch/schema, but no zod runtime ships to browsers
    expect(inputs.filter((i) => i.includes("node_modules/zod"))).toEqual([]);
    expect(result.outputFiles[0]!.text.length).toBeGreaterThan(1000);
  });
});
