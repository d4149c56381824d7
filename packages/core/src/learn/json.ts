import type { PolicyRule, ToleranceRule, VolatileRule } from "@driftwatch/schema";
import { INTEGER_KEY_NAME } from "../diff/arrays.js";
import { DriftwatchError } from "../errors.js";
import { formatSegment } from "../paths/index.js";
import {
  describeShape,
  hasCurrencyAmount,
  isDurationName,
  isIdentifierLike,
  isPriceName,
  isUnixTime,
  meaningfulShapeOf,
  sameSkeleton,
  type VolatileShape,
  volatileStringShape,
} from "./shapes.js";
import type { PolicyEvidence, PolicySuggestion } from "./types.js";

// The learner walks consecutive pairs of samples side by side, arrays of objects matched by an
// identity key, and keeps per generalised path (`$.items[*].updated_at`) how often the value
// changed and what its values look like. Then each path that changed is judged by its shape.

const MAX_DEPTH = 1000;
const MAX_DISTINCT = 512;
const TIME_SHAPES: ReadonlySet<string> = new Set(["iso8601", "http_date", "unix_time"]);
/** Changes of one field whose skeletons are compared, at most. */
const SKELETON_CHECKS = 24;
const DIGIT = /\d/;
const DIGITS = /^\d{1,30}$/;
const INTEGER_STRING = /^-?\d+$/;
const SPACE = /\s/;
const NUMERIC_STRING = /^-?\d{1,20}(?:\.\d{1,20})?$/;
/** Suggested rules stay well under the schema's 500. */
const MAX_RULES = 400;
/** A float whose consecutive values differ by at most this (relative) is jitter. */
const MAX_JITTER = 0.01;
/** A reading (a number beside a time) that did not move yet, or moved on some fetches only: moves up to this (relative) are noise. */
const READING_TOLERANCE = 0.1;
/** The widest tolerance learned for a reading that moved up and down: a move to half or double its value. */
const MAX_READING_TOLERANCE = 0.5;
/** The suggested tolerance is the largest jitter seen times this margin. */
const TOLERANCE_MARGIN = 4;
/**
 * The absolute part of a reading's tolerance whose relative part is fixed (a reading by its name,
 * one that moved up and down): its largest move seen times this margin.
 */
const ABSOLUTE_MARGIN = 3;
const RANDOM_TOKENS: ReadonlySet<string> = new Set(["hex", "base64", "token"]);
const PREFERRED_KEYS = ["id", "uuid", "key", "slug", "name", "sku"];
const NESTED_KEYS = ["uid", "id", "uuid", "name", "key", "slug"];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface FieldStat {
  path: string;
  parent: string;
  name: string | undefined;
  /** `isPriceName(name)`, judged once. */
  priceName: boolean;
  /** Pairs in which the field was there on both sides. */
  pairs: number;
  changed: number;
  lastPair: number;
  lastChangedPair: number;
  presenceChanged: boolean;
  typeChanged: boolean;
  types: Set<string>;
  /** Distinct scalar values (a string and a number of the same text are two). */
  distinct: Set<string | number | boolean | null>;
  /** Volatile string shape all string values share: undefined (none seen yet), a shape, or "none". */
  volatileShape: string | undefined;
  /** The volatile string shape every value it changed to shares (undefined: none yet; "none"): a field that became volatile later. */
  changedToShape: string | undefined;
  /** The pair in which it first changed (-1: never). */
  firstChangedPair: number;
  /** The pairs in which it changed (one per fetch: at most the pairs learned from). */
  changedPairs: Set<number>;
  meaningful: string | undefined;
  /** Values seen (one per side of each pair) and, of them, enum-like values or short words: pooled over an array's elements, their shapes may differ. */
  observed: number;
  enumLike: number;
  integers: boolean;
  unixTimes: boolean;
  decreased: boolean;
  increased: boolean;
  maxRelative: number;
  /** The largest move of its numbers (the difference of two consecutive values). */
  maxAbsolute: number;
  /** The largest relative move between two values of one sign (neither 0): a move to, from or across 0 is left out. */
  maxSameSignRelative: number;
  /** The smallest magnitude (|value|) among its numbers that moved. */
  minMagnitude: number;
  /** Some move of its numbers went to, from or across 0 (a temperature in °C in winter, a grid power that flips sign). */
  crossedZero: boolean;
  /** Absolute moves of its numbers (3 significant digits, bounded): varying amounts or one. */
  absolutes: Set<string>;
  /** Every string value reads as an identifier, token or cursor. */
  identifiers: boolean;
  /** Every string value is a string of digits (a resource version, a counter as text). */
  digitStrings: boolean;
  /** Every string value is a decimal number (`"43371.39"`: prices and volumes of exchanges). */
  numericStrings: boolean;
  /** Some string change altered more than the text's volatile parts (its skeleton). */
  skeletonChanged: boolean;
  skeletonChecks: number;
  /** Some change went to a value seen before in this field (a rotation, or a revert). */
  recurred: number;
  /** Times (ISO 8601, HTTP dates, unix times, digit strings) never went back. */
  forward: boolean;
  /** Some changed string shows an amount of money. */
  currency: boolean;
  /** Every string value has the same length (ids, hashes and cursors of one format). */
  sameLength: boolean;
  /** Some string value has a digit. */
  digits: boolean;
  /** Some string value has white space. */
  spaces: boolean;
  length: number;
  /** Values compared in pairs (one per element of a collection), and how many of them changed. */
  observations: number;
  valueChanges: number;
  /** Relative changes of its numbers (3 significant digits, bounded): varying amounts or one. */
  relatives: Set<string>;
  /** The most digits after the decimal point its changed numbers had. */
  decimals: number;
  /** The sample each value was first seen in (bounded). */
  firstSeen: Map<string, number>;
  /**
   * Where a number reads as a measurement by its surroundings (set once, from the first sample):
   * `unit` (a unit is declared for it in a units object: `current_units.temperature_2m`), `unitless` (the units object declares
   * it with the empty unit: `current_units.uv_index: ""`, a reading when it is not an integer), `time` (a sibling member holds a
   * time: a reading with its timestamp), "" (neither).
   */
  context: "unit" | "unitless" | "time" | "" | undefined;
  /** The unit a `unit` member beside a generic `value` names (Fronius's `{ "Value": 0.92, "Unit": "A" }`), "" for none (set from the first sample). */
  memberUnit: string | undefined;
  /** The fewest digits after the decimal point its decimal strings are written with (`"16.36240000"`: 8). */
  writtenDecimals: number;
  /** Its decimal strings are all written with the same number of decimals. */
  fixedDecimals: boolean;
  /** The fewest significant decimals (trailing zeros aside) its decimal strings have (`"16.36240000"`: 4, a tick size `"0.01000000"`: 2). */
  significantDecimals: number;
}

interface ArrayStat {
  path: string;
  /** The path of its elements (`path[*]`). */
  element: string;
  key: string | undefined;
  maxLength: number;
  pairs: number;
  lastPair: number;
  reordered: number;
  lastReorderedPair: number;
  membershipChanged: boolean;
  /** Some element went away during learning (keyed arrays: a key gone; others: a shorter array). */
  elementRemoved: boolean;
  /** A positional record (see `isTuple`): its elements are learned by their positions, `path[5]`. */
  tuple: boolean;
}

/** Longest array taken for a positional record. */
const MAX_TUPLE = 64;

/**
 * Whether the arrays found at one path are positional records, tuples (OpenSky's state vectors,
 * `["ab1644", "UAL421", "United States", 1683488743, -71.17, 42.54, 2217.42, false, ...]`): all
 * of one length (2 to MAX_TUPLE), of scalars, each position of one type (or null) in every array,
 * and of two types at least (a list of one type - coordinates, quantities, tags - is no record).
 * A position is a member without a name: learned apart from the others (a flag at one position is
 * not a reading because the position beside it moves).
 */
function isTuple(arrays: readonly Json[][]): boolean {
  const length = arrays[0]?.length ?? 0;
  if (length < 2 || length > MAX_TUPLE) return false;
  const types: (string | undefined)[] = new Array<string | undefined>(length).fill(undefined);
  for (const array of arrays) {
    if (array.length !== length) return false;
    for (let i = 0; i < length; i++) {
      const v = array[i];
      if (v === null) continue;
      if (typeof v === "object") return false;
      const t = typeof v;
      if (types[i] === undefined) types[i] = t;
      else if (types[i] !== t) return false;
    }
  }
  return new Set(types.filter((t) => t !== undefined)).size >= 2;
}

/**
 * Values pooled over an array's elements whose shapes differ (a list of a driver's settings,
 * `[["Pool Name", "docker-8:1-pool"], ["Udev Sync Supported", "true"], ["Data file",
 * "/dev/loop0"]]`): mostly enum-like values or short words, the rest other text. A value that
 * changes is rated like an enum-like value, as each would be on its own.
 */
function pooledEnumLike(field: FieldStat): boolean {
  return field.meaningful === "none" && field.path.includes("[*]") && field.enumLike * 2 > field.observed;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** The path of member `name` of the object at `path`, from `children` (that object's member paths) or built and kept there. */
function memberPath(children: Map<string, string>, path: string, name: string): string {
  let child = children.get(name);
  if (child === undefined) children.set(name, (child = path + formatSegment(name)));
  return child;
}

/** A flag that is a boolean in some values and a text in others (`yanked: false` or the reason it was yanked). */
function flagOrReason(field: FieldStat): boolean {
  return field.types.has("boolean") && field.types.has("string") && [...field.types].every((t) => t === "boolean" || t === "string" || t === "null");
}

function isScalar(value: Json): boolean {
  return typeof value !== "object" || value === null;
}

/** Whether two arrays of scalars hold the same values, as many times each, in any order. */
function sameScalars(a: readonly Json[], b: readonly Json[]): boolean {
  if (a.length !== b.length) return false;
  if (a.length <= 16) {
    // few: each of b's matched to an unused equal one of a's (no map)
    let used = 0;
    for (const e of b) {
      let i = 0;
      while (i < a.length && ((used & (1 << i)) !== 0 || a[i] !== e)) i++;
      if (i === a.length) return false;
      used |= 1 << i;
    }
    return true;
  }
  const counts = new Map<Json, number>();
  for (const e of a) counts.set(e, (counts.get(e) ?? 0) + 1);
  for (const e of b) {
    const n = counts.get(e);
    if (n === undefined || n === 0) return false;
    counts.set(e, n - 1);
  }
  return true;
}

/** JSON text with sorted member names: equal for equal values. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function tooDeep(): DriftwatchError {
  return new DriftwatchError("too_deep", `history: documents nest deeper than ${MAX_DEPTH} levels`, {
    details: [{ path: "history", message: `at most ${MAX_DEPTH} levels of arrays and objects` }],
  });
}

/** An element's identity under a key: strings and integers (a float is a measurement, not an id). */
function scalarIdentity(value: unknown): string | undefined {
  if (typeof value === "string") return `s${value}`;
  if (typeof value === "number" && Number.isInteger(value)) return `n${value}`;
  return undefined;
}

/** The identity of an element under `key`; `metadata.uid` names a member of a nested object. */
function identityIn(element: JsonObject, key: string): string | undefined {
  return scalarIdentity(identityValue(element, key));
}

/** The member `key` names (`metadata.uid`: a member of a nested object), whatever its type; undefined when there is none. */
function identityValue(element: JsonObject, key: string): Json | undefined {
  if (Object.hasOwn(element, key)) return element[key];
  const dot = key.indexOf(".");
  if (dot <= 0) return undefined;
  const outer = element[key.slice(0, dot)];
  return isObject(outer) ? identityValue(outer, key.slice(dot + 1)) : undefined;
}

/** Whether every element is an object with an identity under `key` (`identityIn` defined, without building it). */
function allKeyed(array: readonly Json[], key: string): boolean {
  for (const e of array) {
    if (!isObject(e)) return false;
    const v = identityValue(e, key);
    if (typeof v !== "string" && !(typeof v === "number" && Number.isInteger(v))) return false;
  }
  return true;
}

/** `identityIn(x, key) === identityIn(y, key)`, without building the identities of two strings. */
function sameIdentity(x: JsonObject, y: JsonObject, key: string): boolean {
  const u = identityValue(x, key);
  const v = identityValue(y, key);
  if (typeof u === "string" && typeof v === "string") return u === v;
  return scalarIdentity(u) === scalarIdentity(v);
}

/**
 * Whether every element of every array is an object with a unique scalar `key`, and the key
 * names the same elements over time: consecutive arrays share at least half of their keys.
 */
function keyHolds(arrays: readonly Json[][], key: string, oneArrayPerSample: boolean): boolean {
  let previous: Set<string> | undefined;
  let previousArray: readonly Json[] | undefined;
  // An element without the key in a few samples (an id removed from one element: a change that
  // is reported) does not unmake the identity of the others; those pairs are compared by position.
  let without = 0;
  for (const array of arrays) {
    const seen = new Set<string>();
    let missing = 0;
    for (const element of array) {
      if (!isObject(element)) return false;
      const id = identityIn(element, key);
      if (id === undefined) {
        missing++;
        continue;
      }
      if (seen.has(id)) return false;
      seen.add(id);
    }
    if (missing > 0) {
      without++;
      if (missing > 1 || seen.size < 2 || without * 3 > arrays.length) return false;
    }
    if (oneArrayPerSample && previous !== undefined && previous.size > 0 && seen.size > 0) {
      let common = 0;
      for (const id of seen) if (previous.has(id)) common++;
      if (common * 2 < Math.min(previous.size, seen.size)) return false;
      if (previousArray !== undefined && keyChangedInPlace(previousArray, array, key, previous, seen)) return false;
    }
    previous = seen;
    previousArray = array;
  }
  return true;
}

/**
 * Whether, between two arrays of one length, an element kept its place and its other members
 * (their names, and every value that is not a number: a count or a reading may move) while its
 * key took a value neither array had before and after (`{status: "relayed", queries: 6279}` ->
 * `{status: "suspended", queries: 6279}`): that key is a value that changed, a status, not the
 * identity of the element (keyed by it, the change would read as an element gone and another
 * come, rated info; compared by position it is a value change, rated as the member is).
 */
function keyChangedInPlace(before: readonly Json[], after: readonly Json[], key: string, beforeIds: ReadonlySet<string>, afterIds: ReadonlySet<string>): boolean {
  if (before.length !== after.length) return false;
  for (let i = 0; i < before.length; i++) {
    const x = before[i];
    const y = after[i];
    if (!isObject(x) || !isObject(y) || sameIdentity(x, y, key)) continue;
    const from = identityIn(x, key);
    const to = identityIn(y, key);
    if (from === undefined || to === undefined || afterIds.has(from) || beforeIds.has(to)) continue;
    const names = Object.keys(x).filter((k) => k !== key);
    if (names.length !== Object.keys(y).length - 1 || !names.every((k) => Object.hasOwn(y, k))) continue;
    if (names.every((k) => typeof x[k] === "number" || JSON.stringify(x[k]) === JSON.stringify(y[k]))) return true;
  }
  return false;
}

/**
 * The identity key of the arrays found at one path in all samples: a preferred name (`id`,
 * `uuid`, `key`, `slug`, `name`, `sku`), then names ending in `id`, `key`, `slug` or `url`,
 * then any other scalar member, alphabetically, that is present and unique in every element.
 */
function chooseKey(arrays: readonly Json[][], oneArrayPerSample: boolean): string | undefined {
  const first = arrays.find((a) => a.length > 0)?.[0];
  if (!isObject(first)) return undefined;
  // The only member of every element is its value, not an identity.
  const single = Object.keys(first).length === 1;
  const alone = (name: string): boolean => single && arrays.every((array) => array.every((e) => isObject(e) && Object.keys(e).length === 1 && Object.hasOwn(e, name)));
  const names = Object.keys(first).filter(
    (k) => scalarIdentity(first[k]) !== undefined && !alone(k) && (typeof first[k] === "string" || PREFERRED_KEYS.includes(k) || INTEGER_KEY_NAME.test(k)),
  );
  const rank = (name: string): number => {
    const preferred = PREFERRED_KEYS.indexOf(name);
    if (preferred >= 0) return preferred;
    if (/(?:^|_|-)(?:id|key|slug|url|uuid)$|(?:Id|ID|Key|Slug|Url|Uuid)$/.test(name)) return PREFERRED_KEYS.length;
    return PREFERRED_KEYS.length + (typeof first[name] === "string" ? 1 : 2);
  };
  names.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  for (const name of names) if (keyHolds(arrays, name, oneArrayPerSample)) return name;
  // A nested identity: `metadata.uid`, `metadata.name`, `node.id`.
  for (const outer of Object.keys(first).sort().slice(0, 8)) {
    const inner = first[outer];
    if (!isObject(inner)) continue;
    // `{"m":{"id":1}}`: a nested member that is all every element holds is its value too
    if (alone(outer) && arrays.every((array) => array.every((e) => isObject(e) && isObject(e[outer]) && Object.keys(e[outer] as object).length === 1))) continue;
    for (const name of NESTED_KEYS) {
      if (scalarIdentity(inner[name]) === undefined) continue;
      const key = `${outer}.${name}`;
      if (keyHolds(arrays, key, oneArrayPerSample)) return key;
    }
  }
  return undefined;
}

class JsonLearner {
  readonly fields = new Map<string, FieldStat>();
  readonly arrays = new Map<string, ArrayStat>();
  private pair = 0;
  /** Child paths by parent path and member name: built once, not once per pair. */
  private readonly childPaths = new Map<string, Map<string, string>>();
  /** Units objects by the path of the object whose members they describe. */
  private readonly unitMaps = new Map<string, JsonObject>();
  /** See `elementPath`. */
  private readonly elementPaths = new Map<string, string>();
  /** See `unitsNames`. */
  private readonly unitsNamesOf = new Map<string, readonly [string, string]>();
  /** The paths of an object's members that hold a time (by the object's path), judged once. */
  readonly timeMembers = new Map<string, string[]>();
  /** The path of the object that holds the object at a path (`$.Body.Data` for `$.Body.Data.IAC_L1`). */
  readonly objectParents = new Map<string, string>();

  constructor(private readonly samples: readonly Json[]) {}

  run(): void {
    const found = new Map<string, Json[][]>();
    for (const sample of this.samples) this.collectArrays(sample, "$", 0, found);
    for (const [path, arrays] of found) {
      const maxLength = Math.max(...arrays.map((a) => a.length));
      // Outside other arrays, each sample has one array here: its keys must persist over time.
      const key = maxLength >= 2 ? chooseKey(arrays, !path.includes("[*]") && arrays.length === this.samples.length) : undefined;
      const tuple = key === undefined && isTuple(arrays);
      this.arrays.set(path, { path, element: this.elementPath(path), key, maxLength, pairs: 0, lastPair: -1, reordered: 0, lastReorderedPair: -1, membershipChanged: false, elementRemoved: false, tuple });
    }
    for (let p = 0; p + 1 < this.samples.length; p++) {
      this.pair = p;
      this.walk(this.samples[p]!, this.samples[p + 1]!, "$", "$", undefined, 0);
    }
  }

  private collectArrays(value: Json, path: string, depth: number, found: Map<string, Json[][]>): void {
    if (depth > MAX_DEPTH) throw tooDeep();
    if (Array.isArray(value)) {
      let list = found.get(path);
      if (!list) found.set(path, (list = []));
      list.push(value);
      const element = this.elementPath(path);
      for (const item of value) if (typeof item === "object" && item !== null) this.collectArrays(item, element, depth + 1, found);
    } else if (isObject(value)) {
      let children: Map<string, string> | undefined;
      for (const name of Object.keys(value)) {
        const child = value[name]!;
        if (typeof child !== "object" || child === null) continue;
        children ??= this.childrenOf(path);
        this.collectArrays(child, memberPath(children, path, name), depth + 1, found);
      }
    }
  }

  /** Why member `name` of `object` (at `path`) reads as a measurement: a declared unit, a time beside it, or "". */
  private contextOf(object: JsonObject, path: string, name: string): "unit" | "unitless" | "time" | "" {
    // Only a units object that mirrors its readings (`current` / `current_units`) declares a unit:
    // a lone `unit` member beside a number (`{ "weight": 2.5, "unit": "kg" }`, a quota's
    // `{ "limit": 5000, "unit": "requests" }`) is as often a product's or a contract's figure.
    const declared = this.unitMaps.get(path)?.[name];
    if (typeof declared === "string" && isUnit(declared)) return "unit";
    // Declared without a unit (`uv_index: ""`): a dimensionless reading when it is not an integer
    // (judged with the values), but as often a flag (`is_day: ""`, 0 or 1).
    if (declared === "") return "unitless";
    let times = this.timeMembers.get(path);
    if (times === undefined) {
      times = Object.keys(object)
        .filter((k) => {
          const v = object[k];
          return (typeof v === "string" && v.length <= 40 && TIME_SHAPES.has(volatileStringShape(v) ?? "")) || (typeof v === "number" && Number.isInteger(v) && isUnixTime(v));
        })
        .map((k) => this.childPath(path, k));
      this.timeMembers.set(path, times);
    }
    return times.length > 0 ? "time" : "";
  }

  /** `path[i]`, a position of a tuple, built once per path and position. */
  private positionPath(path: string, i: number): string {
    const children = this.childrenOf(path);
    const name = `\u0000${i}`;
    let child = children.get(name);
    if (child === undefined) children.set(name, (child = `${path}[${i}]`));
    return child;
  }

  /** `path[*]`, built once per path. */
  private elementPath(path: string): string {
    let element = this.elementPaths.get(path);
    if (element === undefined) this.elementPaths.set(path, (element = `${path}[*]`));
    return element;
  }

  /** The paths of the members of the object at `path`, by member name (see `childPath`). */
  private childrenOf(path: string): Map<string, string> {
    let children = this.childPaths.get(path);
    if (children === undefined) this.childPaths.set(path, (children = new Map()));
    return children;
  }

  /** The names of the units object beside member `name` (`name_units`, `nameUnits`), built once per name. */
  private unitsNames(name: string): readonly [string, string] {
    let names = this.unitsNamesOf.get(name);
    if (names === undefined) this.unitsNamesOf.set(name, (names = [`${name}_units`, `${name}Units`]));
    return names;
  }

  private childPath(path: string, name: string): string {
    return memberPath(this.childrenOf(path), path, name);
  }

  private field(path: string, parent: string, name: string | undefined): FieldStat {
    let stat = this.fields.get(path);
    if (!stat) {
      stat = {
        path,
        parent,
        name,
        priceName: isPriceName(name),
        pairs: 0,
        changed: 0,
        lastPair: -1,
        lastChangedPair: -1,
        presenceChanged: false,
        typeChanged: false,
        types: new Set(),
        distinct: new Set(),
        volatileShape: undefined,
        changedToShape: undefined,
        memberUnit: undefined,
        firstChangedPair: -1,
        changedPairs: new Set(),
        meaningful: undefined,
        observed: 0,
        enumLike: 0,
        integers: true,
        unixTimes: true,
        decreased: false,
        increased: false,
        maxRelative: 0,
        maxAbsolute: 0,
        maxSameSignRelative: 0,
        crossedZero: false,
        minMagnitude: Number.POSITIVE_INFINITY,
        absolutes: new Set(),
        identifiers: true,
        digitStrings: true,
        numericStrings: true,
        skeletonChanged: false,
        skeletonChecks: 0,
        recurred: 0,
        forward: true,
        currency: false,
        firstSeen: new Map(),
        sameLength: true,
        digits: false,
        spaces: false,
        length: -1,
        observations: 0,
        valueChanges: 0,
        relatives: new Set(),
        decimals: 0,
        context: undefined,
        writtenDecimals: Number.POSITIVE_INFINITY,
        fixedDecimals: true,
        significantDecimals: Number.POSITIVE_INFINITY,
      };
      this.fields.set(path, stat);
    }
    return stat;
  }

  private firstSeenAt(stat: FieldStat, value: string, sample: number): void {
    if (!stat.firstSeen.has(value) && stat.firstSeen.size < MAX_DISTINCT) stat.firstSeen.set(value, sample);
  }

  /** Whether `value` was a value of this field in an earlier sample than the current pair's second one. */
  private seenBefore(stat: FieldStat, value: string): boolean {
    const first = stat.firstSeen.get(value);
    return first !== undefined && first <= this.pair;
  }

  /** Judges a value of the field; returns a string's volatile shape when it judged one (null: not judged, a value seen before or not a string). */
  private observe(stat: FieldStat, value: Json): VolatileShape | undefined | null {
    stat.types.add(typeOf(value));
    if (typeof value === "object" && value !== null) return null;
    // Judging a value is idempotent: a value seen before (the same field of the next sample,
    // mostly) changes nothing, and its regular expressions need not run again.
    // (The value itself is its key: no key text is built per value.)
    if (stat.distinct.has(value)) return null;
    if (stat.distinct.size < MAX_DISTINCT) stat.distinct.add(value);
    /** A string's volatile shape (judged once: `meaningfulShapeOf` takes it too). */
    let volatileShape: VolatileShape | undefined | null = null;
    if (typeof value === "string") {
      volatileShape = volatileStringShape(value);
      const shape = volatileShape ?? "none";
      if (stat.identifiers && volatileShape === undefined && !isIdentifierLike(value)) stat.identifiers = false;
      const digit = DIGIT.test(value);
      if (stat.digitStrings && !(digit && DIGITS.test(value))) stat.digitStrings = false;
      if (stat.numericStrings && !(digit && NUMERIC_STRING.test(value))) stat.numericStrings = false;
      if (stat.numericStrings) {
        const dot = value.indexOf(".");
        const written = dot < 0 ? 0 : value.length - dot - 1;
        if (stat.writtenDecimals !== Number.POSITIVE_INFINITY && written !== stat.writtenDecimals) stat.fixedDecimals = false;
        stat.writtenDecimals = Math.min(stat.writtenDecimals, written);
        let significant = written;
        while (significant > 0 && value.charCodeAt(dot + significant) === 48) significant--;
        stat.significantDecimals = Math.min(stat.significantDecimals, significant);
      }
      if (stat.integers && !(digit && INTEGER_STRING.test(value))) stat.integers = false;
      if (stat.length < 0) stat.length = value.length;
      else if (stat.length !== value.length) stat.sameLength = false;
      if (value.length < 6) stat.sameLength = false;
      if (digit) stat.digits = true;
      if (!stat.spaces && SPACE.test(value)) stat.spaces = true;
      const prior = stat.volatileShape;
      if (prior === undefined || prior === shape) stat.volatileShape = shape;
      // Random tokens: one value may read as hex or start like `ab_...`, the next as base64.
      else if (RANDOM_TOKENS.has(prior) && RANDOM_TOKENS.has(shape)) stat.volatileShape = prior === "base64" || shape === "base64" ? "base64" : "token";
      else stat.volatileShape = "none";
    } else if (typeof value === "number") {
      if (!Number.isInteger(value)) stat.integers = false;
      if (!isUnixTime(value)) stat.unixTimes = false;
    }
    const meaningful = meaningfulShapeOf(value, stat.name, stat.priceName, volatileShape) ?? "none";
    stat.observed++;
    if (meaningful === "enum" || meaningful === "word") stat.enumLike++;
    if (stat.meaningful === undefined || stat.meaningful === meaningful) stat.meaningful = meaningful;
    else if ((stat.meaningful === "enum" || stat.meaningful === "word") && (meaningful === "enum" || meaningful === "word")) stat.meaningful = "enum";
    // versions beside a short code (`python_version`: "2.7", "3.6", "source"; "latest"): versions
    else if ((stat.meaningful === "version" && meaningful === "enum") || (stat.meaningful === "enum" && meaningful === "version")) stat.meaningful = "version";
    else stat.meaningful = "none";
    return volatileShape;
  }

  /** Walks one pair of values at `path`; returns the field's stats when they are scalars (not two objects, not two arrays). */
  private walk(a: Json, b: Json, path: string, parent: string, name: string | undefined, depth: number): FieldStat | undefined {
    if (depth > MAX_DEPTH) throw tooDeep();
    if (isObject(a) && isObject(b)) {
      const children = this.childrenOf(path);
      /** Members of `a` that `b` has too: when that is all of `b`'s, `b` has none of its own. */
      let shared = 0;
      for (const k of Object.keys(a)) {
        const child = memberPath(children, path, k);
        if (Object.hasOwn(b, k)) {
          shared++;
          const value = a[k]!;
          if (isObject(value) && !this.objectParents.has(child)) this.objectParents.set(child, path);
          if (isObject(value) && !this.unitMaps.has(child)) {
            // A units object beside it: `current` and `current_units`, `hourly` and `hourlyUnits`.
            const names = this.unitsNames(k);
            const units = a[names[0]] ?? a[names[1]];
            if (isObject(units)) this.unitMaps.set(child, units);
          }
          const stat = this.walk(value, b[k]!, child, path, k, depth + 1);
          if (typeof value === "number" || typeof value === "string") {
            // (judged once: the test of the value's writing waits for a field without a context)
            if (stat !== undefined && stat.context === undefined && (typeof value === "number" || NUMERIC_STRING.test(value))) {
              stat.context = this.contextOf(a, path, k);
              stat.memberUnit = memberUnitOf(a, k);
            }
          }
        } else this.field(child, path, k).presenceChanged = true;
      }
      const keysOfB = Object.keys(b);
      if (shared < keysOfB.length) for (const k of keysOfB) if (!Object.hasOwn(a, k)) this.field(this.childPath(path, k), path, k).presenceChanged = true;
      return undefined;
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      this.walkArrays(a, b, path, depth);
      return undefined;
    }
    const stat = this.field(path, parent, name);
    if (stat.lastPair !== this.pair) {
      stat.lastPair = this.pair;
      stat.pairs++;
    }
    if (this.pair === 0 || stat.types.size === 0) this.observe(stat, a);
    const shapeOfB = this.observe(stat, b);
    const ta = typeOf(a);
    const tb = typeOf(b);
    if (ta !== tb) stat.typeChanged = true;
    stat.observations++;
    if (ta === tb && (ta === "object" || ta === "array") ? canonical(a) === canonical(b) : a === b) return stat;
    stat.valueChanges++;
    if (stat.lastChangedPair !== this.pair) {
      stat.lastChangedPair = this.pair;
      stat.changed++;
      stat.changedPairs.add(this.pair);
      if (stat.firstChangedPair < 0) stat.firstChangedPair = this.pair;
    }
    // Strings are remembered where they change (enough to tell a value coming back).
    if (typeof a === "string" && typeof b === "string") {
      if (stat.changedToShape !== "none") {
        const shape = (shapeOfB === null ? volatileStringShape(b) : shapeOfB) ?? "none";
        const prior = stat.changedToShape;
        if (prior === undefined || prior === shape) stat.changedToShape = shape;
        else if (RANDOM_TOKENS.has(prior) && RANDOM_TOKENS.has(shape)) stat.changedToShape = prior === "base64" || shape === "base64" ? "base64" : "token";
        else stat.changedToShape = "none";
      }
      this.firstSeenAt(stat, a, this.pair);
      if (this.seenBefore(stat, b)) stat.recurred++;
      this.firstSeenAt(stat, b, this.pair + 1);
    }
    // Only times and counts can go forward: other strings are not parsed for it.
    if (stat.forward && (typeof a === "number" || stat.digitStrings || TIME_SHAPES.has(stat.volatileShape ?? "")) && ordered(a, b) < 0) stat.forward = false;
    if (typeof a === "string" && typeof b === "string") {
      // Skeletons are compared on the first changes only (bounded work per field): a text that
      // kept its skeleton SKELETON_CHECKS times is judged by them.
      if (!stat.skeletonChanged && stat.skeletonChecks < SKELETON_CHECKS) {
        stat.skeletonChecks++;
        if (!sameSkeleton(a, b)) stat.skeletonChanged = true;
      }
      if (!stat.currency && (hasCurrencyAmount(a) || hasCurrencyAmount(b))) stat.currency = true;
    }
    let x: number | undefined;
    let y: number | undefined;
    if (typeof a === "number" && typeof b === "number") {
      x = a;
      y = b;
    } else if (typeof a === "string" && typeof b === "string" && NUMERIC_STRING.test(a) && NUMERIC_STRING.test(b)) {
      x = Number(a);
      y = Number(b);
    }
    if (x !== undefined && y !== undefined) {
      const a = x;
      const b = y;
      if (b < a) stat.decreased = true;
      else stat.increased = true;
      const diff = Math.abs(a - b);
      const scale = Math.max(Math.abs(a), Math.abs(b));
      stat.maxAbsolute = Math.max(stat.maxAbsolute, diff);
      stat.maxRelative = Math.max(stat.maxRelative, scale === 0 ? 0 : diff / scale);
      if (stat.relatives.size < 16) stat.relatives.add(scale === 0 ? "0" : (diff / scale).toPrecision(3));
      if (stat.absolutes.size < 16) stat.absolutes.add(diff.toPrecision(3));
      stat.minMagnitude = Math.min(stat.minMagnitude, Math.abs(a), Math.abs(b));
      if ((a > 0 && b > 0) || (a < 0 && b < 0)) stat.maxSameSignRelative = Math.max(stat.maxSameSignRelative, diff / scale);
      else if (diff > 0) stat.crossedZero = true;
      stat.decimals = Math.max(stat.decimals, decimalsOf(x), decimalsOf(y));
    }
    return stat;
  }

  private reordered(stat: ArrayStat): void {
    if (stat.lastReorderedPair !== this.pair) {
      stat.lastReorderedPair = this.pair;
      stat.reordered++;
    }
  }

  private walkArrays(a: Json[], b: Json[], path: string, depth: number): void {
    const stat = this.arrays.get(path)!;
    if (stat.lastPair !== this.pair) {
      stat.lastPair = this.pair;
      stat.pairs++;
    }
    const element = stat.element;
    const key = stat.key;
    // a positional record: each position is a member of its own (`path[5]`)
    if (stat.tuple && a.length === b.length) {
      for (let i = 0; i < a.length; i++) this.walk(a[i]!, b[i]!, this.positionPath(path, i), path, undefined, depth + 1);
      return;
    }
    // an element without its identity (see keyHolds): this pair is compared by position
    if (key !== undefined && allKeyed(a, key) && allKeyed(b, key)) {
      // Fast path, the usual case: the same elements in the same places.
      if (a.length === b.length && a.every((e, i) => sameIdentity(e as JsonObject, b[i] as JsonObject, key))) {
        for (let i = 0; i < a.length; i++) this.walk(a[i]!, b[i]!, element, path, undefined, depth + 1);
        return;
      }
      const before = new Map<string, JsonObject>();
      for (const e of a) before.set(identityIn(e as JsonObject, key)!, e as JsonObject);
      const after = new Map<string, JsonObject>();
      for (const e of b) after.set(identityIn(e as JsonObject, key)!, e as JsonObject);
      const commonBefore = [...before.keys()].filter((id) => after.has(id));
      const commonAfter = [...after.keys()].filter((id) => before.has(id));
      if (commonBefore.length !== before.size || commonAfter.length !== after.size) stat.membershipChanged = true;
      if (commonBefore.length !== before.size) stat.elementRemoved = true;
      if (commonBefore.some((id, i) => commonAfter[i] !== id)) this.reordered(stat);
      for (const id of commonBefore) this.walk(before.get(id)!, after.get(id)!, element, path, undefined, depth + 1);
      return;
    }
    if (a.length === b.length && a.every((e, i) => e === b[i] && (typeof e !== "object" || e === null))) {
      for (let i = 0; i < a.length; i++) this.walk(a[i]!, b[i]!, element, path, undefined, depth + 1);
      return;
    }
    const scalars = a.every(isScalar) && b.every(isScalar);
    let same: boolean;
    let sameElements: boolean;
    if (scalars) {
      // Scalars have equal canonical texts when they are equal (===): not the same in the same
      // places (the fast path above), so compared as multisets, with no text built.
      same = false;
      sameElements = sameScalars(a, b);
    } else {
      const ca = a.map(canonical);
      const cb = b.map(canonical);
      same = ca.length === cb.length && ca.every((c, i) => c === cb[i]);
      if (!same) {
        const sortedA = [...ca].sort();
        const sortedB = [...cb].sort();
        sameElements = sortedA.length === sortedB.length && sortedA.every((c, i) => c === sortedB[i]);
      } else sameElements = true;
    }
    if (!same) {
      if (sameElements) {
        this.reordered(stat);
        return;
      }
      // Elements matched by position: same length is the same members, edited in place.
      if (a.length !== b.length || scalars) stat.membershipChanged = true;
      if (b.length < a.length || scalars) stat.elementRemoved = true;
    }
    if (a.length === b.length) for (let i = 0; i < a.length; i++) this.walk(a[i]!, b[i]!, element, path, undefined, depth + 1);
  }
}

/**
 * A unit of measurement as APIs declare them: `°C`, `km/h`, `%`, `hPa`, `W/m²`, `kWh`, `ms`,
 * `seconds` (short, no digits but exponents, not an identifier in snake case).
 */
function isUnit(text: string): boolean {
  return text.length > 0 && text.length <= 12 && /^[\p{L}°%µ³²/·. *-]+$/u.test(text) && !/_/.test(text) && !/\s\S+\s/.test(text) && !CODE_UNIT.test(text);
}

/** What a units object declares for a code or a flag, not a unit: `wmo code` (a weather code), `flag`, `enum`, `id`. */
const CODE_UNIT = /(?:^|[\s/-])(?:codes?|flags?|enum|ids?|category|class|status|bool(?:ean)?)$/i;

/** Sibling decimal strings of one format, some of which moved by small amounts (see `readingFamilies`). */
interface ReadingFamily {
  members: number;
  decimals: number;
  moved: number;
  maxRelative: number;
  /** A reading object (numbers of any writing, see `readingObjects`), not decimal strings of one format. */
  object?: boolean;
}

/** Fewest siblings of a reading object that moved like readings. */
const OBJECT_READINGS = 3;

/**
 * Reading objects: an object (or the elements of one collection) most of whose numbers, three at
 * least, moved like readings in the samples (on two fetches or more, by varying amounts: a smart
 * meter's power, current and voltage, a device's signal strength). Its other numbers, kept so far
 * (stable, or moved too rarely, by at most MAX_OBJECT_MOVE), are readings on slower clocks of their
 * own: each gets a tolerance (READING_TOLERANCE at least), so a larger move (a flag, a setting, a
 * code) is still reported. Money (by name or a currency beside it) and unix times never join; a
 * removal, a null or a type change is reported as usual. Returns the parents of such objects.
 */
function readingObjects(fields: Iterable<FieldStat>, totalPairs: number): Map<string, ReadingFamily> {
  const groups = new Map<string, { movers: FieldStat[]; numbers: number }>();
  for (const field of fields) {
    if (field.types.size !== 1 || !field.types.has("number") || field.presenceChanged || field.typeChanged || field.pairs !== totalPairs) continue;
    let group = groups.get(field.parent);
    if (group === undefined) groups.set(field.parent, (group = { movers: [], numbers: 0 }));
    group.numbers++;
    if (!field.currency && !isPriceName(field.name) && field.changed >= 2 && field.relatives.size >= 2) group.movers.push(field);
  }
  const objects = new Map<string, ReadingFamily>();
  for (const [parent, group] of groups) {
    if (group.movers.length < OBJECT_READINGS || group.movers.length * 2 < group.numbers) continue;
    objects.set(parent, { members: group.numbers, decimals: 0, moved: group.movers.length, maxRelative: Math.max(...group.movers.map((f) => f.maxRelative)), object: true });
  }
  return objects;
}

/** The margin of a jittering float's tolerance: fitted to few pairs, the spread seen is a poor guess of the spread to come, so a wider one. */
function jitterMargin(pairs: number): number {
  return pairs < 4 ? TOLERANCE_MARGIN * 2.5 : TOLERANCE_MARGIN;
}

/** Fewest numbers of a live document that moved like readings (see `liveDocument`). */
const LIVE_READINGS = 3;

/**
 * A live document (a server's or a device's statistics, a station's observations): three numbers
 * or more, not money, not times, not named like a setting, a code or a rated figure, that moved by
 * small amounts (MAX_OBJECT_MOVE at most; integers only up and down), their moves on two fetches or
 * more (not one edit of several figures at once), some of them up and some down (readings go both
 * ways; running totals only go up, and a round of rate cuts or of price rises goes one way), one
 * of them by a reading's small amount (MAX_JITTER at most: a move no one edits; a tariff table
 * edited twice, a bank's rates cut on two days, move by more). Its other non-integers that moved
 * are readings on slower clocks of their own when their moves say so (see `movedLikeLiveReading`).
 */
function liveDocument(fields: Iterable<FieldStat>): boolean {
  let movers = 0;
  let up = false;
  let down = false;
  let small = false;
  const fetches = new Set<number>();
  for (const field of fields) {
    if (!liveMover(field)) continue;
    movers++;
    up ||= field.increased;
    down ||= field.decreased;
    small ||= field.maxRelative <= MAX_JITTER;
    fetches.add(field.firstChangedPair).add(field.lastChangedPair);
  }
  return movers >= LIVE_READINGS && fetches.size >= 2 && up && down && small;
}

/**
 * Whether a non-integer of a live document moved like a reading (else like an edit, kept as before):
 * by a reading's small amount (MAX_JITTER at most: a rate, a discount or a setting is
 * not edited by a fraction of a per cent), or by READING_TOLERANCE at most on a fetch where a member
 * of its own object, not named as a reading, moved by such a small amount (a server's CPU figures,
 * updated together; a sampling ratio cut from 0.25 to 0.2 as a host's CPU moved is an edit). A
 * larger move of its own beside no such member, even of a few per cent (a savings rate cut beside
 * other products' rates, a tariff's unit rate edited by 1.5 % beside a meter's readings, a sampling
 * rate in a config object beside a metrics object, a discount or a heating curve beside named
 * readings) is an edit: it is kept, and its next change is reported. (A broker's GC rate that moved
 * by 1.5 % once is kept too, until it moved like a reading: the price of not hiding a tariff.)
 */
function movedLikeLiveReading(field: FieldStat, moved: number, jitterMovers: ReadonlyMap<string, readonly FieldStat[]>): boolean {
  if (moved <= MAX_JITTER) return true;
  return moved <= READING_TOLERANCE && (jitterMovers.get(field.parent) ?? []).some((other) => other !== field && [...field.changedPairs].some((pair) => other.changedPairs.has(pair)));
}

/** Members of a live document that moved by a reading's small amount (MAX_JITTER at most), not named as readings, by their parent (see `movedLikeLiveReading`). */
function liveJitterMovers(fields: Iterable<FieldStat>): Map<string, FieldStat[]> {
  const byParent = new Map<string, FieldStat[]>();
  for (const field of fields) {
    // (not a running total either: a non-integer that moved on two fetches or more, always one way,
    // an accrued interest beside the rate it accrues at)
    if (!liveMover(field) || field.maxRelative > MAX_JITTER || isNamedReadingByName(field) || (field.changed >= 2 && field.increased !== field.decreased)) continue;
    const list = byParent.get(field.parent);
    if (list === undefined) byParent.set(field.parent, [field]);
    else list.push(field);
  }
  return byParent;
}

/** Numbers all along (null in some elements of a collection at most), not money, not a time, not named like a setting, a code or a rated figure, that moved by a small amount (see `liveDocument`). */
function liveMover(field: FieldStat): boolean {
  return (
    numbersOrNull(field) &&
    !field.presenceChanged &&
    !field.typeChanged &&
    !field.currency &&
    !field.priceName &&
    !field.unixTimes &&
    field.changed > 0 &&
    field.maxRelative > 0 &&
    field.maxRelative <= MAX_OBJECT_MOVE &&
    (!field.integers || (field.increased && field.decreased)) &&
    !RATED_FIGURE.test(field.name ?? "") &&
    (!isSettingOrCodeName(field.name) || PER_TIME.test(field.name ?? ""))
  );
}

/** The largest move of a number kept so far that a reading object's tolerance takes in. */
const MAX_OBJECT_MOVE = 0.25;

/** Fewest members of a family of readings: two decimals of one format are as often a balance and its available part. */
const FAMILY_MEMBERS = 3;

/** Fewest significant decimals (trailing zeros aside) of a family member: a tick size (`"0.01000000"`) or a set rate (`"1.08350000"`) has fewer. */
const FAMILY_PRECISION = 5;

/**
 * Families of readings: three or more decimal strings that sit as siblings in one object (or in the
 * elements of one collection), all written with the same number of decimals, six or more, using most of them
 * (five significant decimals at least: measured, not set), present in every sample with no other
 * type, none that moved by more than READING_TOLERANCE, and at least one of them moved (from four
 * samples on: two of them, or one on two fetches by varying amounts or in several elements of a
 * collection) (an order book's `bidPrice`, `bidQty`, `askPrice`, `askQty`: one moves, the others move later on clocks of
 * their own). Each member is a reading; it is learned with a tolerance (a move of up to
 * READING_TOLERANCE), not as volatile: a tick size or step size changed tenfold is still reported.
 */
function readingFamilies(fields: Iterable<FieldStat>, totalPairs: number): Map<string, ReadingFamily> {
  const groups = new Map<string, FieldStat[]>();
  for (const field of fields) {
    const candidate =
      field.types.size === 1 &&
      field.types.has("string") &&
      field.numericStrings &&
      !field.digitStrings &&
      field.fixedDecimals &&
      field.writtenDecimals >= 6 &&
      field.writtenDecimals !== Number.POSITIVE_INFINITY &&
      field.significantDecimals >= FAMILY_PRECISION &&
      !field.presenceChanged &&
      !field.typeChanged &&
      !field.currency &&
      field.pairs === totalPairs &&
      field.maxRelative <= READING_TOLERANCE;
    if (!candidate) continue;
    const id = `${field.parent}\u0000${field.writtenDecimals}`;
    let group = groups.get(id);
    if (group === undefined) groups.set(id, (group = []));
    group.push(field);
  }
  const families = new Map<string, ReadingFamily>();
  for (const group of groups.values()) {
    if (group.length < FAMILY_MEMBERS) continue;
    const moved = group.filter((f) => f.changed > 0 && f.maxRelative > 0);
    if (moved.length === 0) continue;
    // From three fetches or more (two pairs tell too little: an order book one of whose quantities
    // moved once), they moved like readings: two of them (a quote and its quantity), or one on two
    // fetches by varying amounts, or in several elements of a collection. An account's balances of
    // one format, one of which changed once in a longer history (a deposit), are no family: their
    // next change is reported.
    if (totalPairs >= 3 && moved.length < 2 && !moved.some((f) => (f.changed >= 2 && f.relatives.size >= 2) || f.valueChanges >= 3)) continue;
    const family: ReadingFamily = { members: group.length, decimals: group[0]!.writtenDecimals, moved: moved.length, maxRelative: Math.max(...moved.map((f) => f.maxRelative)) };
    for (const field of group) families.set(field.path, family);
  }
  return families;
}

/**
 * Whether a units object declares a unit for the field: a unit (`°C`, `km/h`), or the empty unit
 * for a number that is not an integer (`uv_index: ""`, a dimensionless reading; an integer
 * declared so is a flag or a code: `is_day: ""`).
 */
function unitDeclared(field: FieldStat): boolean {
  return field.context === "unit" || (field.context === "unitless" && !field.integers);
}

/** Digits after the decimal point of a number as written (`43371.39133522`: 8). */
function decimalsOf(value: number): number {
  // an integer has none (written without a point, or with an exponent: 1e+21)
  if (Number.isInteger(value)) return 0;
  const text = String(value);
  const dot = text.indexOf(".");
  return dot < 0 || text.includes("e") ? 0 : text.length - dot - 1;
}

/** A time or counter as a comparable number: ISO 8601 and HTTP dates, unix times, digit strings; else undefined. */
function timeValue(value: unknown): number | bigint | undefined {
  if (typeof value === "number") return value;
  if (typeof value !== "string") return undefined;
  if (/^\d{1,30}$/.test(value)) return BigInt(value);
  const shape = volatileStringShape(value);
  if (shape === "iso8601" || shape === "http_date") {
    const t = Date.parse(value);
    return Number.isNaN(t) ? undefined : t;
  }
  return undefined;
}

/** -1 when `b` is an earlier time or smaller counter than `a`, 1 when later, 0 when equal or not comparable. */
function ordered(a: unknown, b: unknown): number {
  if (typeof a === "number" && typeof b === "number") return b < a ? -1 : b > a ? 1 : 0;
  // Two UTC times written alike (`toISOString`, the usual clock): their text is in time order.
  if (typeof a === "string" && typeof b === "string" && a.length === b.length && isPlainUtcTime(a) && isPlainUtcTime(b)) return b < a ? -1 : b > a ? 1 : 0;
  const x = timeValue(a);
  const y = timeValue(b);
  if (x === undefined || y === undefined || typeof x !== typeof y) return 0;
  return y < x ? -1 : y > x ? 1 : 0;
}

/** Whether the two characters at `at` are digits making a number from `min` to `max`. */
function digitsAt(text: string, at: number, min: number, max: number): boolean {
  const tens = text.charCodeAt(at) - 48;
  const ones = text.charCodeAt(at + 1) - 48;
  if (tens < 0 || tens > 9 || ones < 0 || ones > 9) return false;
  const value = tens * 10 + ones;
  return value >= min && value <= max;
}

/**
 * `YYYY-MM-DDTHH:MM:SSZ`, with 1 to 3 decimals of a second or none, every part in a range valid in
 * every month (days 01 to 28; hours 00 to 23): a time `Date.parse` reads, and two of one length
 * compare as texts as they do as times (`ordered` takes them without parsing). Anything else
 * (a day 29 to 31, an offset, more decimals than milliseconds) is parsed.
 */
function isPlainUtcTime(text: string): boolean {
  const n = text.length;
  if (n !== 20 && (n < 22 || n > 24)) return false;
  if (!digitsAt(text, 0, 0, 99) || !digitsAt(text, 2, 0, 99)) return false;
  if (text.charCodeAt(4) !== 45 || !digitsAt(text, 5, 1, 12) || text.charCodeAt(7) !== 45 || !digitsAt(text, 8, 1, 28)) return false;
  if (text.charCodeAt(10) !== 84 || !digitsAt(text, 11, 0, 23) || text.charCodeAt(13) !== 58 || !digitsAt(text, 14, 0, 59) || text.charCodeAt(16) !== 58 || !digitsAt(text, 17, 0, 59)) return false;
  if (text.charCodeAt(n - 1) !== 90) return false;
  if (n === 20) return true;
  if (text.charCodeAt(19) !== 46) return false;
  for (let i = 20; i < n - 1; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** One significant digit, rounded up: 2.3e-7 becomes 3e-7. */
function roundUp(value: number): number {
  const exponent = 10 ** Math.floor(Math.log10(value));
  return Math.min(1, Number((Math.ceil(value / exponent - 1e-9) * exponent).toPrecision(1)));
}

/** A tolerance entry, with its absolute part when there is one. */
function toleranceRule(path: string, relative: number, absolute: number | undefined): ToleranceRule {
  return absolute === undefined ? { path, relative } : { path, absolute, relative };
}

/** Two significant digits, rounded up, not capped (an absolute tolerance): 1041.9 becomes 1100. */
function roundUpAbsolute(value: number): number {
  const exponent = 10 ** (Math.floor(Math.log10(value)) - 1);
  return Number((Math.ceil(value / exponent - 1e-9) * exponent).toPrecision(2));
}

function times(n: number): string {
  return n === 1 ? "once" : `${n} times`;
}

/** Member names of the time of one event (created, released, due): not a clock, however it moves. */
function isEventTimeName(name: string | undefined): boolean {
  return name !== undefined && /creat|publish|releas|start|end|due|expir|birth|open|clos|deadline|valid|since|until|sunset|deprec|schedul|effective|born|launch/i.test(name);
}

/** Member names of clocks: when the document was made, fetched or last updated (not when a thing was created or is due). */
function isClockName(name: string | undefined): boolean {
  if (name === undefined || isEventTimeName(name)) return false;
  return /updat|modif|generat|fetch|refresh|render|serv|now|current|as_?of|timestamp|^ts$|^time$|^date$|sync|check|seen|poll|last|changed|built|build|cache|indexed|computed|push|activ|login|heartbeat|ping/i.test(name);
}

/** Member names of counts that grow on their own: stars, forks, watchers, views, comments, sizes, totals, an uptime (a restart that resets it is reported). */
function isCountName(name: string | undefined): boolean {
  if (name === undefined) return false;
  // Not a bare `total`: an invoice's or an order's total is money (a price name) as often as a
  // search's is a count; it is learned once it moves. `checks_total` and `total_count` are counts.
  if (/^totals?$/i.test(name)) return false;
  return /(?:^|_|[a-z])(?:count|counts|total|totals|forks|stars|stargazers|watchers|subscribers|views|comments|downloads|reactions|followers|likes|hits|visits|size|network|issues|uptime)(?:$|_|[A-Z])|Count$|Total$|Uptime$/i.test(name);
}

/**
 * Member names of an identity, a code, a version, a state or a setting (`id`, `number`,
 * `weather_code`, `smr_version`, `status`, `mode`, `setpoint`, `targetTemperature`, `threshold`,
 * `limit`): numbers that are never readings, whatever moves beside them.
 */
function isSettingOrCodeName(name: string | undefined): boolean {
  if (name === undefined) return false;
  return (
    /(?:^|[_-])(?:id|ids|uid|number|num|no|version|ver|rev|revision|code|codes|status|state|mode|type|kind|index|idx|set_?point|target|threshold|limit|setting|offset|interval|schedule|preset|goal|alarm|trigger)(?:$|[_-])/i.test(name) ||
    /(?:Id|Ids|Uid|Number|Num|Version|Revision|Code|Status|State|Mode|Type|Kind|Index|Setpoint|SetPoint|Target|Threshold|Limit|Setting|Offset|Interval|Schedule|Preset|Goal|Alarm|Trigger)(?:$|[A-Z_])|^(?:target|setpoint|threshold|limit)[A-Z]/.test(name)
  );
}

/** Member names of readings that accumulate: a meter's energy, a consumption, an uptime. */
function isRunningTotalName(name: string | undefined): boolean {
  return name !== undefined && /(?:^|_|[a-z])(?:kwh|wh|mwh|energy|consumption|import|export|produced|production|delivered|uptime|odometer|lifetime)(?:$|_|[A-Z0-9])|(?:Kwh|KWh|Wh|Energy|Consumption|Import|Export|Uptime)$/i.test(name);
}

/**
 * Units of a physical reading written at the end of a member name: electrical (`active_power_w`,
 * `energy_import_kwh`, `reactive_power_l3_var`, `active_frequency_hz`), a signal (`wifi_rssi_db`),
 * air (`co2_ppm`, `pressure_hpa`), a speed (`fan_rpm`). Not mass, length, time, per cent or money:
 * a product's `weight_kg`, `width_mm`, a `timeout_s`, a `brightness_pct` are figures or settings.
 * The one-letter units (`_a`, `_v`, `_w`) only with a quantity beside them (`current_l1_a`,
 * `voltage_v`, `active_power_w`): `score_a` is not an ampere, an image's `thumb_w` is a width.
 */
const READING_UNIT = /(?:^|[_-])(?:kw|mw|gw|wh|kwh|mwh|gwh|va|kva|var|kvar|mv|kv|ma|hz|db|dbm|ppm|ppb|lux|hpa|kpa|mbar|rpm)$|(?:^|[_-])(?:power|load|solar|pv|grid|output|input|consumption|production|demand)(?:_[a-z0-9]+)*_w$|[a-z0-9](?:Kw|KW|Kwh|KWh|Wh|Hz|Dbm|DBm|Ppm|Lux|Hpa|Rpm)$/;
/** A signal strength by its name (`rssi`, `wifi_rssi_db`, `snr`): a reading before it moved. */
const SIGNAL_STRENGTH = /(?:^|[_-])(?:rssi|snr)(?:_dbm?)?$|(?:Rssi|RSSI|Snr|SNR)$|^(?:rssi|snr)$/;
/** A quantity measured by a device, as the last word of a member name (`currentBatteryVoltage`, `inputChargeCurrent`, `rssi`, `humidity`). */
const QUANTITIES = "power|voltage|current|rssi|snr|signal|strength|temperature|temp|humidity|pressure|frequency|irradiance|illuminance|radiation|co2|pm25|pm10|wind|gust|wind_speed|wind_gusts?|precipitation|rain|dew_?point|uv|uv_index|cloud_?cover|battery|load|cpu";
const READING_QUANTITY = new RegExp(
  `(?:^|[_-])(?:power_?factor|${QUANTITIES})(?:_(?:l\\d|phase\\d|\\d))?(?:_(?:a|v|w|c|f))?$|[a-z0-9](?:PowerFactor|Power|Voltage|Current|Rssi|RSSI|Snr|SNR|Signal|Strength|Temperature|Temp|Humidity|Pressure|Frequency|Irradiance|Illuminance|Radiation|WindSpeed|Gust|Gusts|Precipitation|Rain|DewPoint|UvIndex|CloudCover|Battery|Load|Cpu|CPU)$|^(?:${QUANTITIES})$`,
);
/**
 * Readings as weather stations upload them (the Weather Underground protocol that Ambient Weather
 * and Ecowitt stations use: the quantity and its unit run together, `tempf`, `windspeedmph`,
 * `baromrelin`, `dailyrainin`, `solarradiation`), and electrical shorthand (`v_out`, `i_in`,
 * `p_out`, `f_out`: a battery block's voltage, current, power and frequency; an inverter's
 * `P_Grid`, `P_Load`, `E_Year`: power and energy by the letter of their quantity).
 */
const RUN_TOGETHER_READING = /^(?:temp\d?f|temp\d?c|tempinf|tempinc|dewpt?f|dewpoint\w*|windchillf|feelslike\w*|windspeed\w*|windgust\w*|maxdailygust|windspdmph\w*|winddir\w*|barom\w*in|baromin|baromhpa|humidityin|humidity\d|(?:hourly|daily|weekly|monthly|yearly|event|total)rain\w*|rainin|rainratein|solarradiation|uv|pm25\w*|pm10\w*|co2\w*)$|^(?:v|i|p|q|f|s)_(?:out|in)$|^(?:P|E|U|I)_[A-Z][A-Za-z]*$/;

/** Names of a device's or product's rated figure, not a reading: `max_power_w`, `rated_voltage`, `capacity_kwh`, a `nominal` value, a `peak_limit`. */
const RATED_FIGURE = /max|min|rated|nominal|capacity|default|limit|target|threshold|setpoint|set_?point|spec|brightness/i;

/** A generic `value` whose unit member names the unit of a physical reading (`{ "Value": 232.1, "Unit": "V" }`): a reading by its unit. */
function unitMemberReading(field: FieldStat): boolean {
  return field.memberUnit !== undefined && READING_UNIT_TEXT.test(field.memberUnit);
}

/** Numbers, null in some elements of a collection at most (a battery block that reports none): judged by its numbers. */
function numbersOrNull(field: FieldStat): boolean {
  return field.types.has("number") && (field.types.size === 1 || (field.types.size === 2 && field.types.has("null")));
}

/** A `unit` member beside a generic `value` member: the unit it names, or "". */
function memberUnitOf(object: JsonObject, name: string): string {
  if (!/^(?:value|val)$/i.test(name)) return "";
  for (const key of ["unit", "Unit", "units", "Units", "unit_of_measurement", "unitOfMeasurement", "uom"]) {
    const unit = object[key];
    if (typeof unit === "string") return unit.trim();
  }
  return "";
}

/** Units of a physical reading as a unit member writes them: electrical, a signal, air, a temperature, a speed. */
const READING_UNIT_TEXT = /^(?:m?A|[mk]?V|[kMG]?W|[kMG]?Wh|k?VA|k?var|k?VAr|Hz|dBm?|°\s?[CF]|ppm|ppb|µg\/m³|ug\/m3|hPa|kPa|mbar|lux|lx|rpm|m\/s|km\/h|mph)$/;

/** A reading by its name; a non-integer `level` too (a battery's or a tank's level, not a log or access level). */
function isNamedReadingByName(field: FieldStat): boolean {
  return unitMemberReading(field) || isReadingName(field.name) || (!field.integers && field.name !== undefined && /(?:^|[_-])level$|[a-z]Level$/.test(field.name) && !RATED_FIGURE.test(field.name));
}

/** A bid, an ask, a last trade or a volume by its words (`bidPrice`, `lowestAsk`, `last_trade_price`, `quoteVolume`), not inside other words (a `basketPrice`, a `task`). */
const QUOTE_ANCHOR = /^(?:bid|ask|last|volume|vol|trade)(?:$|[_A-Z0-9])|[a-z](?:Bid|Ask|Last|Volume|Trade)(?:$|[A-Z_])|_(?:bid|ask|last|volume|trade)(?:$|_)/;

/** A market's own words (a bid, an ask, a last trade, high, low, open, close, a volume): a ticker has two of them at least; `base_price`, `best_price`, `deal_price` beside a `last_price` are a shop's. */
const MARKET_WORD = /^(?:bid|ask|last|high|low|open|opening|close|closing|prev_?close|prev_?closing|volume|vol|vwap|lowest|highest)(?:$|[_A-Z0-9])|[a-z](?:Bid|Ask|Volume|Vwap)$/;

/** A bid and an ask side by side (`bid`/`ask`, `bidPrice`/`askPrice`, `highestBid`/`lowestAsk`): an order book's top, a market's quotes even before any of them moved. */
function bidAndAsk(list: readonly FieldStat[]): boolean {
  const names = list.map((f) => f.name ?? "");
  return names.some((n) => /^bid(?:$|[_A-Z])|[a-z]Bid$|_bid$/.test(n)) && names.some((n) => /^ask(?:$|[_A-Z])|[a-z]Ask$|_ask$/.test(n));
}

/** Member names of a market's quotes: `bid`, `askPrice`, `lowestAsk`, `last_price`, `high`, `low`, `open`, `close`, `volume`, `quoteVolume`, `vwap`, `change`, `trade_volume`, `acc_trade_price_24h`. */
function isQuoteName(name: string | undefined): boolean {
  return (
    name !== undefined &&
    /^(?:bid|ask|last|high|low|open|close|opening|closing|prev_?close|prev_?closing|volume|vol|vwap|change|deal|trade|acc_trade|signed_change|lowest|highest|weighted_?avg|quote|base|best|rate|previous_?rate|previous_?close)(?:[_A-Z][A-Za-z0-9_]*)?$|[a-z](?:Bid|Ask|Volume|Vwap)$/.test(name) &&
    !isSettingOrCodeName(name) &&
    !/(?:^|_)(?:time|date|count|id|size|step|tick|min|max|limit|updated?|seen)|(?:Time|Date|Count|Id|Size|Step|Tick|Min|Max|Limit|Updated?|Seen)|_at$|[a-z]At$/.test(name)
  );
}

/** A throughput by its unit of time (`RequestsPerSec`, `docs_per_second`, `writes_per_min`, `bytesPerSecond`): a reading. */
const PER_TIME = /(?:^|[_-])per_(?:s|sec|second|min|minute)$|[a-z0-9]Per(?:Sec|Second|Min|Minute)$/;

/** A unit after `per` (`rate_per_kwh`, `pricePerKwh`): the denominator of a rate (a tariff, money per unit), not a reading's unit. */
const PER_UNIT = /(?:^|[_-])per[_-][a-z0-9]+$|[a-z0-9]Per[A-Z][A-Za-z0-9]*$/;

/** Whether the member name says it holds a physical reading (a unit of one, or a quantity a device measures), not a rated figure or a setting. */
function isReadingName(name: string | undefined): boolean {
  if (name === undefined || RATED_FIGURE.test(name) || isPriceName(name)) return false;
  // a throughput (per second or minute) is a reading, not a tariff's denominator, whatever words
  // come before its unit (`MapReduceIndexReducedPerSec`: reduced per second, not an index)
  if (PER_TIME.test(name)) return true;
  if (isSettingOrCodeName(name)) return false;
  if (PER_UNIT.test(name)) return false;
  return READING_UNIT.test(name) || READING_QUANTITY.test(name) || RUN_TOGETHER_READING.test(name) || /(?:^|[_-])(?:current|voltage|power)(?:_[a-z0-9]+)*_(?:a|v)$/i.test(name);
}

/**
 * Meter readings that only go up by name: an energy or a gas volume imported, exported, delivered,
 * produced or in total, with its unit (`total_power_import_kwh`, `total_gas_m3`, `energy_export_wh`).
 * Not a product's `energy_consumption_kwh` (a figure of the product).
 */
function isMeterTotalName(name: string | undefined): boolean {
  return name !== undefined && !RATED_FIGURE.test(name) && /(?:import|export|deliver|produc|total|lifetime|meter)/i.test(name) && /(?:^|[_-])(?:wh|kwh|mwh|gwh|m3|gj)$|(?:Wh|Kwh|KWh|M3)$/.test(name);
}

/** Suggests a policy for an api monitor from parsed samples, oldest first. */
export function suggestJsonPolicy(samples: readonly Json[]): PolicySuggestion {
  const learner = new JsonLearner(samples);
  learner.run();
  const totalPairs = samples.length - 1;
  const volatile: VolatileRule[] = [];
  const tolerance: ToleranceRule[] = [];
  const unordered: string[] = [];
  const arrayKeys: Record<string, string> = {};
  const evidence: PolicyEvidence[] = [];
  const severityPaths: SeverityEntry[] = [];
  const often = (changed: number, pairs: number): boolean => changed >= Math.min(2, pairs) && changed * 2 >= pairs;

  for (const array of learner.arrays.values()) {
    if (array.key !== undefined && array.maxLength >= 2) {
      arrayKeys[array.path] = array.key;
      const reason =
        array.reordered > 0
          ? `array reordered ${times(array.reordered)}, elements unique by \`${array.key}\``
          : `elements unique by \`${array.key}\` in all ${samples.length} samples`;
      evidence.push({ kind: "arrayKey", rule: `arrayKeys[${JSON.stringify(array.path).replace(/^"|"$/g, "'")}]`, path: array.path, changed: array.reordered, pairs: array.pairs, reason });
    } else if (array.key === undefined && array.reordered > 0) {
      unordered.push(array.path);
      evidence.push({
        kind: "unordered",
        rule: `unordered[${unordered.length - 1}]`,
        path: array.path,
        changed: array.reordered,
        pairs: array.pairs,
        reason: `array reordered ${times(array.reordered)} with the same elements`,
      });
    }
    if (array.pairs === totalPairs && !array.elementRemoved && array.maxLength > 0 && (array.key !== undefined || (array.reordered === 0 && !array.membershipChanged))) {
      severityPaths.push(
        array.tuple
          ? {
              path: array.path,
              parent: array.path,
              op: "remove",
              shape: "tuple",
              severity: "critical",
              reason: `positional record of ${array.maxLength} values in all ${samples.length} samples: a removed element (every later value moves up, as a member removed) is rated critical`,
            }
          : { path: array.path, parent: array.path, op: "remove", shape: "array", reason: `array stable in all ${samples.length} samples: a removed element is rated medium` },
      );
    }
  }

  // A number beside a time reads as a measurement only when that time moved within the samples
  // (an observation's clock): beside a time that stood still (a product's `updated_at`, a rate's
  // `effective_date`) it is as often a figure of the product.
  const clockMoved = (field: FieldStat): boolean => (learner.timeMembers.get(field.parent) ?? []).some((path) => (learner.fields.get(path)?.changed ?? 0) > 0);
  const families = readingFamilies(learner.fields.values(), totalPairs);
  const objects = readingObjects(learner.fields.values(), totalPairs);
  const live = liveDocument(learner.fields.values());
  const jitterMovers = live ? liveJitterMovers(learner.fields.values()) : new Map<string, FieldStat[]>();
  // Objects that hold money (a member named like a price): a bill, a quote, a product; an energy total there is a figure, not a meter's.
  const moneyParents = new Set<string>();
  for (const f of learner.fields.values()) if (f.priceName) moneyParents.add(f.parent);
  // Readings by name (isReadingName, isMeterTotalName) that moved, by object: a device's object
  // whose readings move shows that its other readings are live too, on slower clocks of their own.
  const movedReadings = new Map<string, Set<string>>();
  // A quantity beside its measured twin (`temperature` beside `current_temperature`, Home Assistant's
  // climate entity) is the value it is set to: a setting, not a reading.
  const setValues = new Set<string>();
  for (const f of learner.fields.values()) {
    if (f.name === undefined) continue;
    const upper = f.name.charAt(0).toUpperCase() + f.name.slice(1);
    if (["current", "actual", "measured"].some((w) => learner.fields.has(f.parent + formatSegment(`${w}_${f.name}`)) || learner.fields.has(f.parent + formatSegment(`${w}${upper}`)))) setValues.add(f.path);
  }
  const isNamedReading = (f: FieldStat): boolean => !setValues.has(f.path) && isNamedReadingByName(f);
  // Blocks of readings named with their units: an object (for `{ Value, Unit }` members, the object
  // that holds them) with three numbers or more named with the unit of a reading, and no money. A
  // unit in one name alone (a car's `power_kw`, a monitor's `refresh_rate_hz`, a radio's
  // `tx_power_dbm`) is as often a product's figure or a setting.
  const unitGroup = (f: FieldStat): string => (unitMemberReading(f) ? (learner.objectParents.get(f.parent) ?? f.parent) : f.parent);
  const unitReadings = new Map<string, number>();
  for (const f of learner.fields.values())
    if (numbersOrNull(f) && (READING_UNIT.test(f.name ?? "") || unitMemberReading(f))) unitReadings.set(unitGroup(f), (unitReadings.get(unitGroup(f)) ?? 0) + 1);
  const unitBlock = (f: FieldStat): boolean => (READING_UNIT.test(f.name ?? "") || unitMemberReading(f)) && (unitReadings.get(unitGroup(f)) ?? 0) >= 3 && !moneyParents.has(f.parent) && !moneyParents.has(unitGroup(f));
  for (const f of learner.fields.values()) {
    if (f.changed > 0 && numbersOrNull(f) && !f.currency && (isNamedReading(f) || isMeterTotalName(f.name))) {
      let moved = movedReadings.get(f.parent);
      if (moved === undefined) movedReadings.set(f.parent, (moved = new Set()));
      moved.add(f.path);
    }
  }
  // Tickers: an object with three members named like market quotes or more (`bid`, `ask`, `last`,
  // `high`, `low`, `open`, `volume`, `vwap`, `change`, `lowestAsk`, `trade_price`, `acc_trade_volume_24h`),
  // one of them a bid, an ask, a last trade or a volume, some of which moved: its quotes are
  // readings of a market on a clock of its own.
  const quoteFields = new Map<string, FieldStat[]>();
  for (const f of learner.fields.values()) {
    if (!isQuoteName(f.name) || f.presenceChanged || f.typeChanged || f.types.size !== 1 || f.currency) continue;
    if (!(f.types.has("number") || (f.types.has("string") && f.numericStrings && !f.digitStrings))) continue;
    let list = quoteFields.get(f.parent);
    if (list === undefined) quoteFields.set(f.parent, (list = []));
    list.push(f);
  }
  const tickers = new Set<string>();
  for (const [parent, list] of quoteFields)
    if (list.length >= 3 && list.some((f) => QUOTE_ANCHOR.test(f.name ?? "")) && list.filter((f) => MARKET_WORD.test(f.name ?? "")).length >= 2 && (list.some((f) => f.changed > 0) || bidAndAsk(list))) tickers.add(parent);
  const quoteOf = (field: FieldStat): boolean => tickers.has(field.parent) && (quoteFields.get(field.parent) ?? []).includes(field) && field.maxRelative <= READING_TOLERANCE;
  /** A measurement learned with a tolerance, and its evidence. */
  const measuredTolerance = (field: FieldStat, relative: number, reason: string, absolute?: number): void => {
    tolerance.push(toleranceRule(field.path, relative, absolute));
    evidence.push({ kind: "tolerance", rule: `tolerance[${tolerance.length - 1}]`, path: field.path, changed: field.changed, pairs: field.pairs, shape: "measurement", reason });
  };
  const quote = (field: FieldStat): void => {
    measuredTolerance(
      field,
      READING_TOLERANCE,
      `${field.changed > 0 ? `changed in ${field.changed} of ${field.pairs} fetches by at most ${(field.maxRelative * 100).toPrecision(2)} %` : `stable in all ${samples.length} samples`}; one of ${(quoteFields.get(field.parent) ?? []).length} quotes of a ticker (bid, ask, last, high, low, volume, ...), some of which moved: a quote on the market's clock, a move of up to ${READING_TOLERANCE * 100} % is noise, a larger one is reported`,
    );
    // a price beyond its tolerance is rated medium, as a family's
    if (isPriceName(field.name) || field.meaningful === "price")
      severityPaths.push({ path: field.path, parent: field.parent, op: "replace", shape: "price", reason: `a quoted price (${field.changed > 0 ? `changed in ${field.changed} of ${field.pairs} fetches` : "stable"}) within its tolerance: a change beyond it is rated medium`, ...(field.changed > 0 ? { kept: true, changed: field.changed } : {}) });
  };
  /**
   * Another reading by name moved in the same object. In an object that holds money (a product, an
   * offer), one figure edited once (a charger's `power`) does not make its siblings live: two
   * readings moved (this one or others), or another on two fetches or more.
   */
  const liveReadings = (field: FieldStat): boolean => {
    const moved = movedReadings.get(field.parent);
    if (moved === undefined) return false;
    const others = [...moved].filter((path) => path !== field.path);
    if (others.length === 0) return false;
    return !moneyParents.has(field.parent) || moved.size >= 2 || others.some((path) => (learner.fields.get(path)?.changed ?? 0) >= 2);
  };
  /** A number named as a physical reading, of one type all along, not money: a reading on a clock of its own. */
  const namedReading = (field: FieldStat): boolean =>
    numbersOrNull(field) && !field.presenceChanged && !field.typeChanged && !field.currency && !(field.integers && field.unixTimes) && isNamedReading(field);
  /**
   * Moves enough to learn the absolute part of a reading's tolerance from: two or more, by varying
   * amounts (relative ones; or, for a reading by its name, absolute ones: a grid-services power
   * that went 0 -> 0.5 -> 0 -> -0.3 moved by 100 % each time). Integers only when named as a
   * reading (a power in whole watts): small integers that went 0, 1, 2, 0 are a code or a count of
   * faults as often, whose every step matters.
   */
  const absoluteEvidence = (field: FieldStat): boolean =>
    field.changed >= 2 &&
    field.maxAbsolute > 0 &&
    (!field.integers || namedReading(field)) &&
    (field.relatives.size >= 2 || (field.absolutes.size >= 2 && namedReading(field)));
  /**
   * The relative move a reading is judged by: one that moved to, from or across 0 (a temperature in
   * °C in winter, a grid power that flips sign), with the evidence of its absolute moves, by its
   * moves between values of one sign; a move to, from or across 0 is one of 100 % or more however
   * small it is, and the absolute part of its tolerance takes it in.
   */
  const movedBy = (field: FieldStat): number => (field.crossedZero && absoluteEvidence(field) ? field.maxSameSignRelative : field.maxRelative);
  /**
   * The absolute part of a reading's tolerance: its largest move seen times `margin` (undefined
   * without the evidence). Numbers within it are equal whatever their sign, so moves near and
   * across 0 as large as the reading made are noise; it never hides a move larger than the largest
   * seen times the margin, and above absolute / relative the relative part is the wider one. Only
   * for a reading seen near 0 (some value it moved from or to was below absolute / relative, where
   * the absolute part is the wider): far from 0 (a pressure in hPa) it would add nothing.
   */
  const absoluteOf = (field: FieldStat, margin: number, relative: number): number | undefined => {
    if (!absoluteEvidence(field)) return undefined;
    const absolute = roundUpAbsolute(field.maxAbsolute * margin);
    return absolute > relative * field.minMagnitude ? absolute : undefined;
  };
  /** The absolute part in words, for the evidence's reason ("" without one). */
  const absoluteWords = (field: FieldStat, absolute: number | undefined, margin: number): string =>
    absolute === undefined
      ? ""
      : `; and a move of up to ${absolute} (its largest move, ${Number(field.maxAbsolute.toPrecision(3))}, x${margin}) is noise whatever the size of the value${field.crossedZero ? " (it moved to, from or across 0, where a relative tolerance means little)" : " (near 0 a relative tolerance means little)"}`;
  /** Its name says it is a reading on its own (a signal strength), or it is one of a device's block of readings named with their units (see unitBlock). */
  const selfEvident = (field: FieldStat): boolean => SIGNAL_STRENGTH.test(field.name ?? "") || unitBlock(field);
  /**
   * Why a number named as a physical reading (namedReading) is taken for one, as its reason says
   * it: another reading in its object moved (liveReadings), or its name alone says so
   * (selfEvident). Undefined when it is not named so, or neither holds.
   */
  const readingByNameGround = (field: FieldStat): string | undefined => {
    if (!namedReading(field)) return undefined;
    if (liveReadings(field)) return "beside readings that moved";
    return selfEvident(field) ? "by its name alone (a signal strength, or one of a device's block of readings named with their units)" : undefined;
  };
  /** A reading by name: `seen` (what the samples showed of it) and `ground` (readingByNameGround). */
  const readingByName = (field: FieldStat, seen: string, ground: string): void => {
    const absolute = absoluteOf(field, ABSOLUTE_MARGIN, MAX_READING_TOLERANCE);
    measuredTolerance(
      field,
      MAX_READING_TOLERANCE,
      `${seen} named as a physical reading ${ground}: a reading on a clock of its own, a move of up to ${MAX_READING_TOLERANCE * 100} % (to half or double) is noise${absoluteWords(field, absolute, ABSOLUTE_MARGIN)}, a larger one is reported`,
      absolute,
    );
  };
  /** The reading object a number kept so far belongs to (see readingObjects). */
  // Not an integer that never moved (an id, an issue's number, a code, a version, a count of
  // phases: `$.id` of a GitHub repository beside its moving counts, Open-Meteo's `weather_code`),
  // nor a member named like an identity, a code, a state or a setting (a thermostat's `setpoint`,
  // a `threshold`): a move of a few per cent of those is a real change.
  const readingObjectOf = (field: FieldStat): ReadingFamily | undefined =>
    field.types.size === 1 &&
    field.types.has("number") &&
    !field.presenceChanged &&
    !field.typeChanged &&
    !field.currency &&
    !isPriceName(field.name) &&
    !(field.integers && field.unixTimes) &&
    !(field.integers && field.changed === 0) &&
    !isSettingOrCodeName(field.name) &&
    movedBy(field) <= MAX_OBJECT_MOVE
      ? objects.get(field.parent)
      : undefined;
  const familyTolerance = (field: FieldStat, family: ReadingFamily): void => {
    const moves = movedBy(field);
    const relative = family.object === true && moves > 0 ? Math.max(READING_TOLERANCE, roundUp(moves * 2)) : READING_TOLERANCE;
    // (a reading object's member only: a family of decimal strings is an order book's, whose tick size changed tenfold is reported)
    const absolute = family.object === true ? absoluteOf(field, 2, relative) : undefined;
    const moved = field.changed > 0 ? `changed in ${field.changed} of ${field.pairs} fetches by at most ${(field.maxRelative * 100).toPrecision(2)} %` : `stable in all ${samples.length} samples`;
    measuredTolerance(
      field,
      relative,
      family.object === true
        ? `${moved}; one of ${family.members} sibling numbers, ${family.moved} of which moved like readings (on two fetches or more, by varying amounts): a reading on a slower clock of its own, a move of up to ${Math.round(relative * 100)} % is noise${absoluteWords(field, absolute, 2)}, a larger one is reported`
        : `${moved}; one of ${family.members} sibling decimals written with ${family.decimals} decimals, ${family.moved} of which moved by at most ${(family.maxRelative * 100).toPrecision(2)} % (a family of readings: a quote and its quantities): a move of up to ${READING_TOLERANCE * 100} % is noise, a larger one (a tick size x10) is reported`,
      absolute,
    );
  };
  for (const field of learner.fields.values()) {
    const { changed, pairs } = field;
    const kept = (shape: string | undefined, reason: string): void => {
      const entry: PolicyEvidence = { kind: "kept", path: field.path, changed, pairs, reason };
      if (shape !== undefined) entry.shape = shape;
      evidence.push(entry);
    };
    if (changed === 0) {
      const meaningful = field.meaningful;
      const nonNull = [...field.types].filter((t) => t !== "null");
      const stable = !field.presenceChanged && !field.typeChanged && pairs === totalPairs && field.types.size === 1;
      // a price or status that is null in some elements is still rated when it changes
      const nullable = !field.presenceChanged && !field.typeChanged && pairs === totalPairs && nonNull.length === 1 && field.types.size === 2;
      // a flag that is `false` or the text of its reason (PEP 592's `yanked`, a `deprecated` notice): a flag
      if (!field.presenceChanged && !field.typeChanged && pairs === totalPairs && flagOrReason(field)) {
        severityPaths.push({ path: field.path, parent: field.parent, op: "replace", shape: "boolean", reason: `stable in all ${samples.length} samples and a boolean or the text of its reason: a value change is rated medium` });
        continue;
      }
      if (nullable && (isPriceName(field.name) || (meaningful !== undefined && meaningful !== "none" && meaningful !== "word"))) {
        const shape = isPriceName(field.name) ? "price" : meaningful!;
        severityPaths.push({ path: field.path, parent: field.parent, op: "replace", shape, reason: `stable in all ${samples.length} samples (null in some) and ${describeShape(shape)}: a value change is rated medium` });
        continue;
      }
      if (stable && quoteOf(field)) {
        quote(field);
        continue;
      }
      const only = field.types.size === 1 ? [...field.types][0] : undefined;
      const timeShaped =
        ((only === "string" || (nullable && nonNull[0] === "string")) &&
          (field.volatileShape === "iso8601" || field.volatileShape === "http_date" || field.volatileShape === "unix_time")) ||
        (only === "number" && field.integers && field.unixTimes);
      // Priors for what did not move yet: a clock, a count, a server timing. A clock or count is
      // noise while it moves forward (it goes back: reported); a timing early in a monitor's life.
      if ((stable || nullable) && timeShaped && isClockName(field.name)) {
        volatile.push({ path: field.path, forward: true });
        evidence.push({ kind: "volatile", rule: `volatile[${volatile.length - 1}]`, path: field.path, changed, pairs, shape: "clock", reason: `stable in all ${samples.length} samples, but ${describeShape(field.volatileShape === "none" || field.volatileShape === undefined ? "unix_time" : field.volatileShape)} named like a clock: noise while it moves forward` });
        continue;
      }
      // (in a device's block of readings named with their units, or beside readings that moved: an
      // energy total elsewhere - a bill's `bill_total_kwh` beside its cost, a solar quote's
      // `annual_production_kwh` - is a figure, not a meter's)
      if (stable && only === "number" && isMeterTotalName(field.name) && ((unitReadings.get(field.parent) ?? 0) >= 3 || liveReadings(field)) && !moneyParents.has(field.parent)) {
        volatile.push({ path: field.path, forward: true });
        evidence.push({ kind: "volatile", rule: `volatile[${volatile.length - 1}]`, path: field.path, changed, pairs, shape: "counter", reason: `stable in all ${samples.length} samples, but named like a meter's running total (an energy or volume with its unit): noise while it goes up` });
        continue;
      }
      // (a unit in one name alone is not enough: a car's `power_kw`, a power bank's `output_w`, a
      // radio's `tx_power_dbm` are figures and settings; a signal strength, or one of a device's block
      // of readings named with their units, is a reading)
      const byName = stable ? readingByNameGround(field) : undefined;
      if (byName !== undefined) {
        readingByName(field, `stable in all ${samples.length} samples, but`, byName);
        continue;
      }
      // (not an energy or a volume with its unit, `bill_total_kwh`: a meter's, judged above, or a bill's figure)
      if (stable && only === "number" && field.integers && isCountName(field.name) && !isPriceName(field.name) && !isMeterTotalName(field.name)) {
        volatile.push({ path: field.path, forward: true });
        evidence.push({ kind: "volatile", rule: `volatile[${volatile.length - 1}]`, path: field.path, changed, pairs, shape: "counter", reason: `stable in all ${samples.length} samples, but named like a count: noise while it goes up` });
        continue;
      }
      // A reading that did not move yet (a sensor updated every few minutes): a number whose unit a
      // units object declares (`current` / `current_units`) is noise from the start (a removal, a
      // null or a type change is still reported; prices keep their medium rule). Any other stable
      // number is kept until it moved: nothing else tells a reading from a figure of the product.
      const reading = stable && !isPriceName(field.name) && (only === "number" || (only === "string" && field.numericStrings && !field.digitStrings));
      if (reading && unitDeclared(field)) {
        volatile.push({ path: field.path });
        evidence.push({ kind: "volatile", rule: `volatile[${volatile.length - 1}]`, path: field.path, changed, pairs, shape: "measurement", reason: `stable in all ${samples.length} samples, but a number whose unit a units object declares: ${describeShape("measurement")}` });
        continue;
      }
      if (reading && only === "number" && !field.integers && field.context === "time" && clockMoved(field)) {
        measuredTolerance(field, READING_TOLERANCE, `stable in all ${samples.length} samples, but a non-integer beside a time that moved (a reading on a clock of its own): a move of up to ${READING_TOLERANCE * 100} % is noise`);
        continue;
      }
      const family = families.get(field.path) ?? readingObjectOf(field);
      if (stable && family !== undefined) {
        familyTolerance(field, family);
        if (meaningful === "price" || meaningful === "version" || isPriceName(field.name)) {
          const shape = isPriceName(field.name) ? "price" : meaningful!;
          severityPaths.push({ path: field.path, parent: field.parent, op: "replace", shape, reason: `stable in all ${samples.length} samples and ${describeShape(shape)}: a change beyond its tolerance is rated medium` });
        }
        continue;
      }
      if (stable && only === "number" && isDurationName(field.name) && pairs < 3) {
        volatile.push({ path: field.path });
        evidence.push({ kind: "volatile", rule: `volatile[${volatile.length - 1}]`, path: field.path, changed, pairs, shape: "duration", reason: `stable in ${samples.length} samples only, but named like ${describeShape("duration")}` });
        continue;
      }
      // values pooled over an array's elements, mostly enum-like (see pooledEnumLike)
      if (stable && only === "string" && pooledEnumLike(field)) {
        severityPaths.push({
          path: field.path,
          parent: field.parent,
          op: "replace",
          shape: "enum",
          reason: `stable in all ${samples.length} samples and, over its array's elements, mostly ${describeShape("enum")}s or short words: a value change is rated medium`,
        });
        continue;
      }
      if (stable && meaningful !== undefined && meaningful !== "none") {
        severityPaths.push({
          path: field.path,
          parent: field.parent,
          op: "replace",
          shape: meaningful,
          reason: `stable in all ${samples.length} samples and ${describeShape(meaningful)}: a value change is rated medium`,
        });
      }
      continue;
    }
    const changedIn = `changed in ${changed} of ${pairs} fetches`;
    const nonNullTypes = [...field.types].filter((t) => t !== "null");
    if (field.typeChanged || (field.types.size > 1 && nonNullTypes.length !== 1)) {
      const reason = `kept: ${changedIn} but its type changed (${[...field.types].join(", ")})`;
      // a nullable price or status is still a price or status
      const shape = isPriceName(field.name) ? "price" : flagOrReason(field) ? "boolean" : field.meaningful;
      if (shape === "price" || shape === "enum" || shape === "boolean" || shape === "version") {
        kept(shape, reason);
        severityPaths.push({ path: field.path, parent: field.parent, op: "replace", shape, reason: `${describeShape(shape)} that changed (${changedIn}): a value change is rated medium`, kept: true, changed });
      } else kept(undefined, reason);
      continue;
    }
    // null in some elements only: judged by the other type (a change to null is still reported)
    const type = nonNullTypes[0] ?? [...field.types][0];
    const vShape = field.volatileShape;
    const learned = (shape: string, reason: string, entry: Omit<VolatileRule, "path"> = {}): void => {
      volatile.push({ path: field.path, ...entry });
      evidence.push({ kind: "volatile", rule: `volatile[${volatile.length - 1}]`, path: field.path, changed, pairs, shape, reason: `${changedIn}, ${reason}` });
    };
    // A meaningful value that changes is still rated medium: a status, a boolean, a price, a version.
    const keptMeaningful = (shape: string, reason: string): void => {
      kept(shape, reason);
      severityPaths.push({ path: field.path, parent: field.parent, op: "replace", shape, reason: `${describeShape(shape)} that changed (${changedIn}): a value change is rated medium`, kept: true, changed });
    };
    const numericString = type === "string" && field.numericStrings && !field.digitStrings;
    if (type === "string" && !numericString) {
      // A coarse clock ticks less often than the monitor fetches, but more than once, and only forward.
      const clock = (vShape === "iso8601" || vShape === "http_date" || vShape === "unix_time") && field.forward;
      if (vShape !== undefined && vShape !== "none" && often(changed, pairs)) {
        learned(vShape, `always ${describeShape(vShape)}`);
        continue;
      }
      // Volatile later: a value that stood still (`"pending"`, a fixed token) and then changed on
      // every fetch since, three at least, each time to a new value of one volatile shape (a
      // token, a time): judged from its first change on, not held back by the value it had before
      // until that value leaves the samples.
      const toShape = field.changedToShape;
      const laterTime = toShape === "iso8601" || toShape === "http_date" || toShape === "unix_time";
      if (toShape !== undefined && toShape !== "none" && changed >= 3 && field.pairs === totalPairs && changed === totalPairs - field.firstChangedPair && field.recurred === 0 && !(laterTime && isEventTimeName(field.name))) {
        // Only values of its new shape are noise: a return to its earlier value (another shape), or a time that goes back, is reported.
        if (laterTime && field.forward) learned(toShape, `since it first changed (on every fetch since), always to a later ${describeShape(toShape)} (its earlier value was of another shape; a time that goes back is reported)`, { forward: true });
        else learned(toShape, `since it first changed (on every fetch since), always to ${describeShape(toShape)} (its earlier value was of another shape; only its volatile parts may change)`, { parts: true });
        continue;
      }
      if (clock && !isEventTimeName(field.name)) {
        learned(vShape!, `always ${describeShape(vShape!)}, only forward: a clock coarser than the fetches (a value that goes back is reported)`, { forward: true });
        continue;
      }
      if (field.digitStrings && field.forward && (often(changed, pairs) || changed >= 2)) {
        learned("counter", "digits that only went up: a counter or resource version (a value that goes back is reported)", { forward: true });
        continue;
      }
      const meaningful = field.meaningful;
      const isMeaningful = meaningful !== undefined && meaningful !== "none";
      if (!field.skeletonChanged && !field.currency && meaningful !== "price" && meaningful !== "version" && (often(changed, pairs) || field.recurred > 0)) {
        learned(field.recurred > 0 ? "rotating" : "parts", "only in numbers, times and identifiers (the rest of the text is kept)", { parts: true });
        continue;
      }
      // Whole values of one machine-made format that never repeat (no stable part to keep).
      const machineMade = field.identifiers || (field.sameLength && field.digits && !field.spaces && field.meaningful !== "version");
      if (machineMade && often(changed, pairs) && field.recurred === 0) {
        learned("token", "always an identifier, token or cursor, never repeating");
        continue;
      }
      if (vShape !== undefined && vShape !== "none") {
        kept(vShape, `kept: ${changedIn} only; ${describeShape(vShape)}, but too rarely to call it noise`);
        continue;
      }
      if (isMeaningful) {
        const distinct = field.distinct.size >= MAX_DISTINCT ? `${MAX_DISTINCT} or more` : String(field.distinct.size);
        if (meaningful === "word" && field.distinct.size > 5) kept(meaningful, `kept: ${changedIn} but looks like ${describeShape(meaningful)} (${distinct} distinct values)`);
        else keptMeaningful(meaningful, `kept: ${changedIn} but looks like ${describeShape(meaningful)} (${distinct} distinct values)`);
      } else if (pooledEnumLike(field)) keptMeaningful("enum", `kept: ${changedIn} but, over its array's elements, mostly ${describeShape("enum")}s or short words`);
      else kept("text", `kept: ${changedIn} but has no volatile shape`);
      continue;
    }
    if ((type === "number" || numericString) && quoteOf(field) && !(changed >= 2 && changed * 3 >= pairs * 2)) {
      // (one that moves on most fetches is a measurement, below)
      quote(field);
      continue;
    }
    if (type === "number" || numericString) {
      const mostly = changed >= 2 ? changed * 3 >= pairs * 2 : pairs === 1 && changed === 1 && !field.integers;
      const byName = readingByNameGround(field);
      const liveReading = live && !field.integers && liveMover(field) && movedLikeLiveReading(field, movedBy(field), jitterMovers);
      const price = isPriceName(field.name);
      // Measured by its surroundings (a declared unit, a time beside it) or its writing (six
      // decimals or more, moved twice by varying amounts): a reading on a clock of its own moves
      // on some fetches only. A decimal string that changed once (a tick size) is kept.
      const quoted = numericString && field.writtenDecimals >= 6 && field.writtenDecimals !== Number.POSITIVE_INFINITY && changed >= 2 && field.relatives.size >= 2;
      const reading = !price && !field.currency && (unitDeclared(field) || (field.context === "time" && !field.integers) || quoted);
      // A quote: price-named, more decimals than money has, moved by varying amounts.
      const quote = price && changed >= 2 && field.decimals > 4 && field.relatives.size >= 2;
      if (price && changed >= 2 && changed === pairs) {
        learned("measurement", `on every fetch, by varying amounts (up to ${(field.maxRelative * 100).toPrecision(2)} %): a quoted price, ${describeShape("measurement")}`);
      } else if (price && !families.has(field.path) && pairs === 1 && field.valueChanges >= 3 && field.valueChanges === field.observations && field.relatives.size >= 3 && field.decimals > 4) {
        // One pair, but a series: every one of its values (the elements of a collection) moved, by
        // varying amounts, quoted with more decimals than money has (a ticker's prices). Kept, but
        // not rated medium yet: its next change is reported as usual, and a price that moves on
        // every fetch is a measurement once it is seen on two (above).
        kept("measurement", `kept: ${changedIn}, but all ${field.valueChanges} of its values moved by varying amounts, with ${field.decimals} decimals: a quote series, not rated medium until seen on more fetches`);
      } else if (quote) {
        learned("measurement", `by varying amounts (up to ${(field.maxRelative * 100).toPrecision(2)} %), with ${field.decimals} decimals: a quoted price on a clock of its own, ${describeShape("measurement")}`);
      } else if (families.has(field.path) && !(reading && (unitDeclared(field) || numericString)) && !(numericString && mostly && !price)) {
        familyTolerance(field, families.get(field.path)!);
        const shape = price ? "price" : field.meaningful === "version" ? "version" : undefined;
        if (shape !== undefined) severityPaths.push({ path: field.path, parent: field.parent, op: "replace", shape, reason: `${describeShape(shape)} that changed (${changedIn}) within its family's tolerance: a change beyond it is rated medium`, kept: true, changed });
      } else if (price) {
        keptMeaningful("price", `kept: ${changedIn} but looks like a price`);
      } else if (reading && (unitDeclared(field) || quoted || (numericString && changed >= 2 && field.relatives.size >= 2 && field.meaningful !== "price"))) {
        // A decimal string beside a time that changed once is kept (a tax, a rate): one move is
        // not a reading's behaviour; it is one once it moved twice by varying amounts. Not one
        // written as money ("10.00", "15.50": an order's discounts edited twice): it is a
        // measurement once it moved on most fetches (below), else a price kept and rated medium.
        learned("measurement", `${unitDeclared(field) ? "a number with a declared unit" : `a decimal quoted with ${field.writtenDecimals} decimals`}, moving on a clock of its own: ${describeShape("measurement")}`);
      } else if (reading && !mostly && changed >= 2 && field.relatives.size >= 2 && movedBy(field) <= READING_TOLERANCE) {
        const moves = movedBy(field);
        const relative = Math.max(READING_TOLERANCE, roundUp(moves * TOLERANCE_MARGIN));
        const absolute = absoluteOf(field, TOLERANCE_MARGIN, relative);
        const by = moves === field.maxRelative ? `by at most ${field.maxRelative.toPrecision(2)} (relative)` : `by at most ${moves.toPrecision(2)} (relative) between values of one sign`;
        measuredTolerance(
          field,
          relative,
          `${changedIn} ${by} and by varying amounts, a non-integer beside a time (a reading on a clock of its own; one that changed once is kept): tolerance ${relative}${absolute === undefined ? "" : ` or ${absolute} (absolute: its largest move, ${Number(field.maxAbsolute.toPrecision(3))}, x${TOLERANCE_MARGIN}; ${field.crossedZero ? "it moved to, from or across 0" : "it came near 0"}, where a relative tolerance means little)`}`,
          absolute,
        );
      } else if (numericString && mostly) {
        learned("measurement", `by varying amounts (up to ${(field.maxRelative * 100).toPrecision(2)} %): ${describeShape("measurement")}, written as text`);
      } else if (numericString && (field.meaningful === "version" || field.meaningful === "price")) {
        // "10.4" (a reason code), "2.1": a version written as digits changes rarely and means something
        keptMeaningful(field.meaningful, `kept: ${changedIn} but looks like ${describeShape(field.meaningful)}`);
      } else if (numericString) {
        kept("float", `kept: ${changedIn} by up to ${(field.maxRelative * 100).toPrecision(2)} %, too rarely for a measurement`);
      } else if (field.integers && field.unixTimes && often(changed, pairs)) {
        learned("unix_time", `always ${describeShape("unix_time")}`);
      } else if (field.integers && field.unixTimes && field.forward && !isEventTimeName(field.name)) {
        learned("unix_time", `always ${describeShape("unix_time")}, only forward: a clock coarser than the fetches (a value that goes back is reported)`, { forward: true });
      } else if (isDurationName(field.name) && changed * 2 >= pairs) {
        learned("duration", `named like ${describeShape("duration")}`);
      } else if (field.integers && !(field.increased && field.decreased) && (often(changed, pairs) || changed >= 2)) {
        const direction = field.increased ? "never decreasing" : "never increasing";
        learned("counter", `${direction}: ${describeShape("counter")}`);
      } else if (field.integers && field.increased && !field.decreased && isCountName(field.name)) {
        learned("counter", `only up: ${describeShape("counter")} (noise while it goes up; a value that goes down is reported)`, { forward: true });
      } else if (!field.integers && !field.decreased && field.increased && field.relatives.size >= 2 && !field.currency && !isSettingOrCodeName(field.name) && (changed >= 5 || (changed >= 2 && isRunningTotalName(field.name)))) {
        // A non-integer that only went up by varying amounts, on five fetches at least or twice when
        // its name says it accumulates (`energy_import_kwh`, `uptime`): a running total, as an
        // integer that only went one way is a counter; going down is reported. (A temperature
        // rises three times in a row on a sunny morning.)
        learned("counter", `never decreasing, on ${changed} fetches by varying amounts: a running total (a value that goes down is reported)`, { forward: true });
      } else if (byName !== undefined && movedBy(field) <= MAX_READING_TOLERANCE && (!mostly || field.maxRelative <= MAX_JITTER)) {
        // Named as a physical reading (a unit of one, a quantity a device measures) and moved, in an
        // object whose other readings move, in a device's block of readings named with their units,
        // or a signal strength: a reading on a slower clock of its own, however rarely it moved yet.
        // A setting, a rated figure or a code is not named so (isReadingName); a move beyond half or
        // double is reported. (A unit in one name alone is not enough: a car's `power_kw` edited once
        // is a figure of the listing.)
        readingByName(field, `${changedIn} by at most ${(field.maxRelative * 100).toPrecision(2)} %${movedBy(field) === field.maxRelative ? "" : ` (${(movedBy(field) * 100).toPrecision(2)} % between values of one sign)`},`, byName);
      } else if (liveReading && (!mostly || field.maxRelative <= MAX_JITTER) && field.meaningful !== "version") {
        // In a live document (liveDocument: numbers that move on fetches of their own), a
        // non-integer that moved like a reading (movedLikeLiveReading) is a reading on a slower clock of
        // its own, however rarely it moved yet: a move of up to READING_TOLERANCE, or its largest
        // move times the margin (at most half or double), is noise; a larger one is reported.
        const moves = movedBy(field);
        const jitter = field.maxRelative <= MAX_JITTER ? roundUp(field.maxRelative * jitterMargin(pairs)) : 0;
        const relative = Math.min(MAX_READING_TOLERANCE, Math.max(READING_TOLERANCE, jitter, roundUp(moves * TOLERANCE_MARGIN)));
        const absolute = absoluteOf(field, ABSOLUTE_MARGIN, relative);
        measuredTolerance(
          field,
          relative,
          `${changedIn} by at most ${(field.maxRelative * 100).toPrecision(2)} %, in a document whose numbers move on fetches of their own (a live document: a device's or a server's readings): a reading on a slower clock of its own, a move of up to ${Math.round(relative * 100)} % is noise${absoluteWords(field, absolute, ABSOLUTE_MARGIN)}, a larger one is reported`,
          absolute,
        );
      } else if (!field.integers && field.maxRelative > 0 && field.maxRelative <= MAX_JITTER) {
        const margin = jitterMargin(pairs);
        const relative = roundUp(field.maxRelative * margin);
        tolerance.push({ path: field.path, relative });
        evidence.push({
          kind: "tolerance",
          rule: `tolerance[${tolerance.length - 1}]`,
          path: field.path,
          changed,
          pairs,
          shape: "float",
          reason: `${changedIn} by at most ${field.maxRelative.toPrecision(2)} (relative): ${describeShape("float")}, tolerance ${relative} (${margin}x margin)`,
        });
      } else if (mostly) {
        learned("measurement", `by varying amounts (up to ${(field.maxRelative * 100).toPrecision(2)} %): ${describeShape("measurement")}`);
      } else if (field.increased && field.decreased && changed >= 3 && (field.relatives.size >= 2 || absoluteEvidence(field)) && !isSettingOrCodeName(field.name)) {
        // Up and down on three fetches at least, by varying amounts: a reading on a clock of its own
        // (a signal strength, a power, a battery level), whatever its name; a value that changed
        // once or twice is kept.
        // Learned with a tolerance, not as volatile: a jump beyond what it did (a forecast that
        // jumped, a reading gone wild) is still reported.
        // (relative to the larger value: 0.5 lets a value halve or double, no more)
        // Not a member named like a setting, a code or a state (a scheduled `target_temperature`,
        // an HTTP `status_code` that flapped): each of its changes is reported.
        // Near and across 0 (a temperature in °C in winter, a power that flips sign) a relative
        // tolerance means little: an absolute part, its largest move times the margin, takes in moves
        // as large as it made, whatever the size of the value.
        const relative = Math.min(MAX_READING_TOLERANCE, Math.max(READING_TOLERANCE, roundUp(field.maxRelative * 3)));
        const absolute = absoluteOf(field, ABSOLUTE_MARGIN, relative);
        measuredTolerance(
          field,
          relative,
          `up and down in ${changed} of ${pairs} fetches by varying amounts, by at most ${field.maxRelative.toPrecision(2)} (relative)${absolute === undefined ? "" : ` and ${Number(field.maxAbsolute.toPrecision(3))} (absolute)`}: a reading on a clock of its own, tolerance ${relative}${absolute === undefined ? "" : ` or ${absolute} (absolute: its largest move x${ABSOLUTE_MARGIN}; ${field.crossedZero ? "it moved to, from or across 0" : "it came near 0"}, where a relative tolerance means little)`}`,
          absolute,
        );
      } else if (readingObjectOf(field) !== undefined) {
        familyTolerance(field, readingObjectOf(field)!);
      } else {
        kept(field.integers ? "integer" : "float", `kept: ${changedIn} by up to ${(field.maxRelative * 100).toPrecision(2)} %, too rarely for a measurement`);
      }
      continue;
    }
    if (type === "boolean") {
      keptMeaningful("boolean", `kept: ${changedIn} but is a boolean`);
      continue;
    }
    kept("text", `kept: ${changedIn} but has no volatile shape`);
  }

  const rules = severityRules(severityPaths, evidence, samples.length);
  const policy: PolicySuggestion["policy"] = { rules };
  if (Object.keys(arrayKeys).length > 0) policy.arrayKeys = arrayKeys;
  if (volatile.length > 0) policy.volatile = volatile;
  if (tolerance.length > 0) policy.tolerance = tolerance;
  if (unordered.length > 0) policy.unordered = unordered;
  return { policy, evidence };
}

/**
 * Severity-by-surprise rules: value changes of stable meaningful scalars and removals from stable
 * arrays are rated medium. They only raise severities (the defaults of these changes are `info`)
 * and never ignore anything. Past MAX_RULES, fields are grouped by their parent.
 */
interface SeverityEntry {
  path: string;
  parent: string;
  op: "replace" | "remove";
  shape: string;
  reason: string;
  /** A field that changed during learning but was kept. */
  kept?: boolean;
  /** In how many pairs it changed (kept fields). */
  changed?: number;
  /** The severity of the rule (medium unless told: a tuple's removed element is critical). */
  severity?: "medium" | "critical";
}

function severityRules(
  entries: SeverityEntry[],
  evidence: PolicyEvidence[],
  sampleCount: number,
): PolicyRule[] {
  let grouped = entries;
  if (entries.length > MAX_RULES) {
    const byParent = new Map<string, (typeof entries)[number]>();
    for (const entry of entries) {
      const path = entry.op === "remove" ? entry.path : entry.parent;
      const id = `${entry.op} ${path}`;
      if (!byParent.has(id)) {
        byParent.set(id, {
          ...entry,
          path,
          reason:
            entry.op === "remove"
              ? entry.reason
              : `stable meaningful fields under ${path} in all ${sampleCount} samples: a value change is rated medium (grouped by parent)`,
        });
      }
    }
    grouped = [...byParent.values()];
  }
  if (grouped.length > MAX_RULES) {
    grouped = [
      { path: "$", parent: "$", op: "replace", shape: "mixed", reason: `too many stable meaningful fields for one rule each: every value change is rated medium` },
      ...grouped.filter((e) => e.op === "remove").slice(0, MAX_RULES - 1),
    ];
  }
  // The first matching rule wins: a critical entry (a tuple's removed element) before the medium
  // ones that hold it (the array of tuples stable too).
  grouped = [...grouped.filter((e) => e.severity === "critical"), ...grouped.filter((e) => e.severity !== "critical")];
  return grouped.map((entry, index): PolicyRule => {
    evidence.push({ kind: "severity", rule: `rules[${index}]`, path: entry.path, changed: entry.changed ?? 0, pairs: sampleCount - 1, shape: entry.shape, reason: entry.reason });
    return { path: entry.path, category: "value", op: entry.op, severity: entry.severity ?? "medium" };
  });
}

export type { Json };
