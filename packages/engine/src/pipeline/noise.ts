import {
  compilePolicy,
  createPolicyEvaluator,
  NOISE_MAX_SAMPLES,
  NOISE_MIN_SAMPLES,
  parsePath,
  type MonitorRecord,
  type PolicyEvidence,
  type PolicyRules,
  type PolicyTarget,
  type Store,
} from "@driftwatch/core";
import { rejectionBlocks, type RejectedSuggestion } from "@driftwatch/schema";
import { NOISE_CACHE_ENTRIES, NOISE_MAX_BYTES, POLICY_LIST_MAX } from "../limits.js";
import { learnContent, type LearnResult, type LearnTask } from "../workers/compare.js";

export { NOISE_MAX_BYTES };

/**
 * The noise profile of a monitor is derived from its stored snapshots, not kept apart: the newest
 * `NOISE_MAX_SAMPLES` (10) snapshots whose bodies add up to at most `NOISE_MAX_BYTES` are learned
 * from with `suggestPolicy`. Snapshots are stored only when the content changes and are retained
 * per monitor (default 100), so the profile is bounded, survives a restart and goes with the
 * monitor when it is deleted. The learned suggestion is cached in this process per monitor and
 * recomputed only when the set of sample snapshots changed (a new snapshot was recorded).
 * Learning is synchronous CPU work (suggestPolicy on ~1 MB of JSON takes tens of milliseconds), so
 * the byte budget also bounds how long one learning run holds the event loop.
 */



export interface LearnedNoise {
  /** Snapshots learned from. */
  samples: number;
  /**
   * Snapshots of the monitor's current target (since `learningSince`) among the newest
   * `maxSamples`, whatever their size: what a young monitor is judged by (the byte budget may
   * leave fewer `samples` to learn from; a monitor of large documents is not young forever).
   */
  stored?: number;
  /**
   * The most `stored` can count (the newest snapshots looked at: `maxSamples`, one fewer with a
   * candidate): a monitor needing more stored contents than this to grow up would stay young forever.
   */
  capacity?: number;
  /** The suggested policy (`{ rules: [] }` below `NOISE_MIN_SAMPLES`). */
  policy: PolicyRules;
  evidence: PolicyEvidence[];
}

/** A content a check just fetched, learned from with the stored snapshots before it is recorded. */
export interface NoiseCandidate {
  body: string;
  /** Its content hash (the cache key). */
  hash: string;
}

export interface NoiseLearner {
  /**
   * The suggestion learned from the monitor's recent snapshots (cached until a new snapshot
   * arrives). With `candidate`, from the newest `maxSamples - 1` snapshots and the candidate as
   * the newest sample. The check service passes none: learning from the content a check is about
   * to compare would hide the very change it is judged for (docs/signal.md).
   */
  profile(monitor: MonitorRecord, candidate?: NoiseCandidate): Promise<LearnedNoise>;
}

export interface NoiseLearnerOptions {
  /**
   * Runs the learning (the compare pool's `learn`: in a worker thread for big contents). Default:
   * inline, on the calling thread.
   */
  learn?: (task: LearnTask) => Promise<LearnResult>;
  maxSamples?: number;
  minSamples?: number;
  maxBytes?: number;
  /** Told when learning failed (the suggestion is then empty); the check goes on with the user's policy. */
  onError?: (error: unknown, monitor: MonitorRecord) => void;
}

const EMPTY: readonly PolicyEvidence[] = [];

function emptyNoise(samples: number): LearnedNoise {
  return { samples, policy: { rules: [] }, evidence: [...EMPTY] };
}

export function createNoiseLearner(store: Store, options: NoiseLearnerOptions = {}): NoiseLearner {
  const maxSamples = options.maxSamples ?? NOISE_MAX_SAMPLES;
  const minSamples = Math.max(2, options.minSamples ?? NOISE_MIN_SAMPLES);
  const maxBytes = options.maxBytes ?? NOISE_MAX_BYTES;
  // key: org/monitor -> the sample ids it was learned from and the (pending) result
  const cache = new Map<string, { ids: string; result: Promise<LearnedNoise> }>();
  const run = options.learn ?? ((task: LearnTask): Promise<LearnResult> => Promise.resolve(learnContent(task)));

  async function learn(monitor: MonitorRecord, ids: readonly string[], candidate: NoiseCandidate | undefined): Promise<LearnedNoise> {
    const loaded = await Promise.all(ids.map((id) => store.getSnapshot(monitor.orgId, monitor.id, id)));
    // oldest first; a snapshot dropped by retention meanwhile is skipped
    const bodies = loaded
      .filter((s) => s !== null && typeof s.body === "string")
      .map((s) => s!.body!)
      .reverse();
    if (candidate !== undefined) bodies.push(candidate.body);
    // a body that is not JSON (the monitor's target changed) ends the usable history
    const result = await run({ kind: monitor.type === "api" ? "json" : "html", bodies, selector: monitor.selector, minSamples });
    if (result.ok) return { samples: result.samples, policy: result.policy, evidence: result.evidence };
    // too deep, too large, ...: nothing is learned, the user's policy alone applies
    if (!result.expected) options.onError?.(new Error(result.message), monitor);
    return emptyNoise(result.samples);
  }

  return {
    async profile(monitor, candidate) {
      const limit = candidate === undefined ? maxSamples : maxSamples - 1;
      const page = await store.listSnapshots(monitor.orgId, monitor.id, { limit });
      const ids: string[] = [];
      let stored = 0;
      let bytes = candidate === undefined ? 0 : Buffer.byteLength(candidate.body, "utf8");
      // the candidate is a sample only within the byte budget, as a stored one
      if (bytes > maxBytes) candidate = undefined;
      // only what was fetched from the monitor's current target (see `MonitorRecord.learningSince`)
      const since = monitor.learningSince == null ? null : Date.parse(monitor.learningSince);
      let budget = true;
      for (const snapshot of page.data) {
        if (since !== null && Date.parse(snapshot.fetchedAt) < since) break;
        stored++;
        bytes += snapshot.size;
        if (bytes > maxBytes) budget = false;
        if (budget) ids.push(snapshot.id);
      }
      const count = ids.length + (candidate === undefined ? 0 : 1);
      // one sample is learned from too (what stays put); `samples` tells the caller how many
      if (count === 0) return { ...emptyNoise(0), stored, capacity: limit };
      const key = `${monitor.orgId}/${monitor.id}`;
      const idKey = `${monitor.type}:${monitor.selector ?? ""}:${ids.join(",")}:${candidate?.hash ?? ""}:${String(stored)}`;
      const cached = cache.get(key);
      if (cached !== undefined && cached.ids === idKey) {
        cache.delete(key); // most recently used last
        cache.set(key, cached);
        return cached.result;
      }
      const result = learn(monitor, ids, candidate).then((learned) => ({ ...learned, stored, capacity: limit }));
      cache.set(key, { ids: idKey, result });
      result.catch(() => {
        if (cache.get(key)?.result === result) cache.delete(key);
      });
      while (cache.size > NOISE_CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
      return result;
    },
  };
}

/** `$.items[*].updated_at` as one concrete path (`$.items[0].updated_at`) a user rule can be tested on. */
function examplePath(pattern: string): string | null {
  const concrete = pattern.replaceAll("[*]", "[0]");
  try {
    parsePath(concrete);
    return concrete;
  } catch {
    return null;
  }
}

/**
 * The policy a monitor's diffs use when `autoApplySuggestions` is on: the user's stored policy
 * merged with the suggested one, the user's rules first so that a user's rule always wins.
 * - `rules`: the user's rules, then the suggested ones (first match wins).
 * - `arrayKeys`: the user's key for an array wins; suggested keys for other arrays are added.
 * - `volatile`, `tolerance`, `unordered`: the suggested entries are added, except those the user's
 *   policy already names and those on a field a user rule covers (a rule whose path or selector
 *   matches the field or an enclosing one, for a value change): what the user said about a field
 *   is not hidden by what was learned about it.
 * - `notify` and `normalize`: the user's (a suggestion sets neither).
 */
export function mergeSuggestedPolicy(
  user: PolicyRules,
  suggested: PolicyRules,
  kind: "json" | "html",
  rejected: readonly RejectedSuggestion[] = [],
): PolicyRules {
  suggested = withoutRejected(suggested, rejected);
  const userRules = user.rules ?? [];
  // Filter-expression rule paths are evaluated on no document here: they cover nothing.
  const decide = createPolicyEvaluator(compilePolicy({ rules: userRules }), { kind, before: null, after: null });
  const coveredByUserRule = (path: string, category: PolicyTarget["category"] = "value"): boolean => {
    if (userRules.length === 0) return false;
    if (kind === "html") return decide({ path, category, op: "replace" }) !== undefined;
    const concrete = examplePath(path);
    if (concrete === null) return userRules.some((rule) => rule.path === path);
    return decide({ path: concrete, category, op: "replace" }) !== undefined;
  };

  // every list stays within the schema's 500 entries: the user's entries first, then what fits
  const fit = <T>(mine: readonly T[], learned: readonly T[]): T[] => [...mine, ...learned.slice(0, Math.max(0, POLICY_LIST_MAX - mine.length))];
  const merged: PolicyRules = { ...user, rules: fit(userRules, suggested.rules ?? []) };

  const keys = { ...(suggested.arrayKeys ?? {}), ...(user.arrayKeys ?? {}) };
  if (Object.keys(keys).length > 0) merged.arrayKeys = keys;

  const userVolatile = user.volatile ?? [];
  const volatileNamed = new Set(userVolatile.map((v) => v.path ?? `selector:${v.selector ?? ""}`));
  const volatile = fit(
    userVolatile,
    (suggested.volatile ?? []).filter((v) => {
      const name = v.path ?? `selector:${v.selector ?? ""}`;
      if (volatileNamed.has(name)) return false;
      return !coveredByUserRule(v.path ?? v.selector ?? "");
    }),
  );
  if (volatile.length > 0) merged.volatile = volatile;

  const userTolerance = user.tolerance ?? [];
  const toleranceNamed = new Set(userTolerance.map((t) => t.path));
  const tolerance = fit(
    userTolerance,
    (suggested.tolerance ?? []).filter((t) => !toleranceNamed.has(t.path) && !coveredByUserRule(t.path)),
  );
  if (tolerance.length > 0) merged.tolerance = tolerance;

  const userUnordered = user.unordered ?? [];
  const unorderedNamed = new Set(userUnordered);
  const unordered = fit(
    userUnordered,
    (suggested.unordered ?? []).filter((p) => !unorderedNamed.has(p) && !coveredByUserRule(`${p}[*]`)),
  );
  if (unordered.length > 0) merged.unordered = unordered;

  return merged;
}

/**
 * `suggested` without the entries a user rejected (`settings.rejectedSuggestions`): they are never
 * applied. A rejected noise entry also leaves out the other noise kinds at its path or selector
 * (`rejectionBlocks` of @driftwatch/schema, the rule the dashboard shows too); the rejections
 * themselves are kept as the user made them.
 */
export function withoutRejected(suggested: PolicyRules, rejected: readonly RejectedSuggestion[]): PolicyRules {
  if (rejected.length === 0) return suggested;
  const where = (r: { path?: string | undefined; selector?: string | undefined }): string => (r.path !== undefined ? `path:${r.path}` : `selector:${r.selector ?? ""}`);
  // the rejections by their path or selector (rejectionBlocks needs the same one), so that each
  // learned entry is checked against those at its own place only
  const at = new Map<string, RejectedSuggestion[]>();
  for (const r of rejected) {
    const list = at.get(where(r));
    if (list === undefined) at.set(where(r), [r]);
    else list.push(r);
  }
  const blocked = (entry: RejectedSuggestion): boolean => (at.get(where(entry)) ?? []).some((r) => rejectionBlocks(r, entry));
  const out: PolicyRules = { ...suggested };
  if (suggested.volatile !== undefined) out.volatile = suggested.volatile.filter((v) => !blocked({ kind: "volatile", path: v.path, selector: v.selector }));
  if (suggested.tolerance !== undefined) out.tolerance = suggested.tolerance.filter((t) => !blocked({ kind: "tolerance", path: t.path }));
  if (suggested.unordered !== undefined) out.unordered = suggested.unordered.filter((p) => !blocked({ kind: "unordered", path: p }));
  if (suggested.arrayKeys !== undefined) {
    out.arrayKeys = Object.fromEntries(Object.entries(suggested.arrayKeys).filter(([path]) => !blocked({ kind: "arrayKey", path })));
  }
  return out;
}

/** Which learned entry an entry of a merged policy (`volatile[3]`, `rules[1]`) is, or null for the user's own. */
export interface LearnedOrigin {
  kind: "volatile" | "tolerance" | "unordered" | "rule";
  /** Its index in the learned policy (`GET /api/monitors/{id}/noise`). */
  index: number;
  path?: string;
  selector?: string;
}

/**
 * Maps a policy entry name of `merged` (as explanations name it: `volatile[3]`) to the entry of
 * `learned` it came from; null when the entry is the user's (`merged` lists the user's entries
 * first, see `mergeSuggestedPolicy`) or the name is not an entry.
 */
export function learnedOriginOf(rule: string, merged: PolicyRules, learned: PolicyRules, user: PolicyRules): LearnedOrigin | null {
  const match = /^(volatile|tolerance|unordered|rules)\[(\d+)\]$/.exec(rule);
  if (match === null) return null;
  const at = Number(match[2]);
  const where = (entry: { path?: string | undefined; selector?: string | undefined }): { path?: string; selector?: string } => ({
    ...(entry.path !== undefined ? { path: entry.path } : {}),
    ...(entry.selector !== undefined ? { selector: entry.selector } : {}),
  });
  switch (match[1]) {
    case "volatile": {
      const entry = at < (user.volatile?.length ?? 0) ? undefined : merged.volatile?.[at];
      const index = entry === undefined ? -1 : (learned.volatile ?? []).indexOf(entry);
      return index < 0 ? null : { kind: "volatile", index, ...where(entry!) };
    }
    case "tolerance": {
      const entry = at < (user.tolerance?.length ?? 0) ? undefined : merged.tolerance?.[at];
      const index = entry === undefined ? -1 : (learned.tolerance ?? []).indexOf(entry);
      return index < 0 ? null : { kind: "tolerance", index, path: entry!.path };
    }
    case "unordered": {
      const entry = at < (user.unordered?.length ?? 0) ? undefined : merged.unordered?.[at];
      const index = entry === undefined ? -1 : (learned.unordered ?? []).indexOf(entry);
      return index < 0 ? null : { kind: "unordered", index, path: entry! };
    }
    default: {
      const entry = at < (user.rules?.length ?? 0) ? undefined : merged.rules?.[at];
      const index = entry === undefined ? -1 : (learned.rules ?? []).indexOf(entry);
      return index < 0 ? null : { kind: "rule", index, ...where(entry!) };
    }
  }
}
