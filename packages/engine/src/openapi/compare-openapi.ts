import { createHash } from "node:crypto";
import { diffOpenApi, type OpenApiChange } from "@driftwatch/openapi";
import { type Change, maxSeverity, type Op } from "@driftwatch/schema";
import { parseStoredDocument } from "./bundle.js";

/** The engine's diff of two versions of an OpenAPI document. */
export interface OpenApiComparedDiff {
  classification: "api_change";
  /** Breaking and potentially breaking changes. */
  schemaChanges: number;
  /** Non-breaking changes. */
  valueChanges: number;
  topSeverity: Change["severity"];
  diffFingerprint: string;
  /** Breaking first (the order of `diffOpenApi`). */
  changes: Change[];
}

/** `/paths/~1pets/get` as the JSONPath `$.paths['/pets'].get`. */
export function pointerToJsonPath(pointer: string): string {
  if (pointer === "") return "$";
  let out = "$";
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (/^[0-9]+$/.test(token)) out += `[${token}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(token)) out += `.${token}`;
    else out += `['${token.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}']`;
  }
  return out;
}

/** What a rule did, as a JSON Patch op: rules of removals remove, of additions add, the others replace. */
function opOf(id: string): Op {
  if (/-(removed|deleted)(-|$)/.test(id)) return "remove";
  if (/-added(-|$)/.test(id) || id.startsWith("new-")) return "add";
  return "replace";
}

/** An OpenAPI change as a driftwatch change of category `api`. */
export function toApiChange(change: OpenApiChange): Change {
  let path = "$";
  if (change.path !== undefined) {
    const hash = change.path.indexOf("#");
    // a pointer into another document (`https://.../pet.yaml#/Pet`) stays a URL
    path = hash === -1 ? pointerToJsonPath(change.path) : change.path;
  }
  return {
    path,
    category: "api",
    op: opOf(change.id),
    severity: change.severity,
    detail: change.message,
    rule: change.id,
    level: change.level,
    ...(change.operation === undefined ? {} : { operation: change.operation }),
  };
}

/**
 * Compares two stored versions of an OpenAPI document (`url`: where a plain document was read
 * from). Null when no rule found a change (only descriptions or examples changed, or nothing).
 * Throws an `OpenApiError` when a version cannot be read or the diff is too complex.
 */
export function compareOpenApi(previousBody: string, body: string, url: string, today?: string): OpenApiComparedDiff | null {
  const base = parseStoredDocument(previousBody, url);
  const revision = parseStoredDocument(body, url);
  const found = diffOpenApi(base, revision, today === undefined ? {} : { today });
  if (found.length === 0) return null;
  const changes = found.map(toApiChange);
  const hash = createHash("sha256");
  for (const change of changes) hash.update(`${change.rule ?? ""}\u0000${change.operation ?? ""}\u0000${change.path}\u0000${change.detail ?? ""}\u0001`);
  const breaking = found.filter((change) => change.level !== "non-breaking").length;
  return {
    classification: "api_change",
    schemaChanges: breaking,
    valueChanges: found.length - breaking,
    topSeverity: maxSeverity(changes.map((change) => change.severity)) ?? "info",
    diffFingerprint: `sha256:${hash.digest("hex")}`,
    changes,
  };
}
