// Which test files the quick suite leaves out, in one place. DRIFTWATCH_TEST_SUITE picks the suite:
// "full" (the default: every file) or "quick" (every file but those listed here). CI runs the full
// suite on Node 24 and the quick one on the lowest supported Node (.ci/run), so every file runs at
// least once per CI run. A file belongs here only when it is long (real processes, a real browser,
// wall-clock rounds) and what it proves does not depend on the Node version in an interesting way:
// the Node APIs it leans on are exercised on the lowest Node by the files that stay.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export type TestSuite = "full" | "quick";

export interface LeftOut {
  /** Test file, relative to its package. */
  file: string;
  /** Why the quick suite can do without it. */
  reason: string;
}

const NOTICES = Symbol.for("driftwatch.test-suite-notices");
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const STORE_CRASH = "recording processes killed with SIGKILL at random points: the database's transactions decide the outcome, not Node";

const CORPUS = "the noise learner measured over the signal corpus: pure computation, the same figures on every Node; the learner's unit tests (never-hidden, generalise, learn, near-zero) stay in";

/** Per package directory (relative to the repository root): the files the quick suite leaves out. */
export const QUICK_SUITE_LEAVES_OUT: Readonly<Record<string, readonly LeftOut[]>> = {
  "packages/core": [
    { file: "test/signal/world.test.ts", reason: CORPUS },
    { file: "test/signal/world-html.test.ts", reason: CORPUS },
    { file: "test/signal/world-html-held-out.test.ts", reason: CORPUS },
  ],
  "packages/engine": [
    {
      file: "test/scale-out.test.ts",
      reason: "engine processes on one PostgreSQL database killed and stopped over minutes of lease rounds; child processes, signals and pg on the lowest Node run in the store and server suites",
    },
    {
      file: "test/host-cadence.test.ts",
      reason: "500 monitors over three 10 s rounds, twice (about a minute of waiting): the scheduler's arithmetic, which timers drive the same on every Node",
    },
  ],
  "packages/queue-postgres": [
    {
      file: "test/scale-out.test.ts",
      reason: "the engine's scale-out suite (processes killed and stopped over lease rounds) on the pg-boss queue; the queue's claims, takeovers and deliveries on the lowest Node run in test/queue.test.ts",
    },
    {
      file: "test/host-cadence.test.ts",
      reason: "the engine's 500-monitor cadence suite (about a minute of 10 s rounds) on the pg-boss queue: timers drive it the same on every Node",
    },
  ],
  "packages/server": [
    {
      file: "test/signal/service-signal.test.ts",
      reason: "the world corpus's held-out histories through the server on SQLite (about a minute): the learner's figures are the same on every Node; the server on SQLite and the check API on the lowest Node run in the e2e and api suites",
    },
    {
      file: "test/e2e/ops.test.ts",
      reason: "backup, restore and doctor through some fifteen runs of the built CLI; the built CLI on SQLite and PostgreSQL stays in (e2e/sqlite, e2e/postgres, e2e/shutdown)",
    },
    {
      file: "test/e2e/demo.test.ts",
      reason: "waits for the demo's own intervals to produce diffs and a delivery; the built CLI stays in through the other e2e files",
    },
    {
      file: "test/e2e/people-memory.test.ts",
      reason: "the people flows and role matrix run on three stores; SQLite (the default store) stays in",
    },
    {
      file: "test/e2e/people-postgres.test.ts",
      reason: "the people flows and role matrix run on three stores; SQLite (the default store) stays in",
    },
  ],
  "packages/dashboard": [
    { file: "test/e2e/dashboard.test.ts", reason: "the built dashboard in Chromium: browser behaviour; the server it talks to runs in the server suite" },
    { file: "test/e2e/people.test.ts", reason: "the built dashboard in Chromium: browser behaviour; the server it talks to runs in the server suite" },
    { file: "test/e2e/safety.test.ts", reason: "the built dashboard in Chromium: browser behaviour; the server it talks to runs in the server suite" },
    { file: "test/e2e/contracts.test.ts", reason: "the built dashboard in Chromium: browser behaviour; the server it talks to runs in the server suite" },
  ],
  "packages/fetcher-browser": [
    {
      file: "test/hostile/process.test.ts",
      reason: "hostile pages rendered in a child process: Chromium's behaviour; the fetcher's Node side drives Chromium in the other files",
    },
  ],
  "packages/store-postgres": [{ file: "test/crash.test.ts", reason: STORE_CRASH }],
  "packages/store-sqlite": [{ file: "test/crash.test.ts", reason: STORE_CRASH }],
};

/** The suite DRIFTWATCH_TEST_SUITE asks for ("full" when unset or empty). */
export function selectedTestSuite(env: NodeJS.ProcessEnv = process.env): TestSuite {
  const value = env.DRIFTWATCH_TEST_SUITE ?? "";
  if (value === "" || value === "full") return "full";
  if (value === "quick") return "quick";
  throw new Error(`DRIFTWATCH_TEST_SUITE=${value}: expected "full" (the default, every test file) or "quick" (see tooling/test-suites.ts)`);
}

/**
 * The files of the package in `packageDir` that `suite` leaves out, relative to the package (for
 * vitest's `exclude`). Fails when the list names a file that does not exist, in either suite, so a
 * renamed or removed file is noticed.
 */
export function leftOutTestFiles(packageDir: string, suite: TestSuite = selectedTestSuite()): string[] {
  const key = path.relative(ROOT, path.resolve(packageDir)).split(path.sep).join("/");
  const entries = QUICK_SUITE_LEAVES_OUT[key] ?? [];
  for (const { file } of entries) {
    if (!fs.existsSync(path.join(packageDir, file))) throw new Error(`tooling/test-suites.ts leaves out ${key}/${file}, which does not exist: update the list`);
  }
  return suite === "quick" ? entries.map((entry) => entry.file) : [];
}

/** `leftOutTestFiles` for the suite DRIFTWATCH_TEST_SUITE selects, saying on stderr what it leaves out. */
export function testSuiteExclude(packageDir: string): string[] {
  const files = leftOutTestFiles(packageDir);
  const notice = `DRIFTWATCH_TEST_SUITE=quick leaves out ${files.join(", ")} (the full suite runs them; reasons in tooling/test-suites.ts)`;
  // vitest evaluates a config once per project: say it once per process
  const said = ((globalThis as { [NOTICES]?: Set<string> })[NOTICES] ??= new Set<string>());
  if (files.length > 0 && !said.has(notice)) {
    said.add(notice);
    console.warn(notice);
  }
  return files;
}
