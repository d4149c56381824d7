export {
  evaluateAlert,
  evaluateFailedCheck,
  MAX_CONDITION_INPUT,
  previewAlert,
  type AlertEvaluation,
  type AlertPreviewEntry,
  type AlertState,
  type CheckObservation,
  type ObservedValue,
} from "./evaluate.js";
export { compilePattern, kindOfSpec, validateAlert, type CompiledAlert, type ConditionValueKind } from "./validate.js";
