import { useState, type ReactNode } from "react";
import { ErrorState, Loading } from "../../ui/states";
import { useScreenshot, type Region, type VisualDiff } from "./api";

/** A region in percent of the image, so that the overlay scales with the shown image. */
export function regionStyle(region: Region, width: number, height: number): { left: string; top: string; width: string; height: string } {
  const pct = (n: number, of: number): string => `${String(Math.round((n / of) * 10000) / 100)}%`;
  return { left: pct(region.x, width), top: pct(region.y, height), width: pct(region.width, width), height: pct(region.height, height) };
}

type OnLoad = (size: { width: number; height: number }) => void;

function Shot({ url, label, alt, overlay, onSize }: { url: string | null; label: string; alt: string; overlay?: ReactNode; onSize?: OnLoad }): ReactNode {
  return (
    <figure className="shot">
      <figcaption>{label}</figcaption>
      {url ? (
        <div className="shot-frame">
          <img src={url} alt={alt} onLoad={onSize ? (e) => onSize({ width: e.currentTarget.naturalWidth, height: e.currentTarget.naturalHeight }) : undefined} />
          {overlay}
        </div>
      ) : (
        <p className="muted">No screenshot.</p>
      )}
    </figure>
  );
}

/**
 * Before and after screenshots of a visual diff: side by side, or one over the other with a
 * slider; the changed regions outlined on the after image.
 */
export function VisualCompare({ monitorId, beforeId, afterId, visual }: { monitorId: string; beforeId: string | null; afterId: string; visual: VisualDiff }): ReactNode {
  const before = useScreenshot(monitorId, beforeId);
  const after = useScreenshot(monitorId, afterId);
  const [mode, setMode] = useState<"side" | "slider">("side");
  const [split, setSplit] = useState(50);
  const [overlay, setOverlay] = useState(true);
  const [size, setSize] = useState<{ width: number; height: number } | null>(null);
  const regions = overlay && size ? visual.regions : [];
  const boxes = (
    <div className="regions" aria-hidden="true">
      {regions.map((r, i) => (
        <span key={i} className="region" style={regionStyle(r, size!.width, size!.height)} />
      ))}
    </div>
  );
  return (
    <section className="visual card" aria-labelledby="visual-title">
      <h2 id="visual-title">Screenshots</h2>
      <p>
        {visual.changedPercent.toFixed(2)} % of the page changed, in {visual.regions.length} region{visual.regions.length === 1 ? "" : "s"}.
      </p>
      <div className="visual-controls">
        <div className="segmented" role="group" aria-label="Screenshots">
          <button type="button" aria-pressed={mode === "side"} onClick={() => setMode("side")}>
            Side by side
          </button>
          <button type="button" aria-pressed={mode === "slider"} onClick={() => setMode("slider")}>
            Slider
          </button>
        </div>
        <label className="inline">
          <input type="checkbox" checked={overlay} onChange={(e) => setOverlay(e.target.checked)} /> Outline the changed regions
        </label>
      </div>
      {after.isPending || before.isPending ? <Loading what="the screenshots" /> : null}
      {after.error || before.error ? <ErrorState error={after.error ?? before.error} /> : null}
      {mode === "side" ? (
        <div className="shots">
          <Shot url={before.url} label="Before" alt="The page before the change" />
          {/* the after image's natural size places the regions */}
          <Shot url={after.url} label="After" alt="The page after the change" overlay={boxes} onSize={setSize} />
        </div>
      ) : (
        <div>
          <div className="slider-frame">
            {after.url ? <img src={after.url} alt="The page after the change" onLoad={(e) => setSize({ width: e.currentTarget.naturalWidth, height: e.currentTarget.naturalHeight })} /> : null}
            {before.url ? (
              <div className="slider-before" style={{ clipPath: `inset(0 ${String(100 - split)}% 0 0)` }}>
                <img src={before.url} alt="The page before the change" />
              </div>
            ) : null}
            {after.url ? boxes : null}
          </div>
          <label htmlFor="v-split">Before ← → after</label>
          <input id="v-split" type="range" min={0} max={100} value={split} onChange={(e) => setSplit(Number(e.target.value))} />
        </div>
      )}
    </section>
  );
}
