import type { NoiseEvidence, PolicyRules, RejectedSuggestion } from "@driftwatch/client";

type ListKey = "rules" | "volatile" | "tolerance" | "unordered";
const LISTS: readonly ListKey[] = ["rules", "volatile", "tolerance", "unordered"];

/** `volatile[0]` or `arrayKeys['$.items']` (how evidence names the part of the policy it explains). */
export function parseRuleRef(ref: string): { key: string; index: number } | { key: string; name: string } | null {
  const indexed = /^([A-Za-z]+)\[(\d+)\]$/.exec(ref);
  if (indexed) return { key: indexed[1]!, index: Number(indexed[2]) };
  const named = /^([A-Za-z]+)\['((?:[^'\\]|\\.)*)'\]$/.exec(ref);
  if (named) return { key: named[1]!, name: named[2]!.replace(/\\(.)/g, "$1") };
  return null;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

function addTo(policy: PolicyRules, key: ListKey, item: unknown): PolicyRules {
  const list = ((policy as Record<string, unknown>)[key] as unknown[] | undefined) ?? [];
  if (list.some((x) => same(x, item))) return policy;
  return { ...policy, [key]: [...list, item] } as PolicyRules;
}

/**
 * The user's policy with one suggested part (`evidence`), or every part (`null`), of the suggested
 * policy added after the user's own entries, so that the user's rules keep winning.
 */
export function applySuggestion(user: PolicyRules, suggested: PolicyRules, evidence: NoiseEvidence | null): PolicyRules {
  let next: PolicyRules = { ...user, rules: user.rules ?? [] };
  const s = suggested as Record<string, unknown>;
  if (evidence === null) {
    for (const key of LISTS) for (const item of (s[key] as unknown[] | undefined) ?? []) next = addTo(next, key, item);
    for (const [path, key] of Object.entries(suggested.arrayKeys ?? {}))
      if (next.arrayKeys?.[path] === undefined) next = { ...next, arrayKeys: { ...next.arrayKeys, [path]: key } };
    return next;
  }
  const ref = evidence.rule === undefined ? null : parseRuleRef(evidence.rule);
  if (ref === null) return next;
  if ("index" in ref && (LISTS as readonly string[]).includes(ref.key)) {
    const item = ((s[ref.key] as unknown[] | undefined) ?? [])[ref.index];
    return item === undefined ? next : addTo(next, ref.key as ListKey, item);
  }
  if ("name" in ref && ref.key === "arrayKeys") {
    const key = suggested.arrayKeys?.[ref.name];
    return key === undefined ? next : { ...next, arrayKeys: { ...next.arrayKeys, [ref.name]: key } };
  }
  return next;
}

/**
 * Whether the user's stored policy already holds its own copy of the suggested entry `evidence`
 * explains (pinned, maybe edited since): a volatile, tolerance or unordered entry on the same path
 * or selector, a key for the same array, or the same severity rule. The server then applies the
 * user's copy and leaves the learned one out (see mergeSuggestedPolicy).
 */
export function pinnedIn(user: PolicyRules, suggested: PolicyRules, evidence: NoiseEvidence): boolean {
  const ref = evidence.rule === undefined ? null : parseRuleRef(evidence.rule);
  if (ref === null) return false;
  if ("name" in ref) return ref.key === "arrayKeys" && user.arrayKeys?.[ref.name] !== undefined;
  const item = ((suggested as Record<string, unknown>)[ref.key] as unknown[] | undefined)?.[ref.index];
  if (item === undefined) return false;
  switch (ref.key) {
    case "volatile": {
      const v = item as { path?: string; selector?: string };
      return (user.volatile ?? []).some((u) => (v.path !== undefined ? u.path === v.path : u.selector === v.selector));
    }
    case "tolerance":
      return (user.tolerance ?? []).some((u) => u.path === (item as { path: string }).path);
    case "unordered":
      return (user.unordered ?? []).includes(item as string);
    case "rules":
      return (user.rules ?? []).some((u) => same(u, item));
    default:
      return false;
  }
}

/**
 * The `rejectedSuggestions` entry that rejects what `evidence` explains: volatile, tolerance,
 * unordered and array-key entries can be rejected; severity rules and kept fields cannot (null).
 */
export function rejectionOf(evidence: NoiseEvidence): RejectedSuggestion | null {
  const kind = evidence.kind === "arrayKey" ? "arrayKey" : evidence.kind === "volatile" || evidence.kind === "tolerance" || evidence.kind === "unordered" ? evidence.kind : null;
  if (kind === null) return null;
  if (evidence.path !== undefined) return { kind, path: evidence.path };
  if (evidence.selector !== undefined) return { kind, selector: evidence.selector };
  return null;
}

export function sameRejection(a: RejectedSuggestion, b: RejectedSuggestion): boolean {
  return a.kind === b.kind && a.path === b.path && a.selector === b.selector;
}
