// The worker-thread entry of the compare pool (built to dist/compare-worker.js): piscina calls
// the default export with each task.
import { compareContent, type CompareResult, type CompareTask } from "./compare.js";

export default function compare(task: CompareTask): CompareResult {
  return compareContent(task);
}
