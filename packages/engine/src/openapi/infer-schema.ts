/**
 * A JSON Schema (2020-12) inferred from a monitor's observed responses: the types each member had,
 * which object members were always there (`required`), array items as one schema, string formats
 * every sample agreed on; members the monitor treats as volatile (learned or configured) are marked
 * `x-driftwatch-volatile: true`. Bounded: at most `MAX_INFERRED_NODES` schema nodes and
 * `MAX_INFERRED_DEPTH` levels (deeper values are left `{}`: anything).
 */

export const MAX_INFERRED_NODES = 20_000;
export const MAX_INFERRED_DEPTH = 64;
export const VOLATILE_KEYWORD = "x-driftwatch-volatile";

type JsonType = "null" | "boolean" | "integer" | "number" | "string" | "array" | "object";

interface Node {
  types: Set<JsonType>;
  /** Samples that had a value here. */
  seen: number;
  properties: Map<string, Node>;
  /** For each property: in how many of the objects seen here it was present. */
  present: Map<string, number>;
  objects: number;
  items: Node | null;
  formats: Set<string> | null;
  path: string;
}

const FORMATS: ReadonlyArray<[string, RegExp]> = [
  ["date-time", /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/],
  ["date", /^\d{4}-\d{2}-\d{2}$/],
  ["uuid", /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/],
  ["email", /^[^\s@]+@[^\s@]+\.[^\s@]+$/],
  ["uri", /^https?:\/\/[^\s]+$/],
];

function typeOf(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "string") return "string";
  return "object";
}

function member(path: string, name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `${path}.${name}` : `${path}['${name.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}']`;
}

/** A JSONPath as the inferred schema's paths write it: members in dot form where they can be, every index as `[*]`. */
export function normalizeJsonPath(path: string): string {
  return path
    .replace(/\[(\d+|\*)\]/g, "[*]")
    .replace(/\[(['"])([A-Za-z_][A-Za-z0-9_]*)\1\]/g, ".$2")
    .replace(/\["((?:[^"\\]|\\.)*)"\]/g, (_m, name: string) => `['${name.replace(/'/g, "\\'")}']`);
}

export interface InferredSchema {
  /** The JSON Schema (with `$schema`). */
  schema: Record<string, unknown>;
  /** Samples inferred from. */
  samples: number;
  /** Paths marked volatile in the schema. */
  volatile: string[];
  /** True when the node limit cut the inference short (deeper members are `{}`). */
  truncated: boolean;
}

/**
 * Infers a JSON Schema from samples (parsed JSON documents, any order). `volatilePaths` are
 * JSONPaths (`$.items[*].updatedAt`) whose members are marked `x-driftwatch-volatile: true`.
 */
export function inferJsonSchema(samples: readonly unknown[], volatilePaths: readonly string[] = []): InferredSchema {
  let nodes = 0;
  let truncated = false;
  const fresh = (path: string): Node => {
    nodes++;
    return { types: new Set(), seen: 0, properties: new Map(), present: new Map(), objects: 0, items: null, formats: null, path };
  };
  const root = fresh("$");

  const visit = (node: Node, value: unknown, depth: number): void => {
    const type = typeOf(value);
    node.types.add(type);
    node.seen++;
    if (depth >= MAX_INFERRED_DEPTH) return;
    if (type === "string") {
      const matching = new Set(FORMATS.filter(([, pattern]) => pattern.test(value as string)).map(([name]) => name));
      node.formats = node.formats === null ? matching : new Set([...node.formats].filter((name) => matching.has(name)));
    } else if (type === "object") {
      node.objects++;
      for (const [name, child] of Object.entries(value as Record<string, unknown>)) {
        let next = node.properties.get(name);
        if (next === undefined) {
          if (nodes >= MAX_INFERRED_NODES) {
            truncated = true;
            continue;
          }
          next = fresh(member(node.path, name));
          node.properties.set(name, next);
        }
        node.present.set(name, (node.present.get(name) ?? 0) + 1);
        visit(next, child, depth + 1);
      }
    } else if (type === "array") {
      for (const item of value as unknown[]) {
        if (node.items === null) {
          if (nodes >= MAX_INFERRED_NODES) {
            truncated = true;
            break;
          }
          node.items = fresh(`${node.path}[*]`);
        }
        visit(node.items, item, depth + 1);
      }
    }
  };
  for (const sample of samples) visit(root, sample, 0);

  const wanted = new Set(volatilePaths.map(normalizeJsonPath));
  const marked: string[] = [];
  const emit = (node: Node): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    const types = [...node.types];
    // an integer seen where numbers are too is a number
    const merged = types.includes("number") ? types.filter((type) => type !== "integer") : types;
    if (merged.length === 1) out.type = merged[0];
    else if (merged.length > 1) out.type = merged.sort();
    if (node.formats !== null && node.formats.size > 0 && merged.every((type) => type === "string" || type === "null")) {
      // the most specific format all the strings matched (date-time before date)
      out.format = FORMATS.map(([name]) => name).find((name) => node.formats!.has(name));
    }
    if (node.properties.size > 0) {
      const properties: Record<string, unknown> = {};
      const required: string[] = [];
      for (const [name, child] of node.properties) {
        properties[name] = emit(child);
        if (node.present.get(name) === node.objects) required.push(name);
      }
      out.properties = properties;
      if (required.length > 0) out.required = required;
    }
    if (node.items !== null) out.items = emit(node.items);
    if (wanted.has(node.path)) {
      out[VOLATILE_KEYWORD] = true;
      marked.push(node.path);
    }
    return out;
  };
  const body = samples.length === 0 ? {} : emit(root);
  return { schema: { $schema: "https://json-schema.org/draft/2020-12/schema", ...body }, samples: samples.length, volatile: marked, truncated };
}
