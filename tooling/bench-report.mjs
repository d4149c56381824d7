// Writes one package's section of docs/benchmarks.md, between its own markers, leaving the
// other packages' sections as they are. Usage from a bench script:
//   import { writeBenchSection } from "../../../tooling/bench-report.mjs";
//   writeBenchSection("core", markdownTable);
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const file = path.join(root, "docs", "benchmarks.md");

/** A line naming the machine and Node version, for each section. */
/** The median of some figures (the mean of the middle two for an even count). */
export function median(values) {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function machineLine() {
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  return `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} x ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${process.platform} ${os.release()}, Node ${process.version}.`;
}

export function writeBenchSection(name, markdown) {
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  let text = fs.existsSync(file)
    ? fs.readFileSync(file, "utf8")
    : "# Benchmarks\n\nEvery figure is a ratio against a peer measured side by side in the same run (`npm run bench`).\nSections are rewritten by each package's bench script.\n";
  const block = `${start}\n${markdown.trim()}\n\n${machineLine()}\n${end}`;
  const re = new RegExp(`${start}[\\s\\S]*?${end}`);
  text = re.test(text) ? text.replace(re, block) : `${text.trimEnd()}\n\n${block}\n`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}
