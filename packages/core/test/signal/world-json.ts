// JSON histories from a real payload: the payload is the target's state at fetch 0; noise is
// applied the way real services produce it, on fields found by RULES over the payload (member
// names and value shapes), never picked per fixture:
// - clocks: timestamps in members named like updated/modified/pushed/last_*/generated/timestamp
//   tick forward with the fetches, some as coarse clocks that move every k fetches;
// - collection clocks: the same members inside array elements change for one or two elements per
//   fetch (rarely the same one twice);
// - request ids, trace ids, cursors, nonces, ETags (members named so, high-entropy values) are
//   regenerated in their own alphabet, prefix and length kept; tokens in URL query strings
//   (`?v=`, `?token=`, signatures) change;
// - counters (counts, stars, views, sizes, resource versions as digit strings) only go up; not
//   the size of content named by a digest (a released file's `size` beside its `digests`);
// - measurements (non-integer numbers not money nor coordinates - nor a GeoJSON geometry's
//   `coordinates` / `bbox` -, timings, sensor-like members) move by varying amounts every fetch;
// - arrays of elements with an identity (also a nested one: `node.id`, `metadata.name`) are
//   reordered, unless their elements carry a position that increases along the array (a CI
//   job's steps' `num`: an order the service keeps);
// - a service envelope (chosen by the history's hash) may add a request id, a `served_by`
//   rotating over a pool, a server timing, a coarse clock, a next-page URL with a token, an
//   opaque cursor; a root array may
//   come as a GraphQL connection (`edges[].node`, nested identities) or wrapped in an object.
// Meaningful changes are mutations of stable fields found by rules: removals (critical), type
// changes (critical), a boolean / enum-like / price / version that flips (medium), an added
// element (info), a changed text (info). Traps: a stable field that changes during the early
// fetches and again later; a volatile field that disappears, turns null or changes type.
import { formatPath } from "../../src/index.js";
import type { Severity } from "@driftwatch/schema";
import type { Label } from "./corpus.js";
import type { WorldHistory } from "./world.js";
import { between, choose, type Rng, rngFor, shuffle, token, tokenLike, uuidOf } from "./world-rng.js";

type Seg = string | number;
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };

export const WORLD_FETCHES = 12;
const STEP_MS = 5 * 60_000;
const T0 = Date.UTC(2026, 10, 20, 8, 0, 0);

const MOVING_TIME_KEY = /updated|modified|pushed|last_?(seen|sync|check|activity|update|login|used|refresh)|refreshed|generated|fetched|checked|^now$|server_?time|timestamp|^time$|^ts$|heartbeat|as_of/i;
const STABLE_TIME_KEY = /created|creation|published|birth|start|expire|due|closed|merged|period|scheduled|cancel|ended|trial|resolved|effective|released/i;
const TOKEN_KEY = /request_?id|trace|span_?id|nonce|cursor|token|etag|session_?id|correlation|^next$|next_page|page_token|signature|^sig$|_rev$|^rev$|csrf|idempotency/i;
const DIGIT_COUNTER_KEY = /resource_?version|sequence|^seq|revision|generation|change_?id/i;
/** The words of a member name: `processingTimeMS` -> processing, time, ms; `temperature_2m` -> temperature, 2m. */
const wordsOf = (key: string): string[] =>
  key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
const MEASURE_WORDS = new Set(["temp", "temperature", "humidity", "wind", "pressure", "latency", "took", "elapsed", "ms", "millis", "load", "cpu", "memory", "uptime", "lag", "timing", "roundtrip", "speed", "bid", "ask", "volume", "generationtime", "rssi", "voltage", "power"]);
const COUNTER_WORDS = new Set(["count", "stars", "stargazers", "watchers", "forks", "views", "downloads", "hits", "visits", "followers", "following", "reactions", "subscribers", "size", "sequence", "seq", "comments", "plays", "issues"]);
const isCounterKey = (key: string): boolean => wordsOf(key).some((w) => COUNTER_WORDS.has(w));
// A member named as a time (`montly_power_peak_timestamp`, `power_date`) is not a measurement, whatever its other words.
const isMeasureKey = (key: string): boolean => !ENUM_KEY.test(key) && !/timestamp|date|(?:^|_)ts$|Ts$/i.test(key) && (wordsOf(key).some((w) => MEASURE_WORDS.has(w)) || /round_?trip|response_?time|last_?price|bid_?price|ask_?price|quote_?volume/i.test(key));
const STABLE_NUMBER_KEY = /lat|lon|lng|elevation|percent|version|zoom|tax|fee|amount|price|cost|total|balance|limit|decimal/i;
/** A GeoJSON geometry's numbers (`coordinates`, `bbox`): a place, not a reading; a service never moves them. */
const isGeometryPath = (path: readonly Seg[]): boolean => path.some((s) => s === "coordinates" || s === "bbox");
/** An object that names its content by a digest (`digests`, `sha`, `md5`, `checksum`): a file or blob whose `size` cannot grow unless the content, and so the digest, changes. */
const hasDigest = (parent: Obj | Json[]): boolean => isObj(parent) && Object.keys(parent).some((k) => /^(?:digests?|sha\d*|md5(?:_digest)?|checksum|hash)$/i.test(k));
/** An array in a fixed order: its objects carry a position (`num`, `index`, `position`, `order`, `step`, `rank`) that increases along it (a CI job's steps). */
function isOrdered(elements: Json[]): boolean {
  if (elements.length < 2 || !elements.every(isObj)) return false;
  const first = elements[0] as Obj;
  return Object.keys(first).some((k) => {
    if (!/^(?:num|number|index|idx|position|pos|order|step|rank|seq|sequence)$/i.test(k)) return false;
    const values = elements.map((e) => (e as Obj)[k]);
    return values.every((v) => typeof v === "number") && values.every((v, i) => i === 0 || (v as number) > (values[i - 1] as number));
  });
}
// By the words of a member name (`fulfillment_status`, `planType`), not inside other words: a
// `meter_model` is no mode, a `statement_descriptor` no state.
const ENUM_WORDS = new Set(["status", "state", "visibility", "type", "plan", "tier", "mode", "interval", "role", "level", "permission", "conclusion", "outcome", "health", "source"]);
const ENUM_KEY = { test: (key: string): boolean => wordsOf(key).some((w) => ENUM_WORDS.has(w)) || /tax_behavior|billing_scheme|usage_type|capture_method/i.test(key) };
/** Readings that accumulate (a meter's kWh, an uptime): they only go up. */
const CUMULATIVE_WORDS = new Set(["kwh", "wh", "mwh", "m3", "energy", "import", "export", "consumption", "produced", "delivered", "uptime", "cumulative", "lifetime", "odometer"]);
const isCumulativeKey = (key: string): boolean => wordsOf(key).some((w) => CUMULATIVE_WORDS.has(w));
/** An array of decimal strings (Kraken's `a: ["73369.80000", "1", "1.000"]`: a price and volumes): a tuple of quantities, no versions. */
const numericTuple = (parent: Obj | Json[]): boolean => Array.isArray(parent) && parent.length >= 2 && parent.every((v) => typeof v === "string" && /^-?\d+(?:\.\d+)?$/.test(v));
/** A market quote's member (`change`, `bid`, `lowestAsk`, `priceChangePercent`): a decimal there is a quote, never a version. */
const isQuoteKey = (key: string): boolean => /^(?:bid|ask|last|high|low|open|close|volume|vwap|change|deal|trade|lowest|highest)|change|percent|rate|ratio|Bid$|Ask$|Volume$/i.test(key);
/** A reading's own name: a generic `Value` is named by its object (Fronius's `YEAR_ENERGY: { Value, Unit }` accumulates). */
const readingKey = (path: readonly (string | number)[], key: string): string =>
  /^(?:value|val)$/i.test(key) ? `${String([...path.slice(0, -1)].reverse().find((seg) => typeof seg === "string") ?? "")}_${key}` : key;
const TEXT_KEY = /name|title|description|body|message|label|summary|statement_descriptor/i;
const ID_KEY = ["id", "name", "key", "slug", "sku", "uid", "login", "number", "tag_name", "node_id", "code"];
const VOLATILE_URL_PARAM = /^(v|ver|token|page_token|cursor|sig|signature|expires|ts|cb|jwt|X-Amz-[\w-]+)$/i;

type TimeFormat = { type: "iso"; ms: boolean; zone: "Z" | "offset" | "none"; sep: string } | { type: "unix" } | { type: "unix_ms" } | { type: "http" };

function timeFormatOf(value: unknown): TimeFormat | null {
  if (typeof value === "string") {
    const m = /^\d{4}-\d{2}-\d{2}([T ])\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/.exec(value);
    if (m) return { type: "iso", ms: m[2] !== undefined, zone: m[3] === undefined ? "none" : m[3] === "Z" ? "Z" : "offset", sep: m[1]! };
    if (/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(value)) return { type: "http" };
    return null;
  }
  if (typeof value === "number" && Number.isInteger(value)) {
    if (value > 9e8 && value < 2.2e9) return { type: "unix" };
    if (value > 9e11 && value < 2.2e12) return { type: "unix_ms" };
  }
  return null;
}

function formatTime(ms: number, format: TimeFormat): Json {
  if (format.type === "unix") return Math.floor(ms / 1000);
  if (format.type === "unix_ms") return ms;
  if (format.type === "http") return new Date(ms).toUTCString();
  let iso = new Date(ms).toISOString();
  if (!format.ms) iso = iso.replace(/\.\d{3}Z$/, "Z");
  if (format.zone === "offset") iso = iso.replace(/Z$/, "+00:00");
  if (format.zone === "none") iso = iso.replace(/Z$/, "");
  return iso.replace("T", format.sep);
}

const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

function get(root: Json, path: readonly Seg[]): Json | undefined {
  let at: Json | undefined = root;
  for (const seg of path) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string | number, Json>)[seg];
  }
  return at;
}

function set(root: Json, path: readonly Seg[], value: Json | undefined): boolean {
  const parent = get(root, path.slice(0, -1));
  const last = path[path.length - 1]!;
  if (parent === null || typeof parent !== "object" || parent === undefined) return false;
  if (!(last in (parent as object))) return false;
  // an array element that disappears leaves the array (a tuple's later elements move up), no hole
  if (value === undefined && Array.isArray(parent)) parent.splice(last as number, 1);
  else if (value === undefined) delete (parent as Obj)[last as string];
  else (parent as Record<string | number, Json>)[last] = value;
  return true;
}

/** `$.items[*].price`: indices as `[*]`. */
export function whereOf(path: readonly Seg[]): string {
  return formatPath(path.map((s) => (typeof s === "number" ? 0 : s))).replace(/\[0\]/g, "[*]");
}

interface Leaf {
  path: Seg[];
  key: string;
  value: Json;
  parent: Obj | Json[];
}

function leaves(root: Json): { leaves: Leaf[]; arrays: { path: Seg[]; value: Json[] }[] } {
  const out: Leaf[] = [];
  const arrays: { path: Seg[]; value: Json[] }[] = [];
  const walk = (value: Json, path: Seg[], parent: Obj | Json[] | null): void => {
    if (Array.isArray(value)) {
      arrays.push({ path, value });
      value.forEach((v, i) => walk(v, [...path, i], value));
    } else if (isObj(value)) for (const [k, v] of Object.entries(value)) walk(v, [...path, k], value);
    else if (parent !== null) {
      const key = [...path].reverse().find((s) => typeof s === "string") as string | undefined;
      out.push({ path, key: key ?? "", value, parent });
    }
  };
  walk(root, [], null);
  return { leaves: out, arrays };
}

const inArray = (path: readonly Seg[]): number => path.findIndex((s) => typeof s === "number");
const hasCurrency = (parent: Obj | Json[]): boolean => isObj(parent) && typeof parent["currency"] === "string";
const highEntropy = (v: string): boolean => v.length >= 8 && !/\s/.test(v) && /\d/.test(v) && /[A-Za-z]/.test(v);

/** The identity member of an array's object elements: direct (`id`) or nested (`node.id`, `metadata.name`). */
function identityOf(elements: Json[]): Seg[] | null {
  if (elements.length < 2 || !elements.every(isObj)) return null;
  const unique = (path: Seg[]): boolean => {
    const values = elements.map((e) => get(e, path));
    return values.every((v) => typeof v === "string" || typeof v === "number") && new Set(values).size === values.length;
  };
  for (const k of ID_KEY) if (unique([k])) return [k];
  for (const outer of Object.keys(elements[0] as Obj)) {
    if (!isObj((elements[0] as Obj)[outer])) continue;
    for (const k of ID_KEY) if (unique([outer, k])) return [outer, k];
  }
  return null;
}

type Noise =
  | { kind: "clock"; path: Seg[]; format: TimeFormat; every: number }
  | { kind: "collection-clock"; array: Seg[]; rel: Seg[]; format: TimeFormat; length: number }
  | { kind: "token"; path: Seg[]; like: string }
  | { kind: "url"; path: Seg[]; param: string }
  | { kind: "counter"; path: Seg[]; digits: boolean; sometimes: boolean }
  | { kind: "measure"; path: Seg[]; decimals: number; integer: boolean; every?: number; cumulative?: boolean }
  | { kind: "rotation"; path: Seg[]; pool: string[] }
  | { kind: "reorder"; array: Seg[] };

type MutationKind = "remove" | "type" | "flip" | "enum" | "price" | "version" | "add" | "text" | "unit";

interface Mutation {
  kind: MutationKind;
  path: Seg[];
  what: string;
  minSeverity: Severity;
  apply: (state: Json, rng: Rng, round: number) => boolean;
}

function newValueFor(key: string, value: string, round: number): string {
  const pool = /visib/i.test(key)
    ? ["private", "internal", "public"]
    : /status|state|health|conclusion|outcome/i.test(key)
      ? ["suspended", "past_due", "failed", "degraded", "archived"]
      : /interval/i.test(key)
        ? ["year", "week", "month"]
        : [`${value}_v2`, `legacy_${value}`, `${value}_beta`];
  const options = pool.filter((p) => p !== value);
  return options[round % options.length]!;
}

/** Another unit of the same quantity (a target switching from metric to imperial). */
const OTHER_UNIT: Record<string, string> = { "°C": "°F", "km/h": "mph", "m/s": "kn", hPa: "inHg", mm: "inch", m: "ft", "%": "fraction", kWh: "MWh", W: "kW", "m³": "l" };

/** Stable leaves that meaningful changes may be applied to, by kind (`units`: also a unit that changes). */
function mutationsOf(root: Json, volatileKeys: Set<string>, units = false): Mutation[] {
  const out: Mutation[] = [];
  const { leaves: all, arrays } = leaves(root);
  const stable = all.filter((l) => !volatileKeys.has(JSON.stringify(l.path)));
  for (const l of stable) {
    const { path, key, value } = l;
    const where = whereOf(path);
    if (typeof value === "boolean") out.push({ kind: "flip", path, what: `${where} flipped`, minSeverity: "medium", apply: (s) => set(s, path, !(get(s, path) as boolean)) });
    if (typeof value === "string" && ENUM_KEY.test(key) && /^[a-z][a-z0-9_ -]{1,24}$/i.test(value))
      out.push({ kind: "enum", path, what: `${where} changed from a stable value`, minSeverity: "medium", apply: (s, _r, round) => set(s, path, newValueFor(key, get(s, path) as string, round)) });
    if (typeof value === "number" && value > 0 && (/price|amount|cost|unit_amount|^total$|subtotal/i.test(key) || (hasCurrency(l.parent) && /amount|total|balance/i.test(key))))
      out.push({ kind: "price", path, what: `price ${where} changed`, minSeverity: "medium", apply: (s) => set(s, path, Math.round((get(s, path) as number) * 1.15) + 1) });
    // A version as people write one (`2.1`, `v10.4.3`, `1.0.0-beta`), or any decimal string under a
    // version-named member: not a quote or a reading written with many digits (`"506342.98398488"`,
    // a ticker's `low`), nor a sensor's generic `value` ("6.00"), a market quote's `change`
    // ("1.66") or a member of a tuple of quantities (Kraken's `a: ["73369.8", "1", "1.000"]`),
    // which a "bump" of its last decimal does not make a version change.
    if (typeof value === "string" && /^v?\d+\.\d+(\.\d+)?([-+.\w]*)$/.test(value) && !/^\d{4}-/.test(value) && ((/^v?\d{1,3}\.\d{1,3}(?:\.\d+)?(?:[-+][0-9A-Za-z.-]+)?$/.test(value) && !/^(?:value|val)$/i.test(key) && !isQuoteKey(key) && !numericTuple(l.parent)) || /version|^ver$|release/i.test(key)))
      out.push({
        kind: "version",
        path,
        what: `version ${where} bumped`,
        minSeverity: "medium",
        apply: (s) => set(s, path, (get(s, path) as string).replace(/^(v?\d+)\.(\d+)/, (_m, a: string, b: string) => `${a}.${Number(b) + 1}`)),
      });
    const parentKey = [...path.slice(0, -1)].reverse().find((seg) => typeof seg === "string") ?? "";
    if (units && typeof value === "string" && value in OTHER_UNIT && (/units?$/i.test(parentKey) || /unit/i.test(key)))
      out.push({ kind: "unit", path, what: `unit ${where} changed`, minSeverity: "medium", apply: (s) => set(s, path, OTHER_UNIT[get(s, path) as string] ?? `${String(get(s, path))}2`) });
    if (path.length >= 1 && typeof path[path.length - 1] === "string")
      out.push({ kind: "remove", path, what: `${where} removed`, minSeverity: "critical", apply: (s) => set(s, path, undefined) });
    if ((typeof value === "string" && value.length > 0) || typeof value === "number")
      // SPEC: a member's type changed is critical, an array element's medium
      out.push({ kind: "type", path, what: `${where} changed type`, minSeverity: typeof path[path.length - 1] === "number" ? "medium" : "critical", apply: (s) => set(s, path, typeof get(s, path) === "number" ? String(get(s, path)) : 42) });
    if (typeof value === "string" && TEXT_KEY.test(key) && value.length >= 3 && !/^https?:/.test(value))
      out.push({ kind: "text", path, what: `text ${where} edited`, minSeverity: "info", apply: (s, _r, round) => set(s, path, `${get(s, path) as string} (${["updated", "revised", "edited"][round % 3]})`) });
  }
  for (const a of arrays) {
    if (a.value.length === 0 || !isObj(a.value[0]) || a.path.some((s) => typeof s === "number")) continue;
    const identity = identityOf(a.value) ?? (isObj(a.value[0]) && "id" in a.value[0] ? ["id"] : null);
    const path = a.path;
    out.push({
      kind: "add",
      path,
      what: `element added to ${whereOf(path)}`,
      minSeverity: "info",
      apply: (s, rng) => {
        const array = get(s, path);
        if (!Array.isArray(array) || array.length === 0) return false;
        const clone = structuredClone(array[array.length - 1]!);
        if (identity) {
          const id = get(clone, identity);
          set(clone, identity, typeof id === "number" ? id + 1_000_003 : `${String(id)}-${token(rng, "lower36", 5)}`);
        }
        array.push(clone);
        return true;
      },
    });
  }
  return out;
}

interface Plan {
  noise: Noise[];
  volatileKeys: Set<string>;
}

function planNoise(root: Json, flags: { coarse: number; urlV: boolean; reorder: boolean }): Plan {
  const noise: Noise[] = [];
  const volatileKeys = new Set<string>();
  const mark = (path: Seg[]): void => void volatileKeys.add(JSON.stringify(path));
  const { leaves: all, arrays } = leaves(root);
  const collections = new Map<string, { array: Seg[]; rel: Seg[]; format: TimeFormat; length: number }>();
  for (const l of all) {
    const { path, key, value } = l;
    const format = timeFormatOf(value);
    if (format && MOVING_TIME_KEY.test(key) && !STABLE_TIME_KEY.test(key)) {
      mark(path);
      const at = inArray(path);
      if (at < 0) noise.push({ kind: "clock", path, format, every: flags.coarse });
      else {
        const array = path.slice(0, at);
        const rel = path.slice(at + 1);
        const id = JSON.stringify([array, rel]);
        const length = (get(root, array) as Json[]).length;
        if (!collections.has(id) && path.slice(at + 1).every((s) => typeof s === "string")) collections.set(id, { array, rel, format, length });
      }
      continue;
    }
    if (typeof value === "string" && /^https?:\/\/[^?]+\?/.test(value)) {
      const params = [...new URL(value).searchParams.keys()].filter((p) => VOLATILE_URL_PARAM.test(p) && (p !== "v" || flags.urlV));
      if (params.length > 0) {
        mark(path);
        noise.push({ kind: "url", path, param: params[0]! });
        continue;
      }
    }
    if (typeof value === "string" && TOKEN_KEY.test(key) && highEntropy(value) && !/^https?:/.test(value)) {
      mark(path);
      noise.push({ kind: "token", path, like: value });
      continue;
    }
    if (typeof value === "number" && Number.isInteger(value) && value >= 0 && isCounterKey(key) && !hasCurrency(l.parent) && !(/size/i.test(key) && hasDigest(l.parent)) && !/amount|price|total_?(amount|price)/i.test(key)) {
      mark(path);
      noise.push({ kind: "counter", path, digits: false, sometimes: inArray(path) >= 0 });
      continue;
    }
    if (typeof value === "string" && /^\d{1,15}$/.test(value) && DIGIT_COUNTER_KEY.test(key)) {
      mark(path);
      noise.push({ kind: "counter", path, digits: true, sometimes: false });
      continue;
    }
    if (typeof value === "string" && /^-?\d+\.\d+$/.test(value) && isMeasureKey(key)) {
      mark(path);
      noise.push({ kind: "measure", path, decimals: value.split(".")[1]!.length, integer: false, cumulative: isCumulativeKey(readingKey(path, key)) });
      continue;
    }
    if (typeof value === "number" && !hasCurrency(l.parent) && !STABLE_NUMBER_KEY.test(key) && !isGeometryPath(path) && (!Number.isInteger(value) || isMeasureKey(key))) {
      mark(path);
      const decimals = Number.isInteger(value) ? 0 : Math.min(6, String(value).split(".")[1]?.length ?? 2);
      noise.push({ kind: "measure", path, decimals: Math.max(decimals, Number.isInteger(value) ? 0 : 2), integer: Number.isInteger(value), cumulative: isCumulativeKey(readingKey(path, key)) });
    }
  }
  for (const c of collections.values()) {
    noise.push({ kind: "collection-clock", ...c });
    for (let i = 0; i < c.length; i++) mark([...c.array, i, ...c.rel]);
  }
  if (flags.reorder)
    for (const a of arrays) if (a.value.length >= 2 && identityOf(a.value) !== null && !isOrdered(a.value)) noise.push({ kind: "reorder", array: a.path });
  return { noise, volatileKeys };
}

/** The service envelope: what many services add around the payload. */
function envelope(rng: Rng): { fields: Obj; noise: (prefix: Seg[]) => Noise[]; coarse: number } {
  const coarse = choose(rng, [1, 1, 2, 3]);
  const fields: Obj = {};
  const noiseOf: ((prefix: Seg[]) => Noise)[] = [];
  const roll = (p: number): boolean => rng() < p;
  if (roll(0.6)) {
    const key = choose(rng, ["request_id", "requestId", "trace_id", "x_request_id", "correlationId"]);
    const like = choose(rng, [`req_${token(rng, "base62", 14)}`, uuidOf(rng), token(rng, "hex", 32), token(rng, "base64url", 22), `${token(rng, "HEX", 8)}:${token(rng, "HEX", 4)}`]);
    fields[key] = like;
    noiseOf.push((prefix) => ({ kind: "token", path: [...prefix, key], like }));
  }
  if (roll(0.4)) {
    const key = choose(rng, ["served_by", "server", "node", "backend"]);
    const base = choose(rng, ["web", "api", "cache-fra", "ip-10-0-3"]);
    const pool = Array.from({ length: between(rng, 3, 5) }, (_, i) => `${base}-${i + 1}`);
    fields[key] = pool[0]!;
    noiseOf.push((prefix) => ({ kind: "rotation", path: [...prefix, key], pool }));
  }
  if (roll(0.5)) {
    const key = choose(rng, ["took", "processingTimeMS", "roundTrip", "generationtime_ms", "serverTiming", "elapsed"]);
    const integer = rng() < 0.5;
    fields[key] = integer ? between(rng, 3, 90) : Number((rng() * 2).toFixed(4));
    noiseOf.push((prefix) => ({ kind: "measure", path: [...prefix, key], decimals: integer ? 0 : 4, integer }));
  }
  if (roll(0.5)) {
    const key = choose(rng, ["generated_at", "server_time", "fetched_at", "as_of", "timestamp"]);
    const format: TimeFormat = choose(rng, [{ type: "iso", ms: true, zone: "Z", sep: "T" } as const, { type: "unix" } as const, { type: "http" } as const, { type: "iso", ms: false, zone: "offset", sep: "T" } as const]);
    fields[key] = formatTime(T0, format);
    noiseOf.push((prefix) => ({ kind: "clock", path: [...prefix, key], format, every: coarse }));
  }
  if (roll(0.3)) {
    const key = choose(rng, ["next", "next_page_url", "links_next"]);
    const like = `https://api.example.com/v1/items?page_token=${token(rng, "base64url", 24)}&limit=30`;
    fields[key] = like;
    noiseOf.push((prefix) => ({ kind: "url", path: [...prefix, key], param: "page_token" }));
  }
  if (roll(0.3)) {
    const key = choose(rng, ["next_cursor", "nextPageToken", "cursor"]);
    const like = Buffer.from(`{"after":${between(rng, 1000, 9999)},"ts":${T0}}`).toString("base64");
    fields[key] = like;
    noiseOf.push((prefix) => ({ kind: "token", path: [...prefix, key], like }));
  }
  return { fields, noise: (prefix) => noiseOf.map((f) => f(prefix)), coarse };
}

function applyNoise(state: Json, noise: Noise[], t: number, rng: Rng, memory: Map<string, number>): Json {
  const now = T0 + t * STEP_MS;
  for (const n of noise) {
    if (n.kind === "reorder") continue;
    if (n.kind === "collection-clock") {
      const array = get(state, n.array);
      if (!Array.isArray(array) || t === 0) continue;
      const last = memory.get(JSON.stringify(n.array)) ?? -1;
      const count = between(rng, 1, Math.min(2, array.length));
      for (let c = 0; c < count; c++) {
        let i = between(rng, 0, array.length - 1);
        if (i === last && array.length > 1) i = (i + 1) % array.length;
        memory.set(JSON.stringify(n.array), i);
        const path = [...n.array, i, ...n.rel];
        if (timeFormatOf(get(state, path)) !== null) set(state, path, formatTime(now - between(rng, 0, 120) * 1000, n.format));
      }
      continue;
    }
    const current = get(state, n.path);
    if (current === undefined || current === null) continue;
    switch (n.kind) {
      case "clock":
        if (timeFormatOf(current) !== null || typeof current === typeof formatTime(now, n.format))
          set(state, n.path, formatTime(T0 + Math.floor(t / n.every) * n.every * STEP_MS - (n.every === 1 ? between(rng, 0, 40) * 1000 : 0), n.format));
        break;
      case "token":
        if (typeof current === "string") set(state, n.path, tokenLike(rng, n.like));
        break;
      case "url":
        if (typeof current === "string" && URL.canParse(current)) {
          const url = new URL(current);
          const old = url.searchParams.get(n.param) ?? "";
          url.searchParams.set(n.param, /^\d+$/.test(old) ? String(Number(old) + between(rng, 1, 3)) : tokenLike(rng, old.length >= 6 ? old : token(rng, "base62", 16)));
          set(state, n.path, url.toString());
        }
        break;
      case "counter":
        if (n.sometimes && rng() < 0.6) break;
        if (n.digits && typeof current === "string") set(state, n.path, String(Number(current) + between(rng, 1, 40)));
        else if (typeof current === "number") set(state, n.path, current + between(rng, n.sometimes ? 1 : 0, 6));
        break;
      case "measure":
        if (n.every !== undefined && t % n.every !== 0) break;
        if (typeof current === "string" && /^-?\d+\.\d+$/.test(current)) {
          const value = Number(current);
          const spread = choose(rng, [0.0005, 0.002, 0.01, 0.03]);
          // a reading that accumulates moves up only
          const next = (value * (1 + (n.cumulative === true ? rng() * spread * 0.5 : (rng() - 0.5) * spread))).toFixed(n.decimals);
          set(state, n.path, next === current ? (value + 10 ** -Math.min(n.decimals, 6)).toFixed(n.decimals) : next);
        } else if (typeof current === "number") {
          // A reading keeps its sign (a signal strength of -62 dBm, an exported power); one that
          // accumulates (a meter's kWh, an uptime) only goes up.
          if (n.cumulative === true) set(state, n.path, n.integer ? current + between(rng, 1, 40) : Number((current + Math.abs(current) * rng() * 0.002 + 10 ** -n.decimals).toFixed(n.decimals)));
          else if (n.integer) {
            const next = Math.round(current * (1 + (rng() - 0.5) * 0.6)) + between(rng, -3, 3);
            set(state, n.path, current < 0 ? Math.min(-1, next) : Math.max(0, next));
          } else {
            const factor = 1 + (rng() - 0.5) * choose(rng, [0.002, 0.01, 0.04, 0.12]);
            const next = Number((current * factor + (current === 0 ? rng() : 0)).toFixed(n.decimals));
            set(state, n.path, next === current ? Number((current + 10 ** -n.decimals).toFixed(n.decimals)) : next);
          }
        }
        break;
      case "rotation":
        if (typeof current === "string") set(state, n.path, choose(rng, n.pool.filter((p) => p !== current)));
        break;
    }
  }
  return state;
}

function render(state: Json, noise: Noise[], rng: Rng): Json {
  const out = structuredClone(state);
  for (const n of noise) {
    if (n.kind !== "reorder" || rng() < 0.4) continue;
    const array = get(out, n.array);
    if (Array.isArray(array)) shuffle(rng, array);
  }
  return out;
}

/** A root array as a GraphQL connection: `{ data: { items: { edges: [{ cursor, node }] } } }`. */
function asConnection(elements: Json[], rng: Rng): Obj {
  return {
    data: {
      items: {
        totalCount: elements.length,
        edges: elements.map((node, i) => ({ cursor: Buffer.from(`cursor:v2:${i}:${token(rng, "hex", 6)}`).toString("base64"), node })),
        pageInfo: { hasNextPage: false, endCursor: null },
      },
    },
  };
}

export interface MeasurementOptions {
  /**
   * A measurement target (real/sources.json `"measurements": true`, the sixth round's sources):
   * its measurements update on clocks of their own, every 1 to 3 fetches, and a unit member that
   * changes (`°C` -> `°F`) is a meaningful change (medium). Off for the earlier histories, which
   * stay as they were measured.
   */
  measurements?: boolean;
}

/**
 * The history of a target whose response at fetch 0 is `payload`. The schedule (fetch index of
 * each event) is fixed; which fields and which kinds are drawn from the history's seed.
 */
export function jsonWorldHistory(name: string, payload: unknown, origin: "real" | "generated", fetches = WORLD_FETCHES, options: MeasurementOptions = {}): WorldHistory {
  const rng = rngFor(name);
  let root = structuredClone(payload) as Json;
  const env = envelope(rng);
  const flags = { coarse: env.coarse, urlV: rng() < 0.5, reorder: rng() < 0.6 };
  let envNoise: Noise[] = [];
  if (Array.isArray(root)) {
    const shape = rng();
    if (shape < 0.35 && root.every(isObj) && root.length >= 2) root = asConnection(root, rng);
    else if (shape < 0.7) root = { items: root };
  }
  if (isObj(root) && Object.keys(env.fields).length > 0) {
    if (rng() < 0.5) {
      Object.assign(root, env.fields);
      envNoise = env.noise([]);
    } else {
      root["meta"] = env.fields;
      envNoise = env.noise(["meta"]);
    }
  }
  const plan = planNoise(root, flags);
  if (options.measurements) {
    // Sensors and quotes on their own clocks: each measurement updates every 1, 2 or 3 fetches (a
    // coarse one is the same at fetches 0 and 1 and first moves at fetch 2 or 3), drawn from a
    // stream of its own so the rest of the history is drawn as for any payload.
    const clocks = rngFor(`${name}/measurement-clocks`);
    for (const n of plan.noise) if (n.kind === "measure") n.every = choose(clocks, [1, 2, 2, 3]);
  }
  const noise = [...plan.noise, ...envNoise];
  for (const n of envNoise) if ("path" in n) plan.volatileKeys.add(JSON.stringify(n.path));
  const candidates = mutationsOf(root, plan.volatileKeys, options.measurements === true);
  const byKind = (kinds: MutationKind[]): Mutation[] => candidates.filter((m) => kinds.includes(m.kind));

  // The schedule: a trap field changed at fetch 3 and again at 9, a main change at 6, a volatile
  // field's trap at 11 (or another change); every other pair is noise.
  const events = new Map<number, { label: Extract<Label, { kind: "meaningful" }>; apply: (s: Json) => boolean }>();
  const trapPool = byKind(["flip", "enum", "price", "version", "unit"]);
  if (trapPool.length > 0) {
    const trap = choose(rng, trapPool);
    events.set(3, { label: { kind: "meaningful", what: `${trap.what} (while learning)`, minSeverity: trap.minSeverity, where: whereOf(trap.path) }, apply: (s) => trap.apply(s, rng, 0) });
    events.set(fetches - 3, { label: { kind: "meaningful", what: `${trap.what} again`, minSeverity: trap.minSeverity, where: whereOf(trap.path) }, apply: (s) => trap.apply(s, rng, 1) });
  }
  const kinds: MutationKind[][] = [["remove"], ["type"], ["flip", "enum", "unit"], ["price", "version"], ["add"], ["text"]];
  const kindIndex = Math.floor(rng() * kinds.length);
  for (let k = 0; k < kinds.length; k++) {
    const pool = byKind(kinds[(kindIndex + k) % kinds.length]!).filter((m) => !events.has(3) || whereOf(m.path) !== events.get(3)!.label.where);
    if (pool.length === 0) continue;
    const main = choose(rng, pool);
    events.set(6, { label: { kind: "meaningful", what: main.what, minSeverity: main.minSeverity, where: whereOf(main.path) }, apply: (s) => main.apply(s, rng, 0) });
    break;
  }
  const volatileLeaves = noise.filter((n): n is Extract<Noise, { path: Seg[] }> => "path" in n && n.kind !== "rotation" && get(root, n.path) !== undefined);
  if (volatileLeaves.length > 0) {
    const v = choose(rng, volatileLeaves);
    const how = choose(rng, ["disappears", "turns null", "changes type"] as const);
    const where = whereOf(v.path);
    const severity = how === "turns null" ? "medium" : "critical";
    events.set(fetches - 1, {
      label: { kind: "meaningful", what: `volatile ${where} ${how}`, minSeverity: severity, where },
      apply: (s) => set(s, v.path, how === "disappears" ? undefined : how === "turns null" ? null : typeof get(s, v.path) === "number" ? "n/a" : 0),
    });
  }

  const state = root;
  const memory = new Map<string, number>();
  const snapshots: unknown[] = [];
  const labels: Label[] = [];
  for (let t = 0; t < fetches; t++) {
    applyNoise(state, noise, t, rng, memory);
    const event = events.get(t);
    if (t > 0) labels.push(event && event.apply(state) ? event.label : { kind: "noise" });
    snapshots.push(render(state, noise, rng));
  }
  return { name, kind: "json", origin, noise: [...new Set(noise.map((n) => n.kind))].sort(), snapshots, labels };
}
