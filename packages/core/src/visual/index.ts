export {
  classifyWebsiteChanges,
  DEFAULT_VISUAL_MAX_PIXELS,
  DEFAULT_VISUAL_MIN_CHANGED_PERCENT,
  DEFAULT_VISUAL_SEVERITY,
  DEFAULT_VISUAL_THRESHOLD,
  diffScreenshots,
  visualDiffOptions,
  type DiffScreenshotsOptions,
  type Screenshot,
  type VisualComparison,
} from "./diff-screenshots.js";
