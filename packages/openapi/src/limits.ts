/** Limits that keep loading and diffing a hostile document bounded. */
export interface OpenApiLimits {
  /** Bytes of one document (default 32 MiB). */
  readonly maxDocumentBytes: number;
  /** Bytes of all documents of one API together, external $refs included (default 64 MiB). */
  readonly maxTotalBytes: number;
  /** Documents reached through external $refs, the root included (default 50). */
  readonly maxDocuments: number;
  /** Nesting depth of the parsed data, and hops of one $ref chain (default 256). */
  readonly maxDepth: number;
  /** YAML aliases expanded while parsing (default 1000; billion-laughs documents stop here). */
  readonly maxAliases: number;
  /**
   * Values (objects, arrays and their entries) walked while loading one document (default
   * 4,000,000). An object shared through YAML aliases counts once, wherever it appears.
   */
  readonly maxNodes: number;
  /**
   * Nodes of one YAML document (scalars, collections, entries, aliases), counted before it is
   * parsed (default 1,000,000: yaml's syntax tree takes about 800 bytes of heap per node).
   */
  readonly maxYamlNodes: number;
  /** Schema pairs the diff may visit (default 2,000,000). */
  readonly maxSchemaVisits: number;
}

export const DEFAULT_LIMITS: OpenApiLimits = {
  maxDocumentBytes: 32 * 1024 * 1024,
  maxTotalBytes: 64 * 1024 * 1024,
  maxDocuments: 50,
  maxDepth: 256,
  maxAliases: 1000,
  maxNodes: 4_000_000,
  maxYamlNodes: 1_000_000,
  maxSchemaVisits: 2_000_000,
};

export function resolveLimits(limits: Partial<OpenApiLimits> | undefined): OpenApiLimits {
  return { ...DEFAULT_LIMITS, ...limits };
}
