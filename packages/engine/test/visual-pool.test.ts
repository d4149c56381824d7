import { PNG } from "pngjs";
import { afterAll, describe, expect, it } from "vitest";
import { createComparePool } from "../src/index.js";

/** A `width` x `height` white PNG with a black `box` painted on it. */
function png(width: number, height: number, box?: { x: number; y: number; w: number; h: number }): Uint8Array {
  const image = new PNG({ width, height });
  image.data.fill(255);
  if (box !== undefined) {
    for (let y = box.y; y < box.y + box.h; y++) {
      for (let x = box.x; x < box.x + box.w; x++) {
        const i = (y * width + x) * 4;
        image.data[i] = 0;
        image.data[i + 1] = 0;
        image.data[i + 2] = 0;
      }
    }
  }
  return new Uint8Array(PNG.sync.write(image));
}

describe("the compare pool's screenshot comparison", () => {
  const pool = createComparePool({ workers: 1 });
  afterAll(() => pool.close());

  it("compares small screenshots inline and big ones in a worker thread, with the same result", async () => {
    const small = await pool.visual({ before: png(200, 100), after: png(200, 100, { x: 10, y: 10, w: 20, h: 10 }), options: { minChangedPercent: 0.1 } });
    expect(pool.offloaded).toBe(0);
    expect(small).toMatchObject({ ok: true, changedPercent: 1, regions: [{ x: 8, y: 8 }] });

    const big = await pool.visual({ before: png(1200, 1000), after: png(1200, 1000, { x: 100, y: 200, w: 120, h: 100 }), options: { severity: "high" } });
    expect(pool.offloaded).toBe(1);
    if (!big.ok) throw new Error(big.message);
    expect(big.changedPercent).toBe(1);
    expect(big.change).toMatchObject({ category: "visual", severity: "high" });
    expect(big.regions).toHaveLength(1);
  });

  it("answers a comparison that cannot run with its code instead of throwing", async () => {
    const bad = await pool.visual({ before: new Uint8Array([1, 2, 3]), after: png(10, 10), options: {} });
    expect(bad).toMatchObject({ ok: false, code: "invalid_input" });
    const huge = await pool.visual({ before: png(1200, 1000), after: png(1200, 1000), options: { maxPixels: 1000 } });
    expect(huge).toMatchObject({ ok: false, code: "too_large" });
  });
});
