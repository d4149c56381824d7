// Diff two JSON files with @driftwatch/core alone, applying policy rules:
//   node diff.mjs before.json after.json [rules.json]
import fs from "node:fs";
import { pathToFileURL } from "node:url";
import { diffJson, validatePolicyRules } from "@driftwatch/core";

export function diffFiles(beforePath, afterPath, rulesPath) {
  const before = JSON.parse(fs.readFileSync(beforePath, "utf8"));
  const after = JSON.parse(fs.readFileSync(afterPath, "utf8"));
  // validatePolicyRules throws a DriftwatchError naming the bad rule (rules[1].severity, ...)
  const policy = rulesPath ? validatePolicyRules(JSON.parse(fs.readFileSync(rulesPath, "utf8"))) : undefined;
  return diffJson(before, after, { policy });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [beforePath, afterPath, rulesPath] = process.argv.slice(2);
  if (!beforePath || !afterPath) {
    console.error("usage: node diff.mjs before.json after.json [rules.json]");
    process.exit(2);
  }
  const diff = diffFiles(beforePath, afterPath, rulesPath);
  if (!diff) {
    console.log("no change");
  } else {
    console.log(`${diff.classification}: ${diff.schemaChanges} schema, ${diff.valueChanges} value, top ${diff.topSeverity}`);
    for (const c of diff.changes) console.log(`  ${c.severity.padEnd(8)} ${c.category.padEnd(6)} ${c.op.padEnd(7)} ${c.path}`);
    console.log(diff.diffFingerprint);
  }
}
