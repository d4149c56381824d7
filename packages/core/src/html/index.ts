export { cssSelectorError } from "./css-selector.js";
export {
  DEFAULT_HTML_MAX_DEPTH,
  DEFAULT_HTML_MAX_SELECTOR_WORK,
  diffHtml,
  explainDiffHtml,
  htmlTextBlocks,
  type DiffHtmlOptions,
  type ExplainedHtmlDiff,
  type HtmlDiffResult,
  type HtmlDiffSummary,
  type HtmlTextBlock,
} from "./diff-html.js";
