import type { BrowserStepAction } from "@driftwatch/schema";
import { StoreError } from "./errors.js";

/** How a stored screenshot is encoded. */
export type ScreenshotType = "image/png" | "image/webp";

/** A screenshot to keep for one snapshot of a monitor (the snapshot's render). */
export interface NewScreenshot {
  snapshotId: string;
  type: ScreenshotType;
  data: Uint8Array;
  /** Pixels. */
  width: number;
  height: number;
  createdAt: string;
}

export interface ScreenshotRecord extends NewScreenshot {
  orgId: string;
  monitorId: string;
  /** `data.byteLength`. */
  bytes: number;
}

/** The page of a monitor when one of its browser steps failed (the latest such failure). */
export interface NewFailureScreenshot extends Omit<NewScreenshot, "snapshotId"> {
  step: { index: number; action: BrowserStepAction; selector: string | null };
}

export interface FailureScreenshotRecord extends NewFailureScreenshot {
  orgId: string;
  monitorId: string;
  bytes: number;
}

/**
 * Where the screenshots of website monitors are kept, one per snapshot at most. The store is one
 * implementation (a table whose rows go with their snapshot: retention, monitor and organization
 * deletion), `createDirectoryScreenshotStorage` (files) the other. Same scoping as the store: a
 * foreign monitor or snapshot behaves like an unknown one.
 */
export interface ScreenshotStorage {
  /**
   * Keeps the screenshot of a snapshot (replacing one it had). The store refuses a snapshot it does
   * not hold (`not_found`); every implementation refuses more than `MAX_STORED_SCREENSHOT_BYTES`.
   */
  putScreenshot(orgId: string, monitorId: string, screenshot: NewScreenshot): Promise<void>;
  getScreenshot(orgId: string, monitorId: string, snapshotId: string): Promise<ScreenshotRecord | null>;
  /**
   * Applies snapshot retention to the monitor's screenshots: keeps those of its newest `keep`
   * snapshots at most (the store: exactly those whose snapshot it still holds). Returns how many went.
   */
  pruneScreenshots(orgId: string, monitorId: string, keep: number): Promise<number>;
  /** Removes every screenshot of a monitor (it was deleted), its failure screenshot included. */
  deleteMonitorScreenshots(orgId: string, monitorId: string): Promise<void>;
  /**
   * Keeps the page of the monitor's latest failed browser step (replacing the one before). The
   * store refuses an unknown or foreign monitor (`not_found`).
   */
  putFailureScreenshot(orgId: string, monitorId: string, screenshot: NewFailureScreenshot): Promise<void>;
  getFailureScreenshot(orgId: string, monitorId: string): Promise<FailureScreenshotRecord | null>;
}

/** The largest screenshot any storage keeps, in bytes (the engine's default cap is lower, see its options). */
export const MAX_STORED_SCREENSHOT_BYTES = 16 * 1024 * 1024;

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Refuses a screenshot no storage should keep: wrong type, bytes not of that type, empty, too large. */
export function checkNewScreenshot(screenshot: NewScreenshot): void {
  const { type, data, width, height } = screenshot;
  if (type !== "image/png" && type !== "image/webp") throw new StoreError("invariant_violation", `${JSON.stringify(type)} is not a screenshot type.`);
  if (!(data instanceof Uint8Array) || data.byteLength === 0) throw new StoreError("invariant_violation", "A screenshot needs its bytes.");
  if (data.byteLength > MAX_STORED_SCREENSHOT_BYTES) {
    throw new StoreError("invariant_violation", `A screenshot of ${String(data.byteLength)} bytes is larger than ${String(MAX_STORED_SCREENSHOT_BYTES)}.`);
  }
  const looksLike =
    type === "image/png"
      ? PNG_SIGNATURE.every((byte, i) => data[i] === byte)
      : data.byteLength >= 12 && Buffer.from(data.subarray(0, 4)).toString("latin1") === "RIFF" && Buffer.from(data.subarray(8, 12)).toString("latin1") === "WEBP";
  if (!looksLike) throw new StoreError("invariant_violation", `The screenshot's bytes are not ${type}.`);
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new StoreError("invariant_violation", "A screenshot's width and height must be positive integers.");
  }
}
