import type { Change, Diff } from "@driftwatch/client";
import { useQuery, type UseQueryResult } from "@tanstack/react-query";
import { useClient } from "../../api/context";
import { monitorKeys } from "../../api/keys";

/**
 * The documents of an `openapi` monitor's snapshot by URL ("" for the root document): a plain
 * document is stored as it was fetched; with `$ref`s to other documents it is a bundle (the
 * engine's `encodeBundle`). Only JSON documents are read here (YAML: none).
 */
export function documentsOf(body: string): Map<string, unknown> | null {
  const documents = new Map<string, unknown>();
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  const bundle = parsed as { "x-driftwatch-openapi-bundle"?: unknown; root?: string; documents?: Record<string, string> };
  if (bundle["x-driftwatch-openapi-bundle"] === undefined || typeof bundle.root !== "string" || bundle.documents === undefined) {
    documents.set("", parsed);
    return documents;
  }
  for (const [url, text] of Object.entries(bundle.documents)) {
    try {
      documents.set(url === bundle.root ? "" : url, JSON.parse(text));
    } catch {
      // a YAML document among them: its excerpts cannot be shown
    }
  }
  return documents;
}

/** A contract violation's schema excerpt, or undefined when there is none to show. */
export type ExcerptOf = (change: Change) => unknown;

/**
 * The schema excerpts a diff's contract violations recorded, by `schemaPath`: the server records
 * one per schema location in a diff, on its first violation there; the others share it.
 */
export function recordedExcerpts(changes: readonly Change[]): Map<string, unknown> {
  const excerpts = new Map<string, unknown>();
  for (const change of changes) {
    if (change.category === "contract" && change.schemaPath !== undefined && change.schemaExcerpt != null && !excerpts.has(change.schemaPath)) {
      excerpts.set(change.schemaPath, change.schemaExcerpt);
    }
  }
  return excerpts;
}

const unescape = (token: string): string => token.replace(/~1/g, "/").replace(/~0/g, "~");

/**
 * The schema object that holds the violated keyword: a contract change's `schemaPath` (a JSON
 * pointer in the contract's document, `url#pointer` in another one) without its last token, the
 * keyword. Undefined when the pointer does not resolve.
 */
export function schemaExcerpt(documents: ReadonlyMap<string, unknown>, schemaPath: string): unknown {
  const hash = schemaPath.indexOf("#");
  const doc = documents.get(hash === -1 ? "" : schemaPath.slice(0, hash));
  const pointer = hash === -1 ? schemaPath : schemaPath.slice(hash + 1);
  if (doc === undefined || !pointer.startsWith("/")) return undefined;
  const tokens = pointer.slice(1).split("/").map(unescape);
  let node: unknown = doc;
  for (const token of tokens.slice(0, -1)) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node === null || typeof node !== "object" ? undefined : node;
}

/** Shortens an excerpt to `depth` levels (deeper objects and arrays as `{…}` and `[…]`), for showing next to a value. */
export function shallow(value: unknown, depth = 3): unknown {
  if (value === null || typeof value !== "object") return value;
  if (depth === 0) return Array.isArray(value) ? "[…]" : "{…}";
  if (Array.isArray(value)) return value.map((v) => shallow(v, depth - 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shallow(v, depth - 1)]));
}

/**
 * The contract's documents as the check that found `diff`'s violations read them, when the
 * monitor's contract names a stored `openapi` monitor: its newest snapshot at or before the diff.
 * Null when the contract's document is a URL (the browser cannot read it: the dashboard's CSP and
 * the target's CORS), YAML, or not stored.
 */
export function useContractDocuments(diff: Diff, enabled: boolean): UseQueryResult<Map<string, unknown> | null> {
  const client = useClient();
  return useQuery({
    queryKey: [...monitorKeys.diff(diff.monitorId, diff.id), "contract-documents"],
    enabled,
    staleTime: Infinity,
    queryFn: async () => {
      const monitor = await client.monitors.get(diff.monitorId);
      const document = monitor.contract?.document;
      if (document === undefined || typeof document === "string") return null;
      const page = await client.snapshots.list(document.monitorId, { limit: 25 });
      const snapshot = page.data.find((s) => s.fetchedAt <= diff.createdAt) ?? page.data[page.data.length - 1];
      if (snapshot === undefined) return null;
      const full = await client.snapshots.get(document.monitorId, snapshot.id);
      return documentsOf(full.body);
    },
  });
}
