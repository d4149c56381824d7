import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newId } from "../ids.js";
import { createDirectoryScreenshotStorage } from "./screenshot-directory.js";
import type { NewScreenshot } from "./screenshots.js";

function png(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  out.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  for (let i = 8; i < size; i++) out[i] = (i + seed) & 0xff;
  return out;
}

function shot(snapshotId: string, seed = 1): NewScreenshot {
  return { snapshotId, type: "image/png", data: png(300, seed), width: 40, height: 30, createdAt: new Date().toISOString() };
}

describe("createDirectoryScreenshotStorage", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), "dw-shots-"));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("keeps a screenshot as a file (0600) and reads it back byte for byte, per organization and monitor", async () => {
    const storage = createDirectoryScreenshotStorage(root);
    const snapshotId = newId("snapshot");
    await storage.putScreenshot("org_a", "mon_1", shot(snapshotId, 3));
    const got = await storage.getScreenshot("org_a", "mon_1", snapshotId);
    expect(got).toMatchObject({ orgId: "org_a", monitorId: "mon_1", snapshotId, type: "image/png", width: 40, height: 30, bytes: 300 });
    expect(Buffer.from(got!.data).equals(Buffer.from(png(300, 3)))).toBe(true);
    expect(await storage.getScreenshot("org_b", "mon_1", snapshotId)).toBeNull();
    expect(await storage.getScreenshot("org_a", "mon_2", snapshotId)).toBeNull();
    const files = await readdir(path.join(root, "org_a", "mon_1"));
    expect(files).toEqual([`${snapshotId}.40x30.png`]);
    expect((await stat(path.join(root, "org_a", "mon_1", files[0]!))).mode & 0o777).toBe(0o600);
    // Replaced by a second put of another size: one file.
    await storage.putScreenshot("org_a", "mon_1", { ...shot(snapshotId, 4), width: 10, height: 5 });
    expect(await readdir(path.join(root, "org_a", "mon_1"))).toEqual([`${snapshotId}.10x5.png`]);
  });

  it("refuses ids that would leave the directory, and bytes that are not the type", async () => {
    const storage = createDirectoryScreenshotStorage(root);
    await expect(storage.putScreenshot("..", "mon_1", shot(newId("snapshot")))).rejects.toMatchObject({ code: "invariant_violation" });
    await expect(storage.putScreenshot("org_a", "../x", shot(newId("snapshot")))).rejects.toMatchObject({ code: "invariant_violation" });
    await expect(storage.getScreenshot("org_a", "mon_1", "../../etc/passwd")).rejects.toMatchObject({ code: "invariant_violation" });
    await expect(storage.putScreenshot("org_a", "mon_1", { ...shot(newId("snapshot")), data: new Uint8Array(20) })).rejects.toMatchObject({ code: "invariant_violation" });
    expect(await readdir(root)).toEqual([]);
  });

  it("keeps the latest failed step's page beside the snapshots' files, out of their retention", async () => {
    const storage = createDirectoryScreenshotStorage(root);
    const snapshotId = newId("snapshot");
    await storage.putScreenshot("org_a", "mon_1", shot(snapshotId));
    const at = new Date().toISOString();
    await storage.putFailureScreenshot("org_a", "mon_1", { type: "image/png", data: png(120, 7), width: 8, height: 9, createdAt: at, step: { index: 3, action: "fill", selector: "#pw" } });
    await storage.putFailureScreenshot("org_a", "mon_1", { type: "image/png", data: png(130, 8), width: 5, height: 6, createdAt: at, step: { index: 1, action: "click", selector: null } });
    const got = await storage.getFailureScreenshot("org_a", "mon_1");
    expect(got).toMatchObject({ width: 5, height: 6, bytes: 130, step: { index: 1, action: "click", selector: null } });
    expect(Buffer.from(got!.data).equals(Buffer.from(png(130, 8)))).toBe(true);
    expect(await storage.pruneScreenshots("org_a", "mon_1", 0)).toBe(1);
    expect(await storage.getFailureScreenshot("org_a", "mon_1")).not.toBeNull();
    expect(await storage.getFailureScreenshot("org_b", "mon_1")).toBeNull();
    await storage.deleteMonitorScreenshots("org_a", "mon_1");
    expect(await storage.getFailureScreenshot("org_a", "mon_1")).toBeNull();
  });

  it("prunes to the newest snapshots and deletes a monitor's screenshots", async () => {
    const storage = createDirectoryScreenshotStorage(root);
    const ids = [0, 1, 2, 3].map((i) => newId("snapshot", Date.now() + i));
    for (const id of ids) await storage.putScreenshot("org_a", "mon_1", shot(id));
    await storage.putScreenshot("org_a", "mon_2", shot(ids[0]!));
    expect(await storage.pruneScreenshots("org_a", "mon_1", 2)).toBe(2);
    expect(await storage.getScreenshot("org_a", "mon_1", ids[0]!)).toBeNull();
    expect(await storage.getScreenshot("org_a", "mon_1", ids[1]!)).toBeNull();
    expect(await storage.getScreenshot("org_a", "mon_1", ids[2]!)).not.toBeNull();
    expect(await storage.getScreenshot("org_a", "mon_1", ids[3]!)).not.toBeNull();
    expect(await storage.getScreenshot("org_a", "mon_2", ids[0]!)).not.toBeNull();
    await storage.deleteMonitorScreenshots("org_a", "mon_1");
    expect(await storage.getScreenshot("org_a", "mon_1", ids[3]!)).toBeNull();
    expect(await storage.getScreenshot("org_a", "mon_2", ids[0]!)).not.toBeNull();
    expect(await storage.pruneScreenshots("org_a", "mon_9", 1)).toBe(0);
  });
});
