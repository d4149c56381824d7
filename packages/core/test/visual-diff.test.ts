import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { classifyWebsiteChanges, diffScreenshots, PolicyRulesSchema, visualDiffOptions } from "../src/index.js";

type Paint = (x: number, y: number) => [number, number, number];

/** A PNG of `width` x `height` whose pixel colours `paint` gives. */
function png(width: number, height: number, paint: Paint): Uint8Array {
  const image = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [r, g, b] = paint(x, y);
      const i = (y * width + x) * 4;
      image.data[i] = r;
      image.data[i + 1] = g;
      image.data[i + 2] = b;
      image.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(image);
}

const white: Paint = () => [255, 255, 255];
const rect =
  (x0: number, y0: number, w: number, h: number, colour: [number, number, number], base: Paint = white): Paint =>
  (x, y) =>
    x >= x0 && x < x0 + w && y >= y0 && y < y0 + h ? colour : base(x, y);

/** A dark disc drawn with 4x4 supersampled anti-aliasing: its edge pixels are shades of grey. */
function disc(cx: number, cy: number, radius: number): Paint {
  return (x, y) => {
    let inside = 0;
    for (let sy = 0; sy < 4; sy++) {
      for (let sx = 0; sx < 4; sx++) {
        const dx = x + (sx + 0.5) / 4 - cx;
        const dy = y + (sy + 0.5) / 4 - cy;
        if (dx * dx + dy * dy <= radius * radius) inside++;
      }
    }
    const v = Math.round(255 - (inside / 16) * 235);
    return [v, v, v];
  };
}

describe("diffScreenshots", () => {
  it("finds no change between equal images", () => {
    const a = png(200, 100, rect(20, 20, 50, 30, [0, 0, 200]));
    const result = diffScreenshots(a, png(200, 100, rect(20, 20, 50, 30, [0, 0, 200])));
    expect(result).toEqual({ changedPercent: 0, regions: [], change: null });
  });

  it("reports a moved block with the changed-area percentage, its regions and a visual change", () => {
    const before = png(400, 300, rect(10, 10, 100, 40, [200, 0, 0]));
    const after = png(400, 300, rect(250, 200, 100, 40, [200, 0, 0]));
    const result = diffScreenshots(before, after);
    // Two blocks of 4,000 pixels each over 120,000.
    expect(result.changedPercent).toBeCloseTo((8000 / 120000) * 100, 2);
    expect(result.regions).toHaveLength(2);
    for (const [x, y] of [
      [10, 10],
      [250, 200],
    ] as const) {
      const region = result.regions.find((r) => r.x <= x && r.y <= y && r.x + r.width >= x + 100 && r.y + r.height >= y + 40);
      expect(region, `a region around ${String(x)},${String(y)}`).toBeDefined();
      // Bounding boxes on a grid of 4 px cells: tight to within a cell.
      expect(region!.width).toBeLessThanOrEqual(108);
      expect(region!.height).toBeLessThanOrEqual(48);
    }
    expect(result.change).toMatchObject({ path: "visual", category: "visual", op: "replace", severity: "medium" });
  });

  it("merges changed areas closer than mergeDistance into one region", () => {
    const before = png(200, 100, white);
    const after = png(200, 100, rect(40, 20, 10, 10, [0, 0, 0], rect(20, 20, 10, 10, [0, 0, 0])));
    expect(diffScreenshots(before, after).regions).toHaveLength(1);
    expect(diffScreenshots(before, after, { mergeDistance: 0 }).regions).toHaveLength(2);
  });

  it("ignores anti-aliasing and sub-pixel shifts of edges, and faint colour noise", () => {
    // The same disc a third of a pixel to the right: only its anti-aliased edge pixels differ.
    const before = png(160, 160, disc(80, 80, 40));
    const after = png(160, 160, disc(80.33, 80, 40));
    const aa = diffScreenshots(before, after);
    expect(aa.change).toBeNull();
    expect(aa.changedPercent).toBeLessThan(0.1);
    // Compression-like noise of +-2 levels on every pixel.
    const noisy = png(160, 160, (x, y) => {
      const [r, g, b] = disc(80, 80, 40)(x, y);
      const n = ((x * 7 + y * 13) % 5) - 2;
      return [Math.max(0, Math.min(255, r + n)), Math.max(0, Math.min(255, g + n)), Math.max(0, Math.min(255, b + n))];
    });
    expect(diffScreenshots(before, noisy)).toEqual({ changedPercent: 0, regions: [], change: null });
    // A real change of the same image is still seen.
    const moved = png(160, 160, disc(100, 80, 40));
    expect(diffScreenshots(before, moved).change).not.toBeNull();
  });

  it("applies minChangedPercent and severity", () => {
    const before = png(100, 100, white);
    const after = png(100, 100, rect(0, 0, 5, 5, [0, 0, 0])); // 0.25 %
    expect(diffScreenshots(before, after).change?.severity).toBe("medium");
    expect(diffScreenshots(before, after, { minChangedPercent: 1 }).change).toBeNull();
    expect(diffScreenshots(before, after, { minChangedPercent: 1 }).changedPercent).toBe(0.25);
    const rules = PolicyRulesSchema.parse({ visual: { minChangedPercent: 0.2, severity: "high", mask: [".ad"] } });
    expect(diffScreenshots(before, after, visualDiffOptions(rules.visual)).change?.severity).toBe("high");
  });

  it("compares images of different sizes on their overlap and counts the rest as changed", () => {
    const before = png(100, 100, white);
    const after = png(100, 150, white);
    const result = diffScreenshots(before, after);
    expect(result.changedPercent).toBeCloseTo((5000 / 15000) * 100, 2);
    expect(result.regions).toEqual([{ x: 0, y: 100, width: 100, height: 50 }]);
    expect(result.change).not.toBeNull();
  });

  it("refuses what is not a PNG, and images over maxPixels before decoding them", () => {
    const ok = png(50, 50, white);
    expect(() => diffScreenshots(new Uint8Array([1, 2, 3]), ok)).toThrow(expect.objectContaining({ code: "invalid_input" }));
    expect(() => diffScreenshots(ok, ok, { maxPixels: 2000 })).toThrow(expect.objectContaining({ code: "too_large" }));
    // A header claiming 100,000 x 100,000 pixels is refused from the header alone.
    const bomb = Uint8Array.from(ok);
    new DataView(bomb.buffer).setUint32(16, 100_000);
    new DataView(bomb.buffer).setUint32(20, 100_000);
    expect(() => diffScreenshots(ok, bomb)).toThrow(expect.objectContaining({ code: "too_large" }));
    expect(() => diffScreenshots(ok, ok, { threshold: 2 })).toThrow(expect.objectContaining({ code: "invalid_input" }));
  });

  it("reports noise all over the page as one region, in bounded work", () => {
    const before = png(600, 600, white);
    const after = png(600, 600, (x, y) => (x % 40 === 0 && y % 40 === 0 ? [0, 0, 0] : [255, 255, 255]));
    const result = diffScreenshots(before, after, { mergeDistance: 0 });
    expect(result.regions.length).toBeLessThanOrEqual(50);
    expect(result.changedPercent).toBeCloseTo((225 / 360000) * 100, 2);
  });

  it("classifies a diff whose only change is visual as visual_change", () => {
    expect(classifyWebsiteChanges([{ category: "visual" }])).toBe("visual_change");
    expect(classifyWebsiteChanges([{ category: "visual" }, { category: "value" }])).toBe("content_change");
    expect(classifyWebsiteChanges([])).toBe("content_change");
  });
});
