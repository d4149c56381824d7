// The worker-thread entry of the compare pool (built to dist/compare-worker.js): piscina calls
// the default export with each task.
import { contractTask, type ContractTask, type ContractTaskResult, readOpenApiTask, type ReadOpenApiTask, type ReadOpenApiTaskResult } from "../openapi/offload.js";
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

/** `run(task, { name: "readOpenApi" })`: an OpenAPI document and those its `$ref`s reach read off the main thread (the texts asked of it). */
export function readOpenApi(task: ReadOpenApiTask): Promise<ReadOpenApiTaskResult> {
  return readOpenApiTask(task);
}

/** `run(task, { name: "contract" })`: a response checked against a contract whose document is too big to read on the main thread. */
export function contract(task: ContractTask): ContractTaskResult {
  return contractTask(task);
}
