export { DEFAULT_DOCUMENT_BUDGET, DEFAULT_RULE_BUDGET, EvalBudget, evaluateJsonPath, type JsonNode, nodeSegments } from "./evaluate.js";
export { compileIRegexp, iregexpProblem, MAX_REGEXP_LENGTH } from "./iregexp.js";
export { isSingular, MAX_NESTING, MAX_QUERY_LENGTH, parseJsonPath, type Query, type Segment, type Selector } from "./parse.js";
