export * from "./enums.js";
export * from "./ids.js";
export * from "./resources.js";
export * from "./problem.js";

/** The HTTP API version this build speaks (`driftwatch-version` header). */
export const API_VERSION = "2026-11-01";
export * from "./preview.js";
export * from "./delivery-detail.js";
export * from "./people.js";
export * from "./conditions.js";
export * from "./channels.js";
export * from "./browser-tools.js";
export * from "./rejected-suggestions.js";
