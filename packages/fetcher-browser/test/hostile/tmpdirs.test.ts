// Temp folder hygiene (issue 12, LOW): a crashed server's Chromium directories are removed by
// the next start (owning pid dead), a live process's are left alone, close() removes its own.
import { spawnSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanStaleBrowserTmpDirs, OWNED_FILE, TMP_PREFIX } from "../../src/tmpdirs.js";
import { createTestFetcher, options } from "../helpers.js";
import { startHostileSite, type HostileSite } from "./pages.js";

/** A pid that no longer runs: a child that has exited (and been reaped). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "0"]);
  const pid = child.pid ?? 0;
  expect(() => process.kill(pid, 0)).toThrow();
  return pid;
}

/** Lays out what a killed server leaves: its dir, a file in it, and the Playwright profile it owned. */
function leftovers(pid: number): { dir: string; profile: string; outsider: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${TMP_PREFIX}${String(pid)}-`));
  fs.mkdirSync(path.join(dir, "org.chromium.Chromium.abc"));
  fs.writeFileSync(path.join(dir, "org.chromium.Chromium.abc", "SingletonSocket"), "x");
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "playwright_chromiumdev_profile-"));
  fs.writeFileSync(path.join(profile, "Local State"), "{}");
  // Listed as owned but not a Playwright profile: must survive (a tampered list deletes nothing else).
  const outsider = fs.mkdtempSync(path.join(os.tmpdir(), "dw-outsider-"));
  fs.writeFileSync(path.join(dir, OWNED_FILE), `${profile}\n${outsider}\n/etc\n`);
  return { dir, profile, outsider };
}

let hostile: HostileSite;
beforeAll(async () => {
  hostile = await startHostileSite();
});
afterAll(async () => {
  await hostile.close();
});

describe("Chromium temporary directories", () => {
  it("are removed on start when their owning process is dead; a live owner's stay", async () => {
    const stale = leftovers(deadPid());
    const sleeper = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    const live = leftovers(sleeper.pid ?? 0);
    const fetcher = createTestFetcher({ allowPrivateNetworks: true });
    try {
      await fetcher.fetch({ url: `${hostile.site.url}/big-dom?n=10`, browserOptions: options({ waitStrategy: "load" }) });
      expect(fs.existsSync(stale.dir)).toBe(false);
      expect(fs.existsSync(stale.profile)).toBe(false);
      expect(fs.existsSync(stale.outsider)).toBe(true);
      expect(fs.existsSync("/etc")).toBe(true);
      expect(fs.existsSync(live.dir)).toBe(true);
      expect(fs.existsSync(live.profile)).toBe(true);
      // This process's own directory exists while its browser runs, and lists the profile.
      const own = fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith(`${TMP_PREFIX}${String(process.pid)}-`));
      expect(own).toHaveLength(1);
      const ownProfile = fs.readFileSync(path.join(os.tmpdir(), own[0] ?? "", OWNED_FILE), "utf8").trim();
      expect(path.basename(ownProfile)).toMatch(/^playwright_chromiumdev_profile-/);
      expect(fs.existsSync(ownProfile)).toBe(true);
      await fetcher.close();
      expect(fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith(`${TMP_PREFIX}${String(process.pid)}-`))).toEqual([]);
      expect(fs.existsSync(ownProfile)).toBe(false);
    } finally {
      await fetcher.close();
      sleeper.kill("SIGKILL");
      for (const p of [live.dir, live.profile, stale.outsider, live.outsider, stale.dir, stale.profile]) fs.rmSync(p, { recursive: true, force: true });
    }
  });

  it("cleanStaleBrowserTmpDirs reports what it removed and ignores other names", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "dw-tmp-root-"));
    try {
      const pid = deadPid();
      const stale = path.join(root, `${TMP_PREFIX}${String(pid)}-aB3dE9`);
      fs.mkdirSync(stale);
      const mine = path.join(root, `${TMP_PREFIX}${String(process.pid)}-xY7zQ1`);
      fs.mkdirSync(mine);
      const other = path.join(root, `${TMP_PREFIX}notapid-x`);
      fs.mkdirSync(other);
      expect(cleanStaleBrowserTmpDirs(root)).toEqual([stale]);
      expect(fs.existsSync(mine)).toBe(true);
      expect(fs.existsSync(other)).toBe(true);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
