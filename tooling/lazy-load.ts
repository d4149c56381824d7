// Checks that a dependency is loaded on first use, not on import (issue 26, docs/benchmarks.md):
// a child process of its own runs `before` (the imports and the uses that must not load it), then
// `use` (the first use that must), and reports how many files of the named packages were loaded
// after each: what ESM imports resolved (a module resolve hook) and what `require` loaded
// (`require.cache`). Tests of several packages share it.
import { spawnSync } from "node:child_process";

const HOOKS = `
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  port.postMessage(result.url);
  return result;
}`;

export interface LazyLoadCheck {
  /** The test file's directory: `before` and `use` import relative to it (`../src/index.ts`). */
  cwd: string;
  /** The npm packages that must not load before `use` (`["cheerio", "parse5"]`). */
  packages: readonly string[];
  /** ES module code run first (top-level await allowed). */
  before: string;
  /** ES module code run second; omitted: only `before` is checked. */
  use?: string;
  /** ES module code run last, outside what is measured (closing what `before` opened). */
  after?: string;
}

export interface LazyLoadResult {
  /** Files of the packages loaded after `before`. */
  afterImport: number;
  /** Files of the packages loaded after `use` (0 without `use`). */
  afterUse: number;
  /** The child's stderr without Node's experimental-feature warnings. */
  stderr: string;
  status: number | null;
}

const escape = (name: string): string => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Runs the check in a child process (`--conditions=@driftwatch/source --import tsx`). */
export function runLazyLoadCheck(check: LazyLoadCheck): LazyLoadResult {
  const pattern = `[\\\\/]node_modules[\\\\/](${check.packages.map(escape).join("|")})[\\\\/]`;
  const script = `
import { register, createRequire } from "node:module";
import { MessageChannel } from "node:worker_threads";
const { port1, port2 } = new MessageChannel();
const resolved = [];
port1.on("message", (url) => resolved.push(url));
register("data:text/javascript," + encodeURIComponent(${JSON.stringify(HOOKS)}), { data: { port: port2 }, transferList: [port2] });
const required = () => Object.keys(createRequire(import.meta.url).cache);
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));
const pattern = new RegExp(${JSON.stringify(pattern)});
const loaded = () => [...resolved, ...required()].filter((url) => pattern.test(url)).length;
${check.before}
await settle();
const afterImport = loaded();
${check.use ?? ""}
await settle();
const afterUse = ${check.use === undefined ? "0" : "loaded()"};
${check.after ?? ""}
port1.close();
console.log(JSON.stringify({ afterImport, afterUse }));
`;
  const run = spawnSync(process.execPath, ["--conditions=@driftwatch/source", "--import", "tsx", "--input-type=module", "-e", script], {
    cwd: check.cwd,
    encoding: "utf8",
    timeout: 60_000,
  });
  const stderr = run.stderr.replace(/^\(node:\d+\) ExperimentalWarning.*\n?.*\n?/gm, "");
  const last = run.stdout.trim().split("\n").at(-1) ?? "";
  let counts: { afterImport: number; afterUse: number };
  try {
    counts = JSON.parse(last) as { afterImport: number; afterUse: number };
  } catch {
    throw new Error(`the lazy-load check printed no result (exit ${String(run.status)}): ${stderr || run.stdout}`);
  }
  return { ...counts, stderr, status: run.status };
}
