import { mkdir, readdir, readFile, rename, rm, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { StoreError } from "./errors.js";
import { checkNewScreenshot, type FailureScreenshotRecord, type NewFailureScreenshot, type NewScreenshot, type ScreenshotRecord, type ScreenshotStorage, type ScreenshotType } from "./screenshots.js";
import { normalizeStoreTime } from "./time.js";

/** Ids as they may appear in a path: no separators, no dots (so no `..`). */
const SAFE_ID = /^[A-Za-z0-9_-]{1,200}$/;
/** `<snapshotId>.<width>x<height>.<png|webp>` */
const FILE_NAME = /^([A-Za-z0-9_-]{1,200})\.(\d{1,6})x(\d{1,6})\.(png|webp)$/;
const EXTENSION: Record<ScreenshotType, string> = { "image/png": "png", "image/webp": "webp" };
/** The latest failed step's page: `failure~<width>x<height>.<ext>`, its step in `failure~step.json` (never taken for a snapshot's file). */
const FAILURE_NAME = /^failure~(\d{1,6})x(\d{1,6})\.(png|webp)$/;
const FAILURE_STEP = "failure~step.json";

function safe(...ids: string[]): void {
  for (const id of ids) {
    if (typeof id !== "string" || !SAFE_ID.test(id)) throw new StoreError("invariant_violation", `${JSON.stringify(id) ?? String(id)} is not an id.`);
  }
}

function missing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === "ENOENT";
}

/**
 * Screenshots as files under `root`: `<root>/<orgId>/<monitorId>/<snapshotId>.<w>x<h>.<ext>`,
 * each written to a temporary file and renamed (a reader never sees half a file), mode 0600.
 * Retention (`pruneScreenshots`) keeps the newest `keep` files of a monitor by snapshot id (ids sort
 * by creation time), which always includes the screenshots of the snapshots the store keeps.
 * For deployments that keep the database small (the store's table is the other implementation).
 */
export function createDirectoryScreenshotStorage(root: string): ScreenshotStorage {
  const base = path.resolve(root);
  const dirOf = (orgId: string, monitorId: string): string => path.join(base, orgId, monitorId);

  async function entries(orgId: string, monitorId: string): Promise<{ file: string; snapshotId: string; width: number; height: number; type: ScreenshotType }[]> {
    let names: string[];
    try {
      names = await readdir(dirOf(orgId, monitorId));
    } catch (error) {
      if (missing(error)) return [];
      throw error;
    }
    const out = [];
    for (const name of names) {
      const match = FILE_NAME.exec(name);
      if (match === null) continue;
      out.push({ file: name, snapshotId: match[1]!, width: Number(match[2]), height: Number(match[3]), type: match[4] === "png" ? ("image/png" as const) : ("image/webp" as const) });
    }
    return out.sort((a, b) => (a.snapshotId < b.snapshotId ? 1 : a.snapshotId > b.snapshotId ? -1 : 0));
  }

  return {
    async putScreenshot(orgId, monitorId, screenshot: NewScreenshot) {
      safe(orgId, monitorId, screenshot.snapshotId);
      checkNewScreenshot(screenshot);
      const dir = dirOf(orgId, monitorId);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const name = `${screenshot.snapshotId}.${String(screenshot.width)}x${String(screenshot.height)}.${EXTENSION[screenshot.type]}`;
      const temporary = path.join(dir, `.tmp-${randomBytes(8).toString("hex")}`);
      await writeFile(temporary, screenshot.data, { mode: 0o600 });
      try {
        for (const old of await entries(orgId, monitorId)) if (old.snapshotId === screenshot.snapshotId && old.file !== name) await unlink(path.join(dir, old.file)).catch(() => undefined);
        await rename(temporary, path.join(dir, name));
      } catch (error) {
        await unlink(temporary).catch(() => undefined);
        throw error;
      }
    },
    async getScreenshot(orgId, monitorId, snapshotId): Promise<ScreenshotRecord | null> {
      safe(orgId, monitorId, snapshotId);
      const entry = (await entries(orgId, monitorId)).find((each) => each.snapshotId === snapshotId);
      if (entry === undefined) return null;
      const file = path.join(dirOf(orgId, monitorId), entry.file);
      try {
        const [data, info] = await Promise.all([readFile(file), stat(file)]);
        const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
        return { orgId, monitorId, snapshotId, type: entry.type, data: bytes, width: entry.width, height: entry.height, bytes: bytes.byteLength, createdAt: normalizeStoreTime(info.mtime.toISOString()) };
      } catch (error) {
        if (missing(error)) return null;
        throw error;
      }
    },
    async pruneScreenshots(orgId, monitorId, keep) {
      safe(orgId, monitorId);
      if (!Number.isInteger(keep) || keep < 0) throw new StoreError("invariant_violation", "keep must be an integer of at least 0.");
      const dropped = (await entries(orgId, monitorId)).slice(keep);
      for (const entry of dropped) await unlink(path.join(dirOf(orgId, monitorId), entry.file)).catch((error: unknown) => (missing(error) ? undefined : Promise.reject(error)));
      return dropped.length;
    },
    async deleteMonitorScreenshots(orgId, monitorId) {
      safe(orgId, monitorId);
      await rm(dirOf(orgId, monitorId), { recursive: true, force: true });
    },
    async putFailureScreenshot(orgId, monitorId, screenshot: NewFailureScreenshot) {
      safe(orgId, monitorId);
      checkNewScreenshot({ ...screenshot, snapshotId: "failure" });
      const dir = dirOf(orgId, monitorId);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const name = `failure~${String(screenshot.width)}x${String(screenshot.height)}.${EXTENSION[screenshot.type]}`;
      const temporary = path.join(dir, `.tmp-${randomBytes(8).toString("hex")}`);
      const stepFile = path.join(dir, `.tmp-${randomBytes(8).toString("hex")}`);
      await writeFile(temporary, screenshot.data, { mode: 0o600 });
      await writeFile(stepFile, JSON.stringify({ step: screenshot.step, createdAt: screenshot.createdAt }), { mode: 0o600 });
      for (const old of await readdir(dir)) if (FAILURE_NAME.test(old) && old !== name) await unlink(path.join(dir, old)).catch(() => undefined);
      await rename(stepFile, path.join(dir, FAILURE_STEP));
      await rename(temporary, path.join(dir, name));
    },
    async getFailureScreenshot(orgId, monitorId): Promise<FailureScreenshotRecord | null> {
      safe(orgId, monitorId);
      const dir = dirOf(orgId, monitorId);
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (error) {
        if (missing(error)) return null;
        throw error;
      }
      const name = names.find((each) => FAILURE_NAME.test(each));
      if (name === undefined) return null;
      const match = FAILURE_NAME.exec(name)!;
      try {
        const [data, meta] = await Promise.all([readFile(path.join(dir, name)), readFile(path.join(dir, FAILURE_STEP), "utf8")]);
        const parsed = JSON.parse(meta) as { step: FailureScreenshotRecord["step"]; createdAt: string };
        const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
        return {
          orgId,
          monitorId,
          step: parsed.step,
          type: match[3] === "png" ? "image/png" : "image/webp",
          data: bytes,
          width: Number(match[1]),
          height: Number(match[2]),
          bytes: bytes.byteLength,
          createdAt: normalizeStoreTime(parsed.createdAt),
        };
      } catch (error) {
        if (missing(error)) return null;
        throw error;
      }
    },
  };
}
