// The names issues 2 and 11 promise embedders, exported from the package entry point.
import { describe, expect, it } from "vitest";
import * as core from "../src/index.js";

const functions = [
  "diffJson",
  "diffHtml",
  "toJsonPatch",
  "formatPath",
  "parsePath",
  "toNormalizedPath",
  "classifySeverity",
  "applyPolicy",
  "validatePolicyRules",
  "fingerprintChanges",
  "buildDiffDetectedEvent",
  "generateWebhookSecret",
  "signWebhook",
  "verifyWebhook",
  "isDriftwatchError",
  "inferArrayKey",
  "explainDiffJson",
  "explainDiffHtml",
  "suggestPolicy",
] as const;
const classes = ["DriftwatchError", "WebhookVerificationError", "FetchError"] as const;
const schemas = [
  "MonitorSchema",
  "BrowserOptionsSchema",
  "SnapshotSchema",
  "ApiDiffSchema",
  "WebsiteDiffSchema",
  "ChangeSchema",
  "PolicyRulesSchema",
  "VolatileRuleSchema",
  "ToleranceRuleSchema",
  "NormalizeSchema",
  "WebhookSchema",
  "DeliverySchema",
  "TokenSchema",
  "DiffDetectedEventSchema",
  "ProblemSchema",
  "ClassificationSchema",
  "CategorySchema",
  "OpSchema",
  "SeveritySchema",
] as const;

describe("@driftwatch/core exports", () => {
  it.each(functions)("%s is a function", (name) => {
    expect(typeof core[name]).toBe("function");
  });
  it.each(classes)("%s is an Error class with a code", (name) => {
    const ErrorClass = core[name] as unknown as new (code: string, message: string) => Error & { code: string };
    const error = name === "DriftwatchError" ? new ErrorClass("invalid_input", "x") : name === "FetchError" ? new ErrorClass("timeout", "x") : null;
    if (error !== null) {
      expect(error).toBeInstanceOf(Error);
      expect(core.isDriftwatchError(error)).toBe(true);
    }
    expect(typeof ErrorClass).toBe("function");
  });
  it.each(schemas)("%s is a zod schema", (name) => {
    expect(typeof (core[name] as { safeParse?: unknown }).safeParse).toBe("function");
  });
  it("exposes the enums of the resources", () => {
    expect(core.ClassificationSchema.options).toEqual(["schema_change", "value_change", "content_change", "visual_change", "api_change", "contract_violation"]);
    expect(core.CategorySchema.options).toEqual(["schema", "value", "visual", "api", "contract"]);
    expect(core.OpSchema.options).toEqual(["add", "remove", "replace", "move"]);
    expect(core.SeveritySchema.options).toEqual(["info", "low", "medium", "high", "critical"]);
  });
});
