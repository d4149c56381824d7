import type { Op } from "@driftwatch/schema";
import type { PathSegment } from "../paths/index.js";
import { arrayKeyEntryFor, type CompiledPathEntry, type CompiledPolicy, entryAtOrAbove, entryExactly, ratesValueAt } from "../policy/index.js";
import { matchesExactly, type PathStep } from "../policy/jsonpath.js";
import { type ChangeKind, replacementKind } from "../severity/index.js";
import { inferKeyedMatch, type KeyedMatch, looksKeyed, matchByKey, PREFERRED_ARRAY_KEYS } from "./arrays.js";
import { permutationMoves, SIGNATURE_BUDGET, SignatureBudget, signatureOf } from "./signature.js";
import { CYCLE_CHECK_EVERY, checkDepth, invalidInput, notJson, type PathNode, type Side, segmentsOf, validateTree } from "./walk.js";

/**
 * A change as the walk finds it; paths, categories and policy are applied afterwards. A move has
 * its old place in `fromParent` + `oldSeg` (old document) and its new one in `parent` + `newSeg`.
 */
export class RawChange {
  constructor(
    readonly kind: ChangeKind,
    readonly op: Op,
    readonly parent: PathNode | null,
    readonly oldSeg: PathSegment | undefined,
    readonly newSeg: PathSegment | undefined,
    readonly before: unknown,
    readonly after: unknown,
    readonly fromParent: PathNode | null = null,
  ) {}
}

/** Why the walk left something out or matched it the way it did (collected with `explain` only). */
export interface WalkNote {
  outcome: "float_noise" | "unordered" | "inferred_key";
  /** The node: `parent` + `seg` in the new document (`seg` undefined for the root). */
  parent: PathNode | null;
  seg: PathSegment | undefined;
  rule: string | undefined;
  detail: string;
}

/** How the walk treats numbers, arrays and moves (DiffJsonOptions, resolved). */
export interface WalkSettings {
  /** Relative difference below which two numbers are equal; 0 compares exactly. */
  floatEpsilon: number;
  /** Report reorders of key-matched arrays as `move` changes. */
  reportMoves: boolean;
  /** Collect WalkNotes. */
  explain: boolean;
}

export const DEFAULT_WALK_SETTINGS: WalkSettings = Object.freeze({ floatEpsilon: 1e-12, reportMoves: false, explain: false });

/** A container on the recursive walk's path, made only once a change or a lookup needs it. */
class PathRecord implements PathNode {
  oldPath: string | undefined = undefined;
  newPath: string | undefined = undefined;
  constructor(
    readonly parent: PathNode | null,
    readonly oldSeg: PathSegment,
    readonly newSeg: PathSegment,
    readonly depth: number,
    readonly before: object,
    readonly after: object,
  ) {}
}

/** A container pair on the explicit stack: object members by new-document key, or array positions. */
class Frame extends PathRecord {
  keys: string[] | null = null;
  /** Array frames: kept [old, new] index pairs (key matching), or null for positions i..end. */
  pairs: number[] | null = null;
  i = 0;
  end = 0;
  matched = 0;
}

export interface ArrayKeyPattern {
  steps: readonly PathStep[];
  key: string;
  /** The path as written, for explanations. */
  pattern: string;
}

/** How one array is matched: a key (with the rule that named it), inference, or positions. */
interface ArrayPlanRules {
  /** A key name, `false` for positions, undefined to infer one. */
  key: string | false | undefined;
  keyRule: string | undefined;
  unordered: CompiledPathEntry | undefined;
}

/**
 * Levels walked by plain recursion, which is about twice as fast as the explicit stack (no frame
 * objects, and `for...in` reads members straight from the object's enum cache). Deeper levels, rare
 * in real documents, continue on the explicit stack, so no document can overflow the call stack.
 */
export const RECURSION_LIMIT = 200;

/** An enumerable member added to Object.prototype would show up in every `for...in`. */
function prototypePolluted(): boolean {
  for (const _ in Object.prototype) return true;
  return false;
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * The structural walk behind `diffJson`: finds every change between two documents in document
 * order, validating that both are JSON on the way. Paths are kept as segments and formatted later.
 */
export class JsonDiffer {
  /**
   * V8 holds the hidden class ("map") of an object only weakly once properties have been added to
   * it, and a major GC collects a map no live object uses, discarding every optimised function
   * that checks for it. The walk's records live only during one diff, so after any major GC the
   * next diffs would run in cold, unoptimised code. One idle instance of each record type, held
   * here for the life of the module, keeps their maps and so the optimised walk alive.
   */
  static readonly shapes: readonly object[] = [
    new JsonDiffer(1, undefined, [], undefined, DEFAULT_WALK_SETTINGS),
    new Frame(null, "", "", 0, {}, {}),
    new PathRecord(null, "", "", 0, {}, {}),
    new RawChange("member_added", "add", null, undefined, "", undefined, null),
  ];

  readonly changes: RawChange[] = [];
  /** With `explain`: what the walk hid (float noise, reorders) or inferred. */
  readonly notes: WalkNote[] | null;
  private readonly stack: Frame[] = [];
  /** The recursive walk's current path by depth; `nodes[d]` is made on demand and reset on entry. */
  private readonly oldSegs: PathSegment[] = [];
  private readonly newSegs: PathSegment[] = [];
  private readonly befores: object[] = [];
  private readonly afters: object[] = [];
  private readonly nodes: (PathNode | undefined)[] = [];
  private readonly recursionLimit: number;
  private readonly hasArrayRules: boolean;
  private readonly unordered: readonly CompiledPathEntry[];
  private readonly floatEpsilon: number;
  private readonly reportMoves: boolean;
  /** Characters left for signatures (multiset arrays, permutations, moves) in this diff. */
  readonly budget = new SignatureBudget(SIGNATURE_BUDGET);
  /** planArray's answer: index pairs (or null for positions) and the range still to compare. */
  private planPairs: number[] | null = null;
  private planStart = 0;
  private planEnd = 0;

  constructor(
    private readonly maxDepth: number,
    /** A key name, `false` for positions, undefined to infer a key per array. */
    private readonly defaultKey: string | false | undefined,
    private readonly keyPatterns: readonly ArrayKeyPattern[],
    private readonly policy: CompiledPolicy | undefined,
    settings: WalkSettings,
    recursionLimit = RECURSION_LIMIT,
  ) {
    this.recursionLimit = prototypePolluted() ? 0 : recursionLimit;
    this.unordered = policy?.unordered ?? [];
    this.hasArrayRules = keyPatterns.length > 0 || (policy !== undefined && policy.arrayKeys.length > 0) || this.unordered.length > 0;
    this.floatEpsilon = settings.floatEpsilon;
    this.reportMoves = settings.reportMoves;
    this.notes = settings.explain ? [] : null;
  }

  run(before: unknown, after: unknown): void {
    if (typeof before === "object" && before !== null && typeof after === "object" && after !== null) {
      const isArray = Array.isArray(before);
      if (isArray === Array.isArray(after)) {
        this.descend(0, "", "", before, after, isArray);
        return;
      }
    }
    this.pair(null, undefined, undefined, before, after, false);
  }

  private emit(kind: ChangeKind, op: Op, parent: PathNode | null, oldSeg: PathSegment | undefined, newSeg: PathSegment | undefined, before: unknown, after: unknown): void {
    this.changes.push(new RawChange(kind, op, parent, oldSeg, newSeg, before, after));
  }

  /** Two values at one position that are not containers of the same kind. */
  private pair(parent: PathNode | null, oldSeg: PathSegment | undefined, newSeg: PathSegment | undefined, a: unknown, b: unknown, inArray: boolean): void {
    if (a === b) {
      const problem = notJson(a);
      if (problem !== undefined) throw invalidInput("after", parent, newSeg, problem);
      return;
    }
    if (typeof a === "number" && typeof b === "number" && this.floatEpsilon > 0 && a - a === 0 && b - b === 0) {
      const scale = Math.max(Math.abs(a), Math.abs(b));
      if (Math.abs(a - b) < this.floatEpsilon * scale) {
        this.notes?.push({ outcome: "float_noise", parent, seg: newSeg, rule: "floatEpsilon", detail: `${a} and ${b} differ by less than a relative ${this.floatEpsilon}` });
        return;
      }
    }
    validateTree(a, "before", parent, oldSeg, this.maxDepth);
    validateTree(b, "after", parent, newSeg, this.maxDepth);
    this.emit(replacementKind(a, b, inArray), "replace", parent, oldSeg, newSeg, a, b);
  }

  // ---- recursive walk (the first RECURSION_LIMIT levels) ----

  /** The path node of recursion level `d`, made on first use. */
  private nodeAt(d: number): PathNode {
    let node = this.nodes[d];
    if (node === undefined) {
      node = new PathRecord(d === 0 ? null : this.nodeAt(d - 1), this.oldSegs[d]!, this.newSegs[d]!, d, this.befores[d]!, this.afters[d]!);
      this.nodes[d] = node;
    }
    return node;
  }

  private notJsonAt(d: number, side: Side, problem: string): Error {
    if (d === 0) return invalidInput(side, null, undefined, problem);
    return invalidInput(side, this.nodeAt(d - 1), side === "before" ? this.oldSegs[d] : this.newSegs[d], problem);
  }

  /** Walks two containers of the same kind at depth `d`. */
  private descend(d: number, oldSeg: PathSegment, newSeg: PathSegment, a: object, b: object, isArray: boolean): void {
    if (d >= this.recursionLimit) {
      this.open(d === 0 ? null : this.nodeAt(d - 1), oldSeg, newSeg, a, b, isArray);
      this.drain();
      return;
    }
    this.oldSegs[d] = oldSeg;
    this.newSegs[d] = newSeg;
    this.befores[d] = a;
    this.afters[d] = b;
    this.nodes[d] = undefined;
    if (d >= this.maxDepth) checkDepth(this.nodeAt(d), this.maxDepth);
    if (isArray) this.walkArray(d, a as unknown[], b as unknown[]);
    else this.walkObject(d, a as Record<string, unknown>, b as Record<string, unknown>);
  }

  /** Two values at one position of level `d` that are not equal primitives: descend or pair. */
  private compare(d: number, oldSeg: PathSegment, newSeg: PathSegment, av: unknown, bv: unknown, inArray: boolean): void {
    if (typeof av === "object" && av !== null && typeof bv === "object" && bv !== null) {
      const arrayA = Array.isArray(av);
      if (arrayA === Array.isArray(bv)) {
        this.descend(d + 1, oldSeg, newSeg, av, bv, arrayA);
        return;
      }
    }
    this.pair(this.nodeAt(d), oldSeg, newSeg, av, bv, inArray);
  }

  private walkObject(d: number, a: Record<string, unknown>, b: Record<string, unknown>): void {
    let problem = notJson(a);
    if (problem !== undefined) throw this.notJsonAt(d, "before", problem);
    problem = notJson(b);
    if (problem !== undefined) throw this.notJsonAt(d, "after", problem);
    let matched = 0;
    // Own enumerable members only: b is a plain object and Object.prototype has no enumerable
    // members (checked in the constructor, which otherwise disables recursion).
    for (const key in b) {
      const bv = b[key];
      let av = a[key];
      // Inherited members of Object.prototype are functions, or the prototype itself for __proto__.
      if (av !== undefined && (typeof av === "function" || key === "__proto__") && !hasOwn.call(a, key)) av = undefined;
      if (av === undefined) {
        const node = this.nodeAt(d);
        validateTree(bv, "after", node, key, this.maxDepth);
        this.emit("member_added", "add", node, undefined, key, undefined, bv);
        continue;
      }
      matched++;
      if (av === bv) {
        if (typeof av !== "object") {
          if (typeof av !== "string" && typeof av !== "boolean" && !(typeof av === "number" && av - av === 0)) {
            throw invalidInput("after", this.nodeAt(d), key, notJson(av)!);
          }
          continue;
        }
        if (av === null) continue;
      }
      this.compare(d, key, key, av, bv, false);
    }
    if (!sameMemberCount(a, matched)) this.removedMembers(this.nodeAt(d), a, b);
  }

  private walkArray(d: number, a: unknown[], b: unknown[]): void {
    this.planArray(null, d, a, b);
    const pairs = this.planPairs;
    const end = this.planEnd;
    let i = this.planStart;
    while (i < end) {
      let oi: number;
      let ni: number;
      if (pairs === null) {
        oi = ni = i++;
      } else {
        oi = pairs[i++]!;
        ni = pairs[i++]!;
      }
      const av = a[oi];
      const bv = b[ni];
      if (av === bv && (typeof av !== "object" || av === null)) {
        if (typeof av !== "string" && notJson(av) !== undefined) throw invalidInput("after", this.nodeAt(d), ni, notJson(av)!);
        continue;
      }
      this.compare(d, oi, ni, av, bv, true);
    }
  }

  // ---- explicit-stack walk (deeper levels, or every level when Object.prototype is polluted) ----

  private drain(): void {
    const stack = this.stack;
    const bottom = stack.length - 1;
    while (stack.length > bottom) {
      const frame = stack[stack.length - 1]!;
      if (frame.keys !== null ? this.stepObject(frame) : this.stepArray(frame)) stack.pop();
    }
  }

  private open(parent: PathNode | null, oldSeg: PathSegment, newSeg: PathSegment, a: object, b: object, isArray: boolean): void {
    const frame = new Frame(parent, oldSeg, newSeg, parent === null ? 0 : parent.depth + 1, a, b);
    if (frame.depth >= this.maxDepth || (frame.depth !== 0 && frame.depth % CYCLE_CHECK_EVERY === 0)) checkDepth(frame, this.maxDepth);
    if (!isArray) {
      let problem = notJson(a);
      if (problem !== undefined) throw invalidInput("before", parent, parent === null ? undefined : oldSeg, problem);
      problem = notJson(b);
      if (problem !== undefined) throw invalidInput("after", parent, parent === null ? undefined : newSeg, problem);
      frame.keys = Object.keys(b);
      frame.end = frame.keys.length;
    } else {
      this.planArray(frame, frame.depth, a as unknown[], b as unknown[]);
      frame.pairs = this.planPairs;
      frame.i = this.planStart;
      frame.end = this.planEnd;
    }
    this.stack.push(frame);
  }

  /** Advances an object frame; true when it is done. */
  private stepObject(frame: Frame): boolean {
    const a = frame.before as Record<string, unknown>;
    const b = frame.after as Record<string, unknown>;
    const keys = frame.keys!;
    const end = frame.end;
    let i = frame.i;
    let matched = frame.matched;
    while (i < end) {
      const key = keys[i++]!;
      const bv = b[key];
      let av = a[key];
      if (av !== undefined && (typeof av === "function" || key === "__proto__") && !hasOwn.call(a, key)) av = undefined;
      if (av === undefined) {
        validateTree(bv, "after", frame, key, this.maxDepth);
        this.emit("member_added", "add", frame, undefined, key, undefined, bv);
        continue;
      }
      matched++;
      if (typeof av === "object" && av !== null && typeof bv === "object" && bv !== null) {
        const arrayA = Array.isArray(av);
        if (arrayA === Array.isArray(bv)) {
          frame.i = i;
          frame.matched = matched;
          this.open(frame, key, key, av, bv, arrayA);
          return false;
        }
      }
      this.pair(frame, key, key, av, bv, false);
    }
    frame.i = i;
    frame.matched = matched;
    if (!sameMemberCount(a, matched)) this.removedMembers(frame, a, b);
    return true;
  }

  /** Advances an array frame; true when it is done. */
  private stepArray(frame: Frame): boolean {
    const a = frame.before as unknown[];
    const b = frame.after as unknown[];
    const pairs = frame.pairs;
    while (frame.i < frame.end) {
      let oi: number;
      let ni: number;
      if (pairs === null) {
        oi = ni = frame.i++;
      } else {
        oi = pairs[frame.i++]!;
        ni = pairs[frame.i++]!;
      }
      const av = a[oi];
      const bv = b[ni];
      if (typeof av === "object" && av !== null && typeof bv === "object" && bv !== null) {
        const arrayA = Array.isArray(av);
        if (arrayA === Array.isArray(bv)) {
          this.open(frame, oi, ni, av, bv, arrayA);
          return false;
        }
      }
      this.pair(frame, oi, ni, av, bv, true);
    }
    return true;
  }

  // ---- shared by both walks ----

  /** Emits the members of `a` missing from `b` (called when fewer members matched than `a` has). */
  private removedMembers(parent: PathNode, a: Record<string, unknown>, b: Record<string, unknown>): void {
    for (const key of Object.keys(a)) {
      const av = a[key];
      if (av === undefined) throw invalidInput("before", parent, key, "undefined is not JSON");
      if (hasOwn.call(b, key)) continue;
      validateTree(av, "before", parent, key, this.maxDepth);
      this.emit("member_removed", "remove", parent, key, undefined, av, undefined);
    }
  }

  /** How the array at `node` is matched: configured key patterns first, then the policy's, then the default. */
  private arrayRules(node: PathNode): ArrayPlanRules {
    const segments = segmentsOf(node.parent, node.parent === null ? undefined : node.newSeg, "after");
    const unordered = this.unordered.length > 0 ? entryExactly(this.unordered, segments) : undefined;
    for (const entry of this.keyPatterns) {
      if (matchesExactly(entry.steps, segments)) return { key: entry.key, keyRule: `arrayKeys[${JSON.stringify(entry.pattern)}]`, unordered };
    }
    if (this.policy) {
      const entry = arrayKeyEntryFor(this.policy, segments);
      if (entry !== undefined) return { key: entry.key, keyRule: `arrayKeys[${JSON.stringify(entry.pattern)}]`, unordered };
    }
    return { key: this.defaultKey, keyRule: typeof this.defaultKey === "string" ? "defaultArrayKey" : undefined, unordered };
  }

  /** Emits elements removed from `a` and added to `b` (validated). */
  private emitRemovedAdded(node: PathNode, a: unknown[], b: unknown[], removed: readonly number[], added: readonly number[]): void {
    for (const i of removed) {
      validateTree(a[i], "before", node, i, this.maxDepth);
      this.emit("element_removed", "remove", node, i, undefined, a[i], undefined);
    }
    for (const j of added) {
      validateTree(b[j], "after", node, j, this.maxDepth);
      this.emit("element_added", "add", node, undefined, j, undefined, b[j]);
    }
  }

  /** Emits moves [old, new, ...] within the array at `node`. */
  private emitMoves(node: PathNode, a: unknown[], b: unknown[], moves: readonly number[]): void {
    for (let m = 0; m < moves.length; m += 2) {
      const oi = moves[m]!;
      const ni = moves[m + 1]!;
      this.changes.push(new RawChange("element_moved", "move", node, oi, ni, a[oi], b[ni], node));
    }
  }

  /** An array compared as a multiset: equal elements pair up wherever they are. False when it cannot tell (budget, not JSON). */
  private planMultiset(node: PathNode, a: unknown[], b: unknown[], entry: CompiledPathEntry): boolean {
    const positions = new Map<string, number[]>();
    for (let i = 0; i < a.length; i++) {
      const s = signatureOf(a[i], this.budget);
      if (s === undefined) return false;
      const list = positions.get(s);
      if (list === undefined) positions.set(s, [i]);
      else list.push(i);
    }
    const newSigs: string[] = [];
    for (let j = 0; j < b.length; j++) {
      const s = signatureOf(b[j], this.budget);
      if (s === undefined) return false;
      newSigs.push(s);
    }
    const taken = new Map<string, number>();
    const keptOld = new Uint8Array(a.length);
    const added: number[] = [];
    let reordered = false;
    let last = -1;
    for (let j = 0; j < b.length; j++) {
      const s = newSigs[j]!;
      const list = positions.get(s);
      const used = taken.get(s) ?? 0;
      if (list === undefined || used >= list.length) {
        added.push(j);
        continue;
      }
      taken.set(s, used + 1);
      const i = list[used]!;
      keptOld[i] = 1;
      if (i < last) reordered = true;
      last = i;
    }
    const removed: number[] = [];
    for (let i = 0; i < a.length; i++) {
      if (!keptOld[i]) removed.push(i);
      // Paired elements are equal and not walked: check them here (depth limits, as the walk would).
      else validateTree(a[i], "before", node, i, this.maxDepth);
    }
    for (let j = 0, k = 0; j < b.length; j++) {
      if (k < added.length && added[k] === j) k++;
      else validateTree(b[j], "after", node, j, this.maxDepth);
    }
    this.emitRemovedAdded(node, a, b, removed, added);
    if (reordered && this.notes !== null) {
      this.notes.push({ outcome: "unordered", parent: node.parent, seg: node.parent === null ? undefined : node.newSeg, rule: `unordered[${entry.index}]`, detail: "elements changed order; the array is compared as a multiset" });
    }
    return true;
  }

  /** A key match: removals, additions, and reorders as moves or (hidden) notes. */
  private planKeyed(node: PathNode, a: unknown[], b: unknown[], match: KeyedMatch, key: string, keyRule: string | undefined, unordered: CompiledPathEntry | undefined): void {
    this.emitRemovedAdded(node, a, b, match.removed, match.added);
    if (match.reordered) {
      if (this.reportMoves && unordered === undefined) this.emitMoves(node, a, b, match.moved);
      else if (this.notes !== null) {
        const moved = match.moved.length / 2;
        const how = keyRule === undefined ? `inferred key "${key}"` : `key "${key}" (${keyRule})`;
        this.notes.push({
          outcome: unordered !== undefined ? "unordered" : "inferred_key",
          parent: node.parent,
          seg: node.parent === null ? undefined : node.newSeg,
          rule: unordered !== undefined ? `unordered[${unordered.index}]` : keyRule,
          detail: `${moved} element${moved === 1 ? "" : "s"} changed place, matched by ${how}; a reorder is no change${unordered !== undefined ? " (unordered array)" : " (reportMoves is off)"}`,
        });
      }
    }
  }

  /**
   * Decides how two arrays at depth `d` pair up (the node is `frame`, or recursion level `d` when
   * frame is null). Arrays of objects sharing an identity key are matched by key (elements outside
   * the longest run kept in order are removed and added); other arrays keep their common prefix and
   * suffix of equal primitives and compare the rest by position, with trailing additions or
   * removals. The answer is left in planPairs, planStart and planEnd.
   */
  private planArray(frame: Frame | null, d: number, a: unknown[], b: unknown[]): void {
    this.planPairs = null;
    // Key rules only concern arrays of objects; unordered entries, any array.
    const rules = this.hasArrayRules && (this.unordered.length > 0 || holdsObject(a) || holdsObject(b)) ? this.arrayRules(frame ?? this.nodeAt(d)) : undefined;
    const key = rules === undefined ? this.defaultKey : rules.key;
    const wantMoves = (this.reportMoves && rules?.unordered === undefined) || this.notes !== null;
    let match: KeyedMatch | null = null;
    let matchedKey = "";
    if (key === undefined) {
      // A member the policy calls volatile changes by itself: it identifies nothing. Nor does one
      // whose value changes the policy rates (a status the learner saw change in place, which it
      // would not key the array by), unless its name says identity (`id`, `name`, `sku`...).
      let exclude: ((name: string) => boolean) | undefined;
      const policy = this.policy;
      if (policy !== undefined && (policy.volatilePaths.length > 0 || policy.rules.length > 0) && (holdsObject(a) || holdsObject(b))) {
        const node = frame ?? this.nodeAt(d);
        const volatilePaths = policy.volatilePaths;
        // the array's path only when a candidate is asked about (most arrays hold no objects)
        let segments: PathSegment[] | undefined;
        exclude = (name) => {
          segments ??= segmentsOf(node.parent, node.parent === null ? undefined : node.newSeg, "after");
          const at = [...segments, 0, name];
          return entryAtOrAbove(volatilePaths, at) !== undefined || (!PREFERRED_ARRAY_KEYS.includes(name) && ratesValueAt(policy, at));
        };
      }
      const inferred = inferKeyedMatch(a, b, wantMoves, exclude);
      if (inferred !== undefined) {
        match = inferred.match;
        matchedKey = inferred.key;
      }
    } else if (key !== false && looksKeyed(a, b, key)) {
      match = matchByKey(a, b, key, wantMoves);
      matchedKey = key;
    }
    if (match) {
      this.planStart = 0;
      if (match.removed.length === 0 && match.added.length === 0 && !match.reordered && a.length === b.length) {
        // Same keys in the same order: positions pair up, no pair list needed.
        this.planEnd = a.length;
        return;
      }
      const keyRule = rules === undefined ? (typeof key === "string" ? "defaultArrayKey" : undefined) : rules.keyRule;
      this.planKeyed(frame ?? this.nodeAt(d), a, b, match, matchedKey, keyRule, rules?.unordered);
      this.planPairs = match.pairs;
      this.planEnd = match.pairs.length;
      return;
    }
    if (rules?.unordered !== undefined && (a.length > 0 || b.length > 0) && this.planMultiset(frame ?? this.nodeAt(d), a, b, rules.unordered)) {
      this.planStart = this.planEnd = 0;
      return;
    }
    const la = a.length;
    const lb = b.length;
    const min = la < lb ? la : lb;
    let prefix = 0;
    while (prefix < min && a[prefix] === b[prefix] && (typeof a[prefix] !== "object" || a[prefix] === null)) prefix++;
    let suffix = 0;
    if (la !== lb) {
      while (suffix < min - prefix) {
        const x = a[la - 1 - suffix];
        if (x !== b[lb - 1 - suffix] || (typeof x === "object" && x !== null)) break;
        const problem = notJson(x);
        if (problem !== undefined) throw invalidInput("after", frame ?? this.nodeAt(d), lb - 1 - suffix, problem);
        suffix++;
      }
    }
    for (let i = 0; i < prefix; i++) {
      const problem = typeof a[i] === "string" ? undefined : notJson(a[i]);
      if (problem !== undefined) throw invalidInput("after", frame ?? this.nodeAt(d), i, problem);
    }
    const ma = la - prefix - suffix;
    const mb = lb - prefix - suffix;
    const common = ma < mb ? ma : mb;
    if (ma === mb && ma >= 2) {
      // The same elements in another order: one move per element that changed place.
      const moves = permutationMoves(a, b, prefix, prefix + ma, this.budget);
      if (moves !== null) {
        // Equal elements are not walked: check them here (depth limits, as the walk would).
        const node = frame ?? this.nodeAt(d);
        for (let i = prefix; i < prefix + ma; i++) {
          validateTree(a[i], "before", node, i, this.maxDepth);
          validateTree(b[i], "after", node, i, this.maxDepth);
        }
        this.emitMoves(node, a, b, moves);
        this.planStart = this.planEnd = 0;
        return;
      }
    }
    if (ma !== mb) {
      const node = frame ?? this.nodeAt(d);
      for (let i = prefix + common; i < prefix + ma; i++) {
        validateTree(a[i], "before", node, i, this.maxDepth);
        this.emit("element_removed", "remove", node, i, undefined, a[i], undefined);
      }
      for (let j = prefix + common; j < prefix + mb; j++) {
        validateTree(b[j], "after", node, j, this.maxDepth);
        this.emit("element_added", "add", node, undefined, j, undefined, b[j]);
      }
    }
    this.planStart = prefix;
    this.planEnd = prefix + common;
  }
}

/**
 * True when `a` has exactly `matched` members. Counting with for...in uses the object's enum
 * cache and allocates nothing; a plain object has no inherited enumerable members.
 */
function sameMemberCount(a: object, matched: number): boolean {
  let count = 0;
  for (const _ in a) count++;
  return count === matched;
}

/** Whether the first element of an array is an object (arrays of objects are the ones keys match). */
function holdsObject(array: readonly unknown[]): boolean {
  const first = array[0];
  return typeof first === "object" && first !== null && !Array.isArray(first);
}
