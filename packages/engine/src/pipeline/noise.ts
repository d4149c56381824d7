import {
  compilePolicy,
  createPolicyEvaluator,
  isDriftwatchError,
  NOISE_MAX_SAMPLES,
  NOISE_MIN_SAMPLES,
  parsePath,
  type MonitorRecord,
  type PolicyEvidence,
  type PolicyRules,
  type PolicyTarget,
  type Store,
  suggestPolicy,
} from "@driftwatch/core";
import { NOISE_CACHE_ENTRIES, NOISE_MAX_BYTES, POLICY_LIST_MAX } from "../limits.js";

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
  /** The suggested policy (`{ rules: [] }` below `NOISE_MIN_SAMPLES`). */
  policy: PolicyRules;
  evidence: PolicyEvidence[];
}

export interface NoiseLearner {
  /** The suggestion learned from the monitor's recent snapshots (cached until a new snapshot arrives). */
  profile(monitor: MonitorRecord): Promise<LearnedNoise>;
}

export interface NoiseLearnerOptions {
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

  async function learn(monitor: MonitorRecord, ids: readonly string[]): Promise<LearnedNoise> {
    const loaded = await Promise.all(ids.map((id) => store.getSnapshot(monitor.orgId, monitor.id, id)));
    // oldest first; a snapshot dropped by retention meanwhile is skipped
    const bodies = loaded
      .filter((s) => s !== null && typeof s.body === "string")
      .map((s) => s!.body!)
      .reverse();
    let history: unknown[] = bodies;
    if (monitor.type === "api") {
      // a body that is not JSON (the monitor's target changed) ends the usable history
      const parsed: unknown[] = [];
      for (let i = bodies.length - 1; i >= 0; i--) {
        try {
          parsed.unshift(JSON.parse(bodies[i]!));
        } catch {
          break;
        }
      }
      history = parsed;
    }
    if (history.length < minSamples) return emptyNoise(history.length);
    try {
      const suggestion = suggestPolicy(history, { kind: monitor.type === "api" ? "json" : "html", selector: monitor.selector });
      return { samples: history.length, policy: suggestion.policy, evidence: suggestion.evidence };
    } catch (error) {
      // too deep, too large, ...: nothing is learned, the user's policy alone applies
      if (!isDriftwatchError(error)) options.onError?.(error, monitor);
      return emptyNoise(history.length);
    }
  }

  return {
    async profile(monitor) {
      const page = await store.listSnapshots(monitor.orgId, monitor.id, { limit: maxSamples });
      const ids: string[] = [];
      let bytes = 0;
      for (const snapshot of page.data) {
        bytes += snapshot.size;
        if (bytes > maxBytes) break;
        ids.push(snapshot.id);
      }
      if (ids.length < minSamples) return emptyNoise(ids.length);
      const key = `${monitor.orgId}/${monitor.id}`;
      const idKey = `${monitor.type}:${monitor.selector ?? ""}:${ids.join(",")}`;
      const cached = cache.get(key);
      if (cached !== undefined && cached.ids === idKey) {
        cache.delete(key); // most recently used last
        cache.set(key, cached);
        return cached.result;
      }
      const result = learn(monitor, ids);
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
export function mergeSuggestedPolicy(user: PolicyRules, suggested: PolicyRules, kind: "json" | "html"): PolicyRules {
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
