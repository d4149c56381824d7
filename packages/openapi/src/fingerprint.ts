import { OpenApiError } from "./errors.js";
import { childPointer, deref, type JsonObject, type Location, type OpenApiDocument } from "./document.js";

// Keys that say nothing about what a client may send or receive: a change to them alone is no
// API change (and two schemas that differ only in them are the same schema).
const ANNOTATIONS = new Set(["description", "summary", "title", "example", "examples", "externalDocs", "$comment", "xml"]);
const KEPT_EXTENSIONS = new Set(["x-stability-level", "x-sunset", "x-extensible-enum"]);

/** Whether a key of a schema or operation object carries meaning for the contract. */
export function isContractKey(key: string): boolean {
  if (ANNOTATIONS.has(key)) return false;
  if (key.startsWith("x-")) return KEPT_EXTENSIONS.has(key);
  return true;
}

const MAX_NESTING = 2000;

// Objects whose keys are names chosen by the author (a property called "description" is a property).
const NAME_MAPS = new Set([
  "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependentRequired",
  "schemas", "responses", "content", "headers", "paths", "parameters", "securitySchemes", "links",
  "callbacks", "mapping", "variables", "encoding", "scopes", "requestBodies", "webhooks", "pathItems",
]);
// Values that are data, compared as JSON.
const DATA_KEYS = new Set(["enum", "const", "default", "required"]);

/** JSON with sorted keys, for comparing data values (enum members, const, default). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const object = value as JsonObject;
  return `{${Object.keys(object).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(object[k])}`).join(",")}}`;
}

/**
 * Structural fingerprints of values with `$ref`s followed: two values whose fingerprints are equal
 * mean the same thing, whatever their `$ref` targets are called. Memoized per location, so each
 * value of a document is hashed once; a `$ref` back into a value being hashed counts as "cycle".
 */
export class Fingerprints {
  private readonly memo = new Map<string, string>();
  private readonly inProgress = new Set<string>();
  private depth = 0;

  /**
   * `interned` maps each distinct shape to a short id; share it between the two documents
   * compared, so that equal ids mean equal shapes (exactly: no hash collisions).
   */
  constructor(
    private readonly doc: OpenApiDocument,
    private readonly interned: Map<string, string> = new Map(),
  ) {}

  private intern(shape: string): string {
    let id = this.interned.get(shape);
    if (id === undefined) {
      id = `#${this.interned.size.toString(36)}`;
      this.interned.set(shape, id);
    }
    return id;
  }

  of(location: Location, names = false): string {
    const target = deref(this.doc, location);
    const key = `${names ? "n" : "s"}${target.doc}#${target.pointer}`;
    const known = this.memo.get(key);
    if (known !== undefined) return known;
    if (this.inProgress.has(key)) return "cycle";
    // nesting through $refs (S1 -> S2 -> ... each in its own component) is not bounded by the
    // document's own depth: bound it here, before the stack is
    if (this.depth >= MAX_NESTING) throw new OpenApiError("too_deep", `values nest more than ${MAX_NESTING} levels through $refs`);
    this.inProgress.add(key);
    this.depth++;
    try {
      const parts: string[] = [];
      const hash = { update: (text: string): void => void parts.push(text) };
      const value = target.value;
      if (value === null || typeof value !== "object") hash.update(`v${JSON.stringify(value)}`);
      else if (Array.isArray(value)) {
        hash.update("[");
        value.forEach((item, index) => {
          hash.update(this.of({ doc: target.doc, pointer: childPointer(target.pointer, index), value: item }));
          hash.update(",");
        });
      } else {
        hash.update(names ? "n{" : "{");
        for (const k of Object.keys(value as JsonObject).sort()) {
          if (!names && (k === "$ref" || !isContractKey(k))) continue;
          const child = (value as JsonObject)[k];
          hash.update(JSON.stringify(k));
          hash.update(":");
          if (!names && DATA_KEYS.has(k)) hash.update(canonicalJson(k === "required" && Array.isArray(child) ? [...child].sort() : child));
          else hash.update(this.of({ doc: target.doc, pointer: childPointer(target.pointer, k), value: child }, !names && NAME_MAPS.has(k)));
          hash.update(",");
        }
      }
      const digest = this.intern(parts.join(""));
      this.memo.set(key, digest);
      return digest;
    } finally {
      this.depth--;
      this.inProgress.delete(key);
    }
  }
}
