import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Every temporary directory a browser fetcher makes is named `driftwatch-chromium-<pid>-XXXXXX`
 * (pid: the Node process that owns it), in the temp folder. It is the browser's TMPDIR and
 * Playwright's artifacts directory, and it lists the other directories that belong to it
 * (Playwright's `playwright_chromiumdev_profile-*` user data dir) in {@link OWNED_FILE}.
 */
export const TMP_PREFIX = "driftwatch-chromium-";
/** File in an owned directory naming other paths to remove with it, one per line. */
export const OWNED_FILE = "owned-paths";
/** Only these may be listed as owned (a tampered list cannot delete anything else). */
const OWNED_PATTERN = /^playwright_chromiumdev_profile-[A-Za-z0-9_-]+$/;

/** Makes this process's temporary directory for one browser. */
export function makeBrowserTmpDir(root: string = os.tmpdir()): string {
  return fs.mkdtempSync(path.join(root, `${TMP_PREFIX}${String(process.pid)}-`));
}

/** Records `owned` (a directory in the temp folder) for removal with `tmpDir`. */
export function recordOwned(tmpDir: string, owned: string): void {
  fs.appendFileSync(path.join(tmpDir, OWNED_FILE), `${owned}\n`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but is someone else's.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes a browser temporary directory and the paths it owns. Never throws. */
export function removeBrowserTmpDir(tmpDir: string): void {
  const root = path.dirname(tmpDir);
  let owned: string[] = [];
  try {
    owned = fs.readFileSync(path.join(tmpDir, OWNED_FILE), "utf8").split("\n").filter(Boolean);
  } catch {
    // none recorded
  }
  for (const entry of owned) {
    // Only a Playwright profile directory next to ours: never a path outside the temp folder.
    if (path.dirname(entry) !== root || !OWNED_PATTERN.test(path.basename(entry))) continue;
    try {
      fs.rmSync(entry, { recursive: true, force: true });
    } catch {
      // best effort: a directory in use by a dying browser is removed on the next start
    }
  }
  try {
    fs.rmSync(tmpDir, { recursive: true, force: true });
  } catch {
    // best effort, as above
  }
}

/**
 * Removes the temporary directories of browser fetchers whose process is gone (a crashed or
 * killed server): `driftwatch-chromium-<pid>-*` with a dead pid, and what each lists as owned.
 * Directories of live processes (this one included) are left alone. Returns what was removed.
 */
export function cleanStaleBrowserTmpDirs(root: string = os.tmpdir()): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const match = new RegExp(`^${TMP_PREFIX}(\\d+)-[A-Za-z0-9]+$`).exec(name);
    if (match === null) continue;
    const pid = Number(match[1]);
    if (pid === process.pid || isAlive(pid)) continue;
    const dir = path.join(root, name);
    removeBrowserTmpDir(dir);
    if (!fs.existsSync(dir)) removed.push(dir);
  }
  return removed;
}
