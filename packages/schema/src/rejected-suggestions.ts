import type { RejectedSuggestion } from "./resources.js";

/**
 * The kinds of learned entry that silence changes at their path: `volatile` (value changes),
 * `tolerance` (small numeric changes) and `unordered` (the order of an array's elements). A user
 * who rejects one of them at a path says the path is not noise, so the rejection blocks every one
 * of these kinds at that same path. `arrayKey` (how an array's elements are matched) is not noise.
 */
const NOISE_KINDS: readonly RejectedSuggestion["kind"][] = ["volatile", "tolerance", "unordered"];

const isNoiseKind = (kind: RejectedSuggestion["kind"]): boolean => NOISE_KINDS.includes(kind);

/**
 * Whether `rejection` (an entry of `settings.rejectedSuggestions`) keeps the learned entry
 * `entry` (its kind and its path or selector) from being applied: the same entry, or, for a
 * noise kind (`volatile`, `tolerance`, `unordered`), any noise entry at the same path or
 * selector. A rejected `volatile $.x` also blocks a learned `tolerance $.x` and `unordered $.x`
 * (and the reverse): the noise does not come back under another kind. Paths are compared as
 * written (the learner writes them one way: `$.items[*].updated_at`); an entry at another path
 * (an enclosing one, a member below) is not blocked, nor a path by a selector of the same text.
 * `arrayKey` rejections block only the array key at their path, and no noise rejection blocks an
 * array key. The server applies this rule (the engine's `withoutRejected`) and the dashboard
 * shows it; no Node.js API is used, so it runs in a browser.
 */
export function rejectionBlocks(rejection: RejectedSuggestion, entry: RejectedSuggestion): boolean {
  if (rejection.path !== entry.path || rejection.selector !== entry.selector) return false;
  return rejection.kind === entry.kind || (isNoiseKind(rejection.kind) && isNoiseKind(entry.kind));
}
