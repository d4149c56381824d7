import { OpenApiError } from "./errors.js";
import { deref, type JsonObject, type Location, type OpenApiDocument } from "./document.js";

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

// By object: a value shared through YAML aliases (an enum list in hundreds of schemas) is written
// once, not at every place (issue 30).
const canonical = new WeakMap<object, string>();
const canonicalSorted = new WeakMap<object, string>();

/** JSON with sorted keys, for comparing data values (enum members, const, default). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  const known = canonical.get(value);
  if (known !== undefined) return known;
  let text: string;
  if (Array.isArray(value)) text = `[${value.map(canonicalJson).join(",")}]`;
  else {
    const object = value as JsonObject;
    text = `{${Object.keys(object).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(object[k])}`).join(",")}}`;
  }
  canonical.set(value, text);
  return text;
}

/** `canonicalJson` of an array's members in sorted order (a `required` list is a set). */
function canonicalJsonSorted(list: readonly unknown[]): string {
  let text = canonicalSorted.get(list);
  if (text === undefined) canonicalSorted.set(list, (text = canonicalJson([...list].sort())));
  return text;
}

/**
 * Structural fingerprints of values with `$ref`s followed: two values whose fingerprints are equal
 * mean the same thing, whatever their `$ref` targets are called. Memoized per value (object
 * identity: a value of a parsed document lives at one place, or at every place a YAML alias puts
 * it, and means the same there), so each value of a document is hashed once; a `$ref` back into a
 * value being hashed counts as "cycle". Primitives are interned, not memoized.
 */
export class Fingerprints {
  /** By value, for schemas and other objects (`$ref` and annotations left out). */
  private readonly memo = new Map<object, string>();
  /** By value, for objects whose keys are names (every key counts). */
  private readonly namesMemo = new Map<object, string>();
  private readonly inProgress = new Set<object>();
  private readonly namesInProgress = new Set<object>();
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
    return this.ofValue(target.doc, target.value, names);
  }

  /** The fingerprint of a value of the document at `doc` (a `$ref` in it is followed first). */
  private ofValue(doc: string, input: unknown, names: boolean): string {
    if (input === null || typeof input !== "object") return this.intern(`v${JSON.stringify(input)}`);
    let value: object = input;
    if (typeof (input as JsonObject).$ref === "string") {
      const target = deref(this.doc, { doc, pointer: "", value: input });
      if (target.value === null || typeof target.value !== "object") return this.intern(`v${JSON.stringify(target.value)}`);
      doc = target.doc;
      value = target.value;
    }
    const memo = names ? this.namesMemo : this.memo;
    const known = memo.get(value);
    if (known !== undefined) return known;
    const inProgress = names ? this.namesInProgress : this.inProgress;
    if (inProgress.has(value)) return "cycle";
    // nesting through $refs (S1 -> S2 -> ... each in its own component) is not bounded by the
    // document's own depth: bound it here, before the stack is
    if (this.depth >= MAX_NESTING) throw new OpenApiError("too_deep", `values nest more than ${MAX_NESTING} levels through $refs`);
    inProgress.add(value);
    this.depth++;
    try {
      let shape: string;
      if (Array.isArray(value)) {
        shape = "[";
        for (const item of value) shape += `${this.ofValue(doc, item, false)},`;
      } else {
        const object = value as JsonObject;
        shape = names ? "n{" : "{";
        for (const k of Object.keys(object).sort()) {
          if (!names && (k === "$ref" || !isContractKey(k))) continue;
          const child = object[k];
          shape += `${JSON.stringify(k)}:`;
          if (!names && DATA_KEYS.has(k)) shape += k === "required" && Array.isArray(child) ? canonicalJsonSorted(child) : canonicalJson(child);
          else shape += this.ofValue(doc, child, !names && NAME_MAPS.has(k));
          shape += ",";
        }
      }
      const digest = this.intern(shape);
      memo.set(value, digest);
      return digest;
    } finally {
      this.depth--;
      inProgress.delete(value);
    }
  }
}
