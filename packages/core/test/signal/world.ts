// The world corpus: histories of at least 10 consecutive fetches of one target, every consecutive
// pair labelled noise or meaningful (with the least severity a user would want). Most are built
// from REAL recorded payloads (real/, see real/sources.json for each file's repository, commit,
// licence and URL) with noise applied the way real services produce it, found by rules from the
// payload itself (world-json.ts, world-html.ts); the rest replay the generated templates of
// json-histories.ts and html-histories.ts over the same schedule of changes and traps.
//
// Split (decided before any evaluation, never tuned on): a history is HELD OUT when the FNV-1a
// hash of its name, modulo 3, is 0 (about one third); the rest is the tuning set. Names are stable
// (`real:<source file>` or `generated:<template> #<n>`), so the split does not move when the corpus
// grows.
import type { Label } from "./corpus.js";
import { fnv1a } from "./world-rng.js";

export type { Label };

export interface WorldHistory {
  /** Stable name: `real:stripe/customer.json`, `generated:news front page #2`. */
  name: string;
  kind: "json" | "html";
  selector?: string;
  origin: "real" | "generated";
  /**
   * The classes of noise applied (world-json.ts: clock, collection-clock, token, url, counter,
   * measure, rotation, reorder; world-html.ts: ranked-list, rotating-block, clock, coarse-clock,
   * numbers-in-sentences, percent-in-sentence, session-uuid, footer-time-and-request-id). Absent
   * for the replayed templates. Lets results be read per class.
   */
  noise?: string[];
  /** Fetch 0, 1, 2, ... (JSON values or HTML strings). */
  snapshots: unknown[];
  /** labels[i - 1] is about the pair fetch i - 1 -> fetch i. */
  labels: Label[];
}

/** The held-out rule: FNV-1a of the name, modulo 3, is 0. */
export function isHeldOut(name: string): boolean {
  return fnv1a(name) % 3 === 0;
}

export function splitOf(histories: readonly WorldHistory[]): { tuning: WorldHistory[]; heldOut: WorldHistory[] } {
  return { tuning: histories.filter((h) => !isHeldOut(h.name)), heldOut: histories.filter((h) => isHeldOut(h.name)) };
}
