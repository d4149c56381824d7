export { DEFAULT_MAX_DEPTH, type DiffJsonOptions, diffJson, type JsonDiff } from "./json.js";
export { type JsonPatchOperation, toJsonPatch } from "./patch.js";
