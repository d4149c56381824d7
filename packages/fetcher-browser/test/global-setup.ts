import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import type { TestProject } from "vitest/node";
import { listProcesses } from "../src/processes.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** A switch every test browser carries, so the teardown finds this run's Chromium only. */
    runMarker: string;
    /** File the tests append browser PIDs to (one per line). */
    pidFile: string;
  }
}

/** After the whole run, no Chromium process of this run may survive. */
export default function setup(project: TestProject): () => void {
  const runMarker = `--driftwatch-test-run=${randomUUID()}`;
  const pidFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "dw-browser-test-")), "pids");
  fs.writeFileSync(pidFile, "");
  project.provide("runMarker", runMarker);
  project.provide("pidFile", pidFile);
  return () => {
    const pids = new Set(fs.readFileSync(pidFile, "utf8").split("\n").filter(Boolean).map(Number));
    fs.rmSync(path.dirname(pidFile), { recursive: true, force: true });
    const survivors = listProcesses().filter((p) => p.cmdline.includes(runMarker) || pids.has(p.pgid) || pids.has(p.pid));
    if (survivors.length > 0) {
      for (const p of survivors) process.kill(p.pid, "SIGKILL");
      throw new Error(`Chromium processes survived the test run: ${survivors.map((p) => `${String(p.pid)} ${p.cmdline.slice(0, 80)}`).join("; ")}`);
    }
  };
}
