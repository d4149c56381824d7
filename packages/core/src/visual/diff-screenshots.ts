import type { Box, Change, Classification, Severity, VisualRules } from "@driftwatch/schema";
import { createRequire } from "node:module";
import pixelmatch from "pixelmatch";
import type * as PngJs from "pngjs";
import { DriftwatchError } from "../errors.js";

// pngjs is loaded on the first screenshot decoded (about 6 MB of a process's memory that a server
// without browser monitors should not pay; issue 26). `require` keeps decoding synchronous; pngjs
// ships CommonJS. The CommonJS build has `__filename`; the ESM build (and the sources) `import.meta.url`.
let png: typeof PngJs.PNG | undefined;
function pngjs(): typeof PngJs.PNG {
  png ??= (createRequire(typeof __filename === "string" ? __filename : import.meta.url)("pngjs") as typeof PngJs).PNG;
  return png;
}

/** A screenshot as the browser fetcher returns it. */
export interface Screenshot {
  type: "image/png";
  data: Uint8Array;
  /** Pixels. */
  width: number;
  height: number;
}

export interface DiffScreenshotsOptions {
  /** Changed area, in percent of the compared pixels, from which the `visual` change is reported. Default 0.1. */
  minChangedPercent?: number;
  /** Severity of the `visual` change. Default `medium`. */
  severity?: Severity;
  /**
   * Colour distance (0..1, pixelmatch's YIQ metric) under which two pixels count as equal.
   * Default 0.1. Anti-aliased pixels (font smoothing, sub-pixel shifts of edges) never count.
   */
  threshold?: number;
  /** Changed areas this close (pixels) are reported as one region. Default 16. */
  mergeDistance?: number;
  /** Largest image compared, in pixels (width x height of either); larger is refused with `too_large`. Default 25,000,000. */
  maxPixels?: number;
  /** Most regions reported (the largest first); the rest are dropped. Default 50. */
  maxRegions?: number;
}

export interface VisualComparison {
  /** Changed pixels over the union of both images' areas, in percent (0..100, 3 decimals). */
  changedPercent: number;
  /** Bounding boxes of the changed areas (close areas merged), in pixels of the images, largest first. */
  regions: Box[];
  /** The `visual` change when `changedPercent` reaches `minChangedPercent` (and is above 0), else null. */
  change: Change | null;
}

export const DEFAULT_VISUAL_MIN_CHANGED_PERCENT = 0.1;
export const DEFAULT_VISUAL_SEVERITY: Severity = "medium";
export const DEFAULT_VISUAL_THRESHOLD = 0.1;
export const DEFAULT_VISUAL_MAX_PIXELS = 25_000_000;
const DEFAULT_MERGE_DISTANCE = 16;
const DEFAULT_MAX_REGIONS = 50;
/** The grid the changed pixels are gathered in: at most this many cells per side. */
const MAX_GRID_SIDE = 512;
/** More separate changed areas than this are reported as one region around all of them. */
const MAX_BOXES_MERGED = 300;

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

interface Decoded {
  width: number;
  height: number;
  data: Uint8Array;
}

/** Width and height from a PNG's IHDR, read before anything is inflated (no decompression bombs). */
function pngSize(bytes: Uint8Array, label: string): { width: number; height: number } {
  if (bytes.length < 24 || PNG_SIGNATURE.some((byte, i) => bytes[i] !== byte)) {
    throw new DriftwatchError("invalid_input", `The ${label} screenshot is not a PNG image`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

function decode(image: Screenshot | Uint8Array, label: string, maxPixels: number): Decoded {
  const bytes = image instanceof Uint8Array ? image : image.data;
  const { width, height } = pngSize(bytes, label);
  if (width === 0 || height === 0) throw new DriftwatchError("invalid_input", `The ${label} screenshot is empty`);
  if (width * height > maxPixels) {
    throw new DriftwatchError("too_large", `The ${label} screenshot has ${String(width * height)} pixels, more than ${String(maxPixels)}`);
  }
  try {
    const png = pngjs().sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return { width: png.width, height: png.height, data: png.data };
  } catch (cause) {
    throw new DriftwatchError("invalid_input", `The ${label} screenshot could not be decoded as PNG`, { cause });
  }
}

/** The top-left `width` x `height` of an RGBA image (the image itself when it is that size). */
function crop(image: Decoded, width: number, height: number): Uint8Array {
  if (image.width === width && image.height === height) return image.data;
  const out = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    const start = y * image.width * 4;
    out.set(image.data.subarray(start, start + width * 4), y * width * 4);
  }
  return out;
}

/**
 * Compares two PNG screenshots with pixelmatch: the changed-area percentage, the bounding boxes of
 * the changed areas, and the `visual` change when the percentage reaches the threshold.
 * Images of different sizes are compared on their overlap (top-left aligned) and the rest of the
 * larger one counts as changed. Work is bounded: each image is at most `maxPixels`, checked from the
 * PNG header before decoding, and the regions come from a grid of at most 512 x 512 cells.
 */
export function diffScreenshots(before: Screenshot | Uint8Array, after: Screenshot | Uint8Array, options: DiffScreenshotsOptions = {}): VisualComparison {
  const minChangedPercent = options.minChangedPercent ?? DEFAULT_VISUAL_MIN_CHANGED_PERCENT;
  const severity = options.severity ?? DEFAULT_VISUAL_SEVERITY;
  const threshold = options.threshold ?? DEFAULT_VISUAL_THRESHOLD;
  const mergeDistance = options.mergeDistance ?? DEFAULT_MERGE_DISTANCE;
  const maxPixels = options.maxPixels ?? DEFAULT_VISUAL_MAX_PIXELS;
  const maxRegions = options.maxRegions ?? DEFAULT_MAX_REGIONS;
  if (!(minChangedPercent >= 0 && minChangedPercent <= 100)) throw new DriftwatchError("invalid_input", "minChangedPercent must be between 0 and 100");
  if (!(threshold >= 0 && threshold <= 1)) throw new DriftwatchError("invalid_input", "threshold must be between 0 and 1");
  if (!(mergeDistance >= 0)) throw new DriftwatchError("invalid_input", "mergeDistance must be 0 or more");

  // Byte-identical PNGs (an unchanged page renders to the same bytes): nothing to decode.
  const beforeBytes = before instanceof Uint8Array ? before : before.data;
  const afterBytes = after instanceof Uint8Array ? after : after.data;
  if (Buffer.from(beforeBytes.buffer, beforeBytes.byteOffset, beforeBytes.byteLength).equals(afterBytes)) {
    const size = pngSize(beforeBytes, "before");
    if (size.width * size.height > maxPixels) {
      throw new DriftwatchError("too_large", `The before screenshot has ${String(size.width * size.height)} pixels, more than ${String(maxPixels)}`);
    }
    if (size.width === 0 || size.height === 0) throw new DriftwatchError("invalid_input", "The before screenshot is empty");
    return { changedPercent: 0, regions: [], change: null };
  }
  const a = decode(before, "before", maxPixels);
  const b = decode(after, "after", maxPixels);
  const width = Math.min(a.width, b.width);
  const height = Math.min(a.height, b.height);
  const unionWidth = Math.max(a.width, b.width);
  const unionHeight = Math.max(a.height, b.height);
  // Only the diff mask is drawn: changed pixels opaque, equal and anti-aliased ones transparent.
  const mask = new Uint8Array(width * height * 4);
  const mismatched = pixelmatch(crop(a, width, height), crop(b, width, height), mask, width, height, {
    threshold,
    includeAA: false,
    diffMask: true,
    alpha: 0,
  });

  // The changed pixels, gathered in grid cells.
  const cell = Math.max(4, Math.ceil(Math.max(unionWidth, unionHeight) / MAX_GRID_SIDE));
  const cols = Math.ceil(unionWidth / cell);
  const rows = Math.ceil(unionHeight / cell);
  const grid = new Uint8Array(cols * rows);
  if (mismatched > 0) {
    for (let y = 0; y < height; y++) {
      const rowStart = y * width;
      const gridRow = Math.floor(y / cell) * cols;
      for (let x = 0; x < width; x++) {
        // Changed pixels are painted in diffColor (red, opaque); the rest stays transparent.
        if (mask[(rowStart + x) * 4 + 3] !== 0) grid[gridRow + Math.floor(x / cell)] = 1;
      }
    }
  }
  // What only one image has counts as changed.
  let outside = 0;
  if (unionWidth !== width || unionHeight !== height) {
    outside = unionWidth * unionHeight - width * height;
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        if ((c + 1) * cell > width || (r + 1) * cell > height) {
          // A cell partly outside the overlap holds pixels of only one image.
          grid[r * cols + c] = 1;
        }
      }
    }
  }
  const changed = mismatched + outside;
  const changedPercent = Math.round((changed / (unionWidth * unionHeight)) * 100 * 1000) / 1000;
  const regions = changed === 0 ? [] : regionsOf(grid, cols, rows, cell, Math.ceil(mergeDistance / cell), unionWidth, unionHeight, maxRegions);
  const change: Change | null =
    changed > 0 && changedPercent >= minChangedPercent
      ? {
          path: "visual",
          category: "visual",
          op: "replace",
          severity,
          detail: `${String(changedPercent)}% of the screenshot changed in ${String(regions.length)} region${regions.length === 1 ? "" : "s"}`,
        }
      : null;
  return { changedPercent, regions, change };
}

/**
 * Bounding boxes of the connected groups of marked cells, cells within `gap` cells of each other
 * being connected; boxes that still overlap or touch after that are merged.
 */
function regionsOf(grid: Uint8Array, cols: number, rows: number, cell: number, gap: number, maxX: number, maxY: number, maxRegions: number): Box[] {
  const seen = new Uint8Array(cols * rows);
  const boxes: { x0: number; y0: number; x1: number; y1: number; cells: number }[] = [];
  const stack: number[] = [];
  for (let start = 0; start < grid.length; start++) {
    if (grid[start] === 0 || seen[start] === 1) continue;
    seen[start] = 1;
    stack.push(start);
    let x0 = cols;
    let y0 = rows;
    let x1 = -1;
    let y1 = -1;
    let cells = 0;
    while (stack.length > 0) {
      const index = stack.pop()!;
      const cx = index % cols;
      const cy = (index - cx) / cols;
      cells++;
      if (cx < x0) x0 = cx;
      if (cx > x1) x1 = cx;
      if (cy < y0) y0 = cy;
      if (cy > y1) y1 = cy;
      for (let ny = Math.max(0, cy - gap - 1); ny <= Math.min(rows - 1, cy + gap + 1); ny++) {
        for (let nx = Math.max(0, cx - gap - 1); nx <= Math.min(cols - 1, cx + gap + 1); nx++) {
          const next = ny * cols + nx;
          if (grid[next] === 1 && seen[next] === 0) {
            seen[next] = 1;
            stack.push(next);
          }
        }
      }
    }
    boxes.push({ x0, y0, x1, y1, cells });
  }
  // Noise all over the page: one box around all of it (merging thousands of boxes is quadratic).
  if (boxes.length > MAX_BOXES_MERGED) {
    const all = boxes.reduce((p, q) => ({ x0: Math.min(p.x0, q.x0), y0: Math.min(p.y0, q.y0), x1: Math.max(p.x1, q.x1), y1: Math.max(p.y1, q.y1), cells: p.cells + q.cells }));
    boxes.length = 0;
    boxes.push(all);
  }
  // Boxes of separate groups may still overlap (an L shape around another): merge until stable.
  let merged = true;
  while (merged) {
    merged = false;
    for (let i = 0; i < boxes.length && !merged; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const p = boxes[i]!;
        const q = boxes[j]!;
        if (p.x0 <= q.x1 + 1 && q.x0 <= p.x1 + 1 && p.y0 <= q.y1 + 1 && q.y0 <= p.y1 + 1) {
          boxes[i] = { x0: Math.min(p.x0, q.x0), y0: Math.min(p.y0, q.y0), x1: Math.max(p.x1, q.x1), y1: Math.max(p.y1, q.y1), cells: p.cells + q.cells };
          boxes.splice(j, 1);
          merged = true;
          break;
        }
      }
    }
  }
  return boxes
    .map((box) => {
      const x = box.x0 * cell;
      const y = box.y0 * cell;
      return { x, y, width: Math.min(maxX, (box.x1 + 1) * cell) - x, height: Math.min(maxY, (box.y1 + 1) * cell) - y };
    })
    .sort((p, q) => q.width * q.height - p.width * p.height || p.y - q.y || p.x - q.x)
    .slice(0, maxRegions);
}

/** `diffScreenshots` options from a monitor's `policyRules.visual`. */
export function visualDiffOptions(rules: VisualRules | undefined): DiffScreenshotsOptions {
  return {
    ...(rules?.minChangedPercent === undefined ? {} : { minChangedPercent: rules.minChangedPercent }),
    ...(rules?.severity === undefined ? {} : { severity: rules.severity }),
  };
}

/** A website diff's classification: `visual_change` when its only changes are visual, else `content_change`. */
export function classifyWebsiteChanges(changes: readonly Pick<Change, "category">[]): Extract<Classification, "content_change" | "visual_change"> {
  return changes.length > 0 && changes.every((change) => change.category === "visual") ? "visual_change" : "content_change";
}
