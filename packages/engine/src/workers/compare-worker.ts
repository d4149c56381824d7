// The worker-thread entry of the compare pool (built to dist/compare-worker.js): piscina calls
// the default export with each task.
import { compareBatch as runBatch, compareContent, compareScreenshots, type CompareBatchTask, type CompareResult, type CompareTask, learnContent, type LearnResult, type LearnTask, type VisualResult, type VisualTask } from "./compare.js";

export default function compare(task: CompareTask): CompareResult {
  return compareContent(task);
}

/** The rules preview's batch (piscina's `name: "compareBatch"`). */
export function compareBatch(task: CompareBatchTask): CompareResult[] {
  return runBatch(task);
}

/** `run(task, { name: "learn" })`: a noise profile learned off the main thread. */
export function learn(task: LearnTask): LearnResult {
  return learnContent(task);
}

/** `run(task, { name: "visual" })`: two screenshots decoded and compared off the main thread. */
export function visual(task: VisualTask): VisualResult {
  return compareScreenshots(task);
}
