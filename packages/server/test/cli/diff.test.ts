import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { CliIo } from "../../src/cli/io.js";
import { runCli } from "../../src/cli/main.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-cli-diff-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, value: unknown): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
  return file;
}

async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env: {}, cwd: dir };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

const before = write("before.json", { price: 10, currency: "EUR", items: [{ id: 1, name: "a" }], updatedAt: "2024-01-01" });
const same = write("same.json", { updatedAt: "2024-01-01", items: [{ name: "a", id: 1 }], currency: "EUR", price: 10 });
const after = write("after.json", { price: "10", items: [{ id: 0, name: "z" }, { id: 1, name: "a" }], updatedAt: "2024-02-02" });

describe("driftwatch diff", () => {
  it("exits 0 and says so when the documents are equal (key order ignored)", async () => {
    const result = await run("diff", before, same);
    expect(result).toEqual({ code: 0, stdout: "No changes.\n", stderr: "" });
  });

  it("exits 1 and prints one line per change with severity, category, op and path", async () => {
    const result = await run("diff", "before.json", "after.json");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("");
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^schema_change: 2 schema changes, 2 value changes, top severity critical$/);
    expect(lines[1]).toMatch(/^fingerprint sha256:[0-9a-f]{64}$/);
    const changeLines = lines.slice(3);
    expect(changeLines).toHaveLength(4);
    expect(changeLines.find((l) => l.includes("$.currency"))).toMatch(/^critical +schema +remove +\$\.currency/);
    expect(changeLines.find((l) => l.includes("$.price"))).toMatch(/^critical +schema +replace +\$\.price/);
    expect(changeLines.find((l) => l.includes("$.items[0]"))).toMatch(/^info +value +add +\$\.items\[0\]/);
    expect(changeLines.find((l) => l.includes("$.updatedAt"))).toMatch(/^info +value +replace +\$\.updatedAt +"2024-01-01" -> "2024-02-02"/);
  });

  it("--json prints the diff as JSON, and null when nothing changed", async () => {
    const changed = await run("diff", before, after, "--json");
    expect(changed.code).toBe(1);
    const diff = JSON.parse(changed.stdout) as { classification: string; schemaChanges: number; changes: { path: string }[] };
    expect(diff.classification).toBe("schema_change");
    expect(diff.schemaChanges).toBe(2);
    expect(diff.changes.map((c) => c.path).sort()).toEqual(["$.currency", "$.items[0]", "$.price", "$.updatedAt"]);
    const unchanged = await run("diff", "--json", before, same);
    expect(unchanged).toEqual({ code: 0, stdout: "null\n", stderr: "" });
  });

  it("--rules applies policy rules: ignored paths vanish and severities are set", async () => {
    const rules = write("rules.json", {
      rules: [
        { path: "$.updatedAt", action: "ignore" },
        { path: "$.items[*]", op: "add", severity: "high" },
        { path: "$.price", action: "ignore" },
        { path: "$.currency", action: "ignore" },
      ],
    });
    const result = await run("diff", before, after, "--rules", rules, "--json");
    expect(result.code).toBe(1);
    const diff = JSON.parse(result.stdout) as { topSeverity: string; changes: { path: string; severity: string }[] };
    expect(diff.changes).toEqual([expect.objectContaining({ path: "$.items[0]", severity: "high" })]);
    expect(diff.topSeverity).toBe("high");

    const ignoreAll = write("ignore-all.json", { rules: [{ path: "$..*", action: "ignore" }] });
    expect((await run("diff", before, after, `--rules=${ignoreAll}`)).code).toBe(0);
  });

  it("exits 2 with a clear message for missing files, bad JSON, bad rules and bad usage", async () => {
    const missing = await run("diff", before, path.join(dir, "nope.json"));
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toContain("cannot read");
    expect(missing.stderr).toContain("no such file");

    const broken = write("broken.json", "{ not json");
    const bad = await run("diff", before, broken);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/broken\.json is not valid JSON/);

    const badRules = write("bad-rules.json", { rules: [{ path: "$.a", action: "ignore" }, { path: "$[", action: "ignore" }] });
    const rulesResult = await run("diff", before, after, "--rules", badRules);
    expect(rulesResult.code).toBe(2);
    expect(rulesResult.stderr).toContain("invalid_policy_rules");
    expect(rulesResult.stderr).toContain("rules[1]");

    const oneFile = await run("diff", before);
    expect(oneFile.code).toBe(2);
    expect(oneFile.stderr).toContain("exactly two files");

    const unknown = await run("diff", before, after, "--colour");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option --colour");

    const noValue = await run("diff", before, after, "--rules");
    expect(noValue.code).toBe(2);
    expect(noValue.stderr).toContain("--rules needs a value");
  });

  it("prints help and the version", async () => {
    const help = await run("diff", "--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Exit status: 0 no change, 1 changed, 2 error");
    const version = await run("--version");
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
    expect((await run("frobnicate")).code).toBe(2);
  });

  it("--explain shows which rule or inference hid or rated each change", async () => {
    const old = write("explain-before.json", { generated_at: "2026-01-01T00:00:00Z", status: "ok", ratio: 0.3, items: [{ id: 1, n: "a" }, { id: 2, n: "b" }] });
    const next = write("explain-after.json", { generated_at: "2026-01-01T00:05:00Z", status: "down", ratio: 0.1 + 0.2, items: [{ id: 2, n: "b" }, { id: 1, n: "a" }] });
    const rules = write("explain-rules.json", { rules: [{ path: "$.status", severity: "high" }], volatile: [{ path: "$.generated_at" }] });
    const result = await run("diff", old, next, "--rules", rules, "--explain");
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^high\s+value\s+replace \$\.status/m);
    expect(result.stdout).toMatch(/^volatile\s+\$\.generated_at\s+\[volatile\[0\]\]/m);
    expect(result.stdout).toMatch(/^rated\s+\$\.status -> high\s+\[rules\[0\]\]/m);
    expect(result.stdout).toMatch(/^inferred_key\s+\$\.items\s.*"id"/m);
    expect(result.stdout).toMatch(/^float_noise\s+\$\.ratio/m);
    // nothing survives: exit 0, and the explanations still say what was hidden
    const quiet = write("explain-quiet.json", { generated_at: "2026-01-01T00:09:00Z", status: "ok", ratio: 0.3, items: [{ id: 2, n: "b" }, { id: 1, n: "a" }] });
    const hidden = await run("diff", old, quiet, "--rules", rules, "--explain", "--json");
    expect(hidden.code).toBe(0);
    const out = JSON.parse(hidden.stdout);
    expect(out.diff).toBeNull();
    expect(out.explanations).toEqual(expect.arrayContaining([expect.objectContaining({ path: "$.generated_at", outcome: "volatile", rule: "volatile[0]" })]));
    const changed = JSON.parse((await run("diff", old, next, "--explain", "--json")).stdout);
    expect(changed.diff.explanations).toBeUndefined();
    expect(changed.explanations.length).toBeGreaterThan(0);
  });
});
