export { diffOpenApi, type DiffOptions, type OpenApiChange } from "./diff.js";
export {
  childPointer,
  deref,
  type DocumentLoader,
  type JsonObject,
  loadOpenApi,
  type LoadOptions,
  type Location,
  type OpenApiDocument,
  parseOpenApi,
  type ParseOptions,
  resolveRef,
} from "./document.js";
export { isOpenApiError, OpenApiError, type OpenApiErrorCode } from "./errors.js";
export { DEFAULT_LIMITS, type OpenApiLimits } from "./limits.js";
export { type ChangeLevel, type ChangeSeverity, getRule, LEVEL_ORDER, type RuleFamily, type RuleId, type RuleInfo, RULES } from "./rules.js";
