export { inferArrayKey, PREFERRED_ARRAY_KEYS } from "./arrays.js";
export type { DiffExplanation, ExplanationOutcome } from "./explain.js";
export { DEFAULT_MAX_DEPTH, type DiffJsonOptions, diffJson, type ExplainedJsonDiff, explainDiffJson, type JsonDiff } from "./json.js";
export { type JsonPatchOperation, toJsonPatch } from "./patch.js";
