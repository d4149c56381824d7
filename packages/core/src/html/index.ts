export {
  diffHtml,
  htmlTextBlocks,
  type DiffHtmlOptions,
  type HtmlDiffResult,
  type HtmlDiffSummary,
  type HtmlTextBlock,
} from "./diff-html.js";
