// Live checks between processes on one SQLite file: the `--role api` process polls for the checks
// the `--role worker` process records, while a browser is connected, and streams them.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { changeAndStreamDiff, createWatchedMonitor, type LiveRoles, startLiveRoles } from "./live.case.js";
import { tempDir } from "./support.js";

const dir = tempDir("dw-live-sqlite-");
let roles: LiveRoles | undefined;

beforeAll(async () => {
  roles = await startLiveRoles(`sqlite:${path.join(dir, "dw.db")}`);
});

afterAll(async () => {
  await roles?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("live checks between processes (SQLite)", () => {
  it("the api process streams the checks and diffs the worker records", async () => {
    const id = await createWatchedMonitor(roles!);
    await changeAndStreamDiff(roles!, id, 2);
    await changeAndStreamDiff(roles!, id, 3);
  });
});
