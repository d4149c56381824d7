// Fails the build when the initial JavaScript (the entry script and the chunks index.html preloads)
// passes the budget, gzipped. Lazy chunks are not counted: they load when a page needs them.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

export const BUDGET_BYTES = 250 * 1024;
const dist = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "dist");
const html = readFileSync(path.join(dist, "index.html"), "utf8");
const files = new Set();
for (const match of html.matchAll(/<script[^>]+src="([^"]+\.js)"/g)) files.add(match[1]);
for (const match of html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+\.js)"/g)) files.add(match[1]);
if (files.size === 0) {
  console.error("size check: index.html references no script");
  process.exit(1);
}
let total = 0;
for (const file of files) {
  const gz = gzipSync(readFileSync(path.join(dist, file.replace(/^\//, "")))).length;
  total += gz;
  console.log(`  ${file}  ${(gz / 1024).toFixed(1)} KB gzipped`);
}
const line = `initial JS ${(total / 1024).toFixed(1)} KB gzipped (budget ${BUDGET_BYTES / 1024} KB)`;
if (total > BUDGET_BYTES) {
  console.error(`size check failed: ${line}`);
  process.exit(1);
}
console.log(`size check: ${line}`);
