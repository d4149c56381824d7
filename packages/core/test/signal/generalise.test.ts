// The learner on shapes of noise that no template of the corpus produces: judged by the values'
// behaviour (identifiers of any alphabet, tokens inside URLs, counters as digit strings, fields of
// collections, nested identities, measurements, coarse clocks, rotations), and never learning away
// a real change. Each case learns from a history and diffs the next fetch with what was learned.
import type { PolicyRules } from "@driftwatch/schema";
import { describe, expect, it } from "vitest";
import { diffHtml, diffJson, suggestPolicy } from "../../src/index.js";

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = rng(7);
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const word = (n: number, alphabet = ALPHABET): string => Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");

function learnThenDiff(fetches: unknown[]): { policy: PolicyRules; next: ReturnType<typeof diffJson> } {
  const history = fetches.slice(0, -1);
  const { policy } = suggestPolicy(history, { kind: "json" });
  return { policy, next: diffJson(history[history.length - 1], fetches[fetches.length - 1], { policy }) };
}

const base = Date.parse("2026-11-20T08:00:00Z");
const iso = (minutes: number): string => new Date(base + minutes * 60_000).toISOString();

describe("the learner generalises to noise it has not seen", () => {
  it("learns prefixed base62 ids without digits, opaque cursors and tokens inside URLs, and still reports the rest of a URL", () => {
    const fetches = Array.from({ length: 6 }, () => ({
      request_id: `req_${word(14, LETTERS)}`,
      next_cursor: word(24),
      logo: `https://cdn.example.com/img/logo.png?v=${word(10)}`,
      apply: `https://jobs.example.com/apply?token=${word(16)}&job=42`,
    }));
    const { next } = learnThenDiff(fetches);
    expect(next).toBeNull();
    const changed = { ...(fetches[5] as object), apply: `https://jobs.example.com/closed?token=${word(16)}&job=42` };
    const { policy } = suggestPolicy(fetches, { kind: "json" });
    const diff = diffJson(fetches[5], changed, { policy });
    expect(diff?.changes.map((c) => c.path)).toEqual(["$.apply"]);
  });

  it("learns resource versions as digit strings that only go up", () => {
    const fetches = Array.from({ length: 5 }, (_, i) => ({ metadata: { resourceVersion: String(883_100 + i * 17 + (i % 2)) }, kind: "PodList" }));
    expect(learnThenDiff(fetches).next).toBeNull();
  });

  it("judges fields of a collection for the collection: a few elements change on each fetch, rarely the same twice", () => {
    const repos = Array.from({ length: 30 }, (_, i) => ({ id: 1000 + i, name: `repo-${i}`, updated_at: iso(0), stargazers_count: 10 * i }));
    const fetches: unknown[] = [];
    for (let f = 0; f < 7; f++) {
      for (let k = 0; k < 3; k++) repos[(f * 7 + k * 11) % 30]!.updated_at = iso(f * 10 + k);
      fetches.push(structuredClone(repos));
    }
    const { policy, next } = learnThenDiff(fetches);
    expect(policy.volatile).toContainEqual({ path: "$[*].updated_at" });
    expect(next).toBeNull();
  });

  it("infers nested identities, so a reordered list of Kubernetes objects is no change", () => {
    const pod = (name: string) => ({ metadata: { name, namespace: "default", uid: `uid-${name}` }, status: { phase: "Running" } });
    const orders = [["a", "b", "c"], ["c", "a", "b"], ["b", "c", "a"], ["a", "c", "b"]];
    const fetches = orders.map((order) => ({ items: order.map(pod) }));
    const { next } = learnThenDiff(fetches);
    expect(next).toBeNull();
    // and the defaults match them too
    expect(diffJson(fetches[0], fetches[1])).toBeNull();
  });

  it("learns measurements of any name that move on every fetch by varying amounts, and keeps jitter as a tolerance", () => {
    const fetches = Array.from({ length: 6 }, (_, i) => ({
      humidity: [61, 64, 59, 66, 60, 63][i],
      wind_speed: [3.1, 4.7, 2.2, 5.9, 3.3, 4.1][i],
      roundTrip: 120 + Math.floor(random() * 80),
      last: 187.2 * (1 + [0, 0.012, -0.02, 0.031, 0.004, -0.017][i]!),
    }));
    expect(learnThenDiff(fetches).next).toBeNull();
  });

  it("learns a coarse clock that ticks less often than the monitor fetches, and rotations over a pool", () => {
    const fetches = Array.from({ length: 8 }, (_, i) => ({ updated: iso(Math.floor(i / 3) * 15), served_by: `web-${[3, 1, 4, 1, 5, 2, 3, 4][i]}` }));
    expect(learnThenDiff(fetches).next).toBeNull();
  });

  it("never learns away a real change: a status that changed once is kept and rated medium, a volatile field that disappears, turns null or changes type is reported", () => {
    const fetches = Array.from({ length: 6 }, (_, i) => ({ status: i < 2 ? "operational" : "degraded", generated_at: iso(i), visible: true }));
    const { policy } = suggestPolicy(fetches, { kind: "json" });
    const last = fetches[5]!;
    expect(diffJson(last, { ...last, status: "major_outage", generated_at: iso(9) }, { policy })?.changes).toEqual([
      expect.objectContaining({ path: "$.status", severity: "medium" }),
    ]);
    expect(diffJson(last, { ...last, visible: false }, { policy })?.changes).toEqual([expect.objectContaining({ path: "$.visible", severity: "medium" })]);
    expect(diffJson(last, { status: last.status, visible: true }, { policy })?.topSeverity).toBe("critical");
    expect(diffJson(last, { ...last, generated_at: null }, { policy })?.changes[0]).toMatchObject({ path: "$.generated_at" });
    expect(diffJson(last, { ...last, generated_at: 12 }, { policy })?.changes[0]).toMatchObject({ path: "$.generated_at", severity: "critical" });
  });

  it("takes a non-integer that a units object declares with the empty unit for a reading; an integer flag and a code stay reported", () => {
    // Open-Meteo's `current_units` declares "" for `uv_index` (dimensionless) and for `is_day` (a flag)
    const weather = (uv: number, isDay = 1, code = 2) => ({
      current_units: { time: "iso8601", temperature_2m: "°C", uv_index: "", is_day: "", weather_code: "wmo code" },
      current: { time: "2026-10-03T12:30", temperature_2m: 17.98, uv_index: uv, is_day: isDay, weather_code: code },
    });
    const history = [weather(2.76), weather(2.76), weather(2.7)];
    const { policy, evidence } = suggestPolicy(history, { kind: "json" });
    expect(evidence.find((e) => e.path === "$.current.uv_index")).toMatchObject({ kind: "volatile", shape: "measurement" });
    expect(diffJson(weather(2.7), weather(2.84), { policy })).toBeNull();
    // learned before it moved too, like a reading with a declared unit
    expect(diffJson(weather(2.76), weather(2.7), { policy: suggestPolicy([weather(2.76), weather(2.76)], { kind: "json" }).policy })).toBeNull();
    // the flag (an integer declared with "") and the code (a "wmo code" is no unit) are compared
    expect(diffJson(weather(2.7), weather(2.7, 0), { policy })?.changes.map((c) => c.path)).toEqual(["$.current.is_day"]);
    expect(diffJson(weather(2.7), weather(2.7, 1, 3), { policy })?.changes.map((c) => c.path)).toEqual(["$.current.weather_code"]);
    // an integer declared with "" is not a reading: a flag that flipped once while learning is kept
    const flipped = suggestPolicy([weather(2.76, 1), weather(2.76, 1), weather(2.7, 0)], { kind: "json" }).policy;
    expect(diffJson(weather(2.7, 0), weather(2.84, 1), { policy: flipped })?.changes.map((c) => c.path)).toEqual(["$.current.is_day"]);
  });

  it("takes sibling decimals of one format for a family of readings once one of them moved by a small amount; a tick size x10, a 2-decimal price and a large move are reported", () => {
    // An order book ticker: four 8-decimal strings on clocks of their own; one moves, the others later
    const book = (bidPrice: string, bidQty: string, askPrice: string, askQty: string) => ({ symbol: "BNBBTC", bidPrice, bidQty, askPrice, askQty });
    const history = [
      book("16.37849822", "253.91597006", "16.36534066", "12.37292229"),
      book("16.37849822", "253.91597006", "16.36534066", "12.37292229"),
      book("16.37849822", "253.77429536", "16.36534066", "12.37292229"),
    ];
    const { policy, evidence } = suggestPolicy(history, { kind: "json" });
    for (const path of ["$.bidPrice", "$.bidQty", "$.askPrice", "$.askQty"]) expect(policy.tolerance, path).toContainEqual({ path, relative: 0.1 });
    expect(evidence.find((e) => e.path === "$.askQty")).toMatchObject({ kind: "tolerance", shape: "measurement" });
    const last = history[2]!;
    expect(diffJson(last, book("16.38405360", "253.77429536", "16.46553293", "12.24519876"), { policy })).toBeNull();
    expect(diffJson(last, book("16.37849822", "254.89616407", "16.36534066", "12.37292229"), { policy })).toBeNull();
    // a larger move is reported, a quoted price beyond its tolerance at least medium
    expect(diffJson(last, { ...last, bidQty: "2537.74295360" }, { policy })?.changes.map((c) => c.path)).toEqual(["$.bidQty"]);
    expect(diffJson(last, { ...last, bidPrice: "19.37849822" }, { policy })?.changes.map((c) => [c.path, c.severity])).toEqual([["$.bidPrice", "medium"]]);
    // a type change or a null is still reported
    expect(diffJson(last, { ...last, askQty: null }, { policy })?.changes.map((c) => c.path)).toEqual(["$.askQty"]);
    expect(diffJson(last, { ...last, askQty: 12.37 }, { policy })?.topSeverity).toBe("critical");

    // A tick size and a step size beside moving quotes (same format, but set, not measured: few
    // significant decimals) are no readings: a tick size x10 is reported; and a 2-decimal price
    // beside them is a price
    const market = (bidQty: string, tickSize = "0.01000000", price = "19.99") => ({ bidPrice: "16.37849822", bidQty, askPrice: "16.36534066", tickSize, stepSize: "0.00100000", price });
    const samples = [market("253.91597006"), market("253.91597006"), market("253.77429536")];
    const learned = suggestPolicy(samples, { kind: "json" }).policy;
    expect(learned.tolerance).toContainEqual({ path: "$.bidPrice", relative: 0.1 });
    expect(learned.tolerance ?? []).not.toContainEqual(expect.objectContaining({ path: "$.tickSize" }));
    expect(diffJson(samples[2], market("253.77429536", "0.10000000"), { policy: learned })?.changes.map((c) => c.path)).toEqual(["$.tickSize"]);
    expect(diffJson(samples[2], market("253.77429536", "0.01000000", "20.49"), { policy: learned })?.changes.map((c) => [c.path, c.severity])).toEqual([["$.price", "medium"]]);
    // a tick size that moved a little is still no family member (it is set, not measured)
    const ticks = [market("253.91597006", "0.01000000"), market("253.77429536", "0.01100000"), market("253.77429536", "0.01100000")];
    expect(suggestPolicy(ticks, { kind: "json" }).policy.tolerance ?? []).not.toContainEqual(expect.objectContaining({ path: "$.tickSize" }));
    // siblings of that format none of which moved: a bid beside an ask are a market's quotes by
    // their names (an order book's top), a small move quiet, a larger one reported...
    const still = suggestPolicy([history[0], history[0], history[0]], { kind: "json" }).policy;
    expect(still.tolerance?.map((t) => t.path)).toEqual(["$.bidPrice", "$.bidQty", "$.askPrice", "$.askQty"]);
    expect(diffJson(history[0], history[2], { policy: still })).toBeNull();
    expect(diffJson(history[0], { ...history[0], bidPrice: "19.37849822" }, { policy: still })?.changes.map((c) => [c.path, c.severity])).toEqual([["$.bidPrice", "medium"]]);
    // ...but without them nothing tells a quote from a figure: compared as before
    const figures = (q: string) => ({ levelPrice: "16.37849822", levelQty: q, limitPrice: "16.36534066", limitQty: "12.37292229" });
    const unnamed = suggestPolicy([figures("253.91597006"), figures("253.91597006"), figures("253.91597006")], { kind: "json" }).policy;
    expect(unnamed.tolerance ?? []).toEqual([]);
    expect(diffJson(figures("253.91597006"), figures("253.77429536"), { policy: unnamed })?.changes.map((c) => c.path)).toEqual(["$.levelQty"]);
    // nor are rates set with 4 decimals (written with 8), nor two decimals of one format (a
    // balance and its available part: one that changed once is kept)
    const rates = [{ eur: "1.08350000", gbp: "0.85910000", chf: "0.95520000" }, { eur: "1.08360000", gbp: "0.85910000", chf: "0.95520000" }, { eur: "1.08360000", gbp: "0.85910000", chf: "0.95520000" }];
    expect(suggestPolicy(rates, { kind: "json" }).policy.tolerance ?? []).toEqual([]);
    const wallet = [{ balance: "0.12345678", available: "0.10345671" }, { balance: "0.12345678", available: "0.10345671" }, { balance: "0.12345678", available: "0.10445671" }];
    const held = suggestPolicy(wallet, { kind: "json" }).policy;
    expect(held.tolerance ?? []).toEqual([]);
    expect(diffJson(wallet[2], { ...wallet[2], balance: "0.12445678" }, { policy: held })?.changes.map((c) => [c.path, c.severity])).toEqual([["$.balance", "medium"]]);
  });

  it("holds a tolerance on a number written as a decimal string", () => {
    const policy = { rules: [], tolerance: [{ path: "$.qty", relative: 0.01 }] };
    expect(diffJson({ qty: "253.91597006" }, { qty: "253.77429536" }, { policy })).toBeNull();
    expect(diffJson({ qty: "253.91597006" }, { qty: "263.77429536" }, { policy })?.changes.map((c) => c.path)).toEqual(["$.qty"]);
    // not a text that starts with digits, nor an integer string (a resource version)
    expect(diffJson({ qty: "253.9 kg" }, { qty: "253.8 kg" }, { policy })?.changes.map((c) => c.path)).toEqual(["$.qty"]);
  });

  // The twelfth round's fresh pages (a recipe page's share links, a terms page's browser links,
  // 2026-11-29): a capitalised word (`Pinterest`, `Facebook`) was read as a token, so a list item
  // whose text changed when its list reordered was learned as a text whose volatile parts change,
  // and the next order, putting a text of other words there, was a false alarm.
  it("learns a list of links that reorders as a ranked list: a capitalised word is a word, not a token", () => {
    const links = ["Share on Facebook", "Share by Email", "Share on Pinterest", "Share on Twitter"];
    const page = (order: number[]) =>
      `<html><body><h1>Spiced Rye Ginger Cookies</h1><p>Cinnamon, cardamom, ginger and rye bring a fresh twist to old-fashioned ginger cookies.</p><ul class="share">${order.map((i) => `<li><a href="#">${links[i]}</a></li>`).join("")}</ul></body></html>`;
    const pages = [[0, 1, 2, 3], [0, 1, 2, 3], [1, 3, 0, 2], [0, 2, 1, 3], [3, 0, 2, 1]].map(page);
    const { policy } = suggestPolicy(pages.slice(0, 4), { kind: "html" });
    expect(policy.volatile?.some((v) => v.parts === true) ?? false, JSON.stringify(policy)).toBe(false);
    expect(diffHtml(pages[3]!, pages[4]!, { policy })).toBeNull();
    // a new link is still reported
    const added = diffHtml(pages[3]!, page([3, 0, 2, 1]).replace("Share on Twitter", "Share on Mastodon"), { policy })?.changes ?? [];
    expect(added.some((c) => c.after === "Share on Mastodon"), JSON.stringify(added)).toBe(true);
  });

  it("does not take the only member of an element as its identity", () => {
    const diff = diffJson({ o: [{ a: 1 }, { a: 2 }] }, { o: [{ a: 3 }, { a: 2 }] });
    expect(diff?.changes).toEqual([expect.objectContaining({ path: "$.o[0].a", op: "replace", before: 1, after: 3 })]);
    const { policy } = suggestPolicy([{ o: [{ a: 1 }, { a: 2 }] }, { o: [{ a: 1 }, { a: 2 }] }], { kind: "json" });
    expect(policy.arrayKeys ?? {}).toEqual({});
    // nor a nested member that is all an element holds: the learner suggests no `m.id` key
    const nested = [{ o: [{ m: { id: 1 } }, { m: { id: 2 } }] }, { o: [{ m: { id: 1 } }, { m: { id: 2 } }] }, { o: [{ m: { id: 1 } }, { m: { id: 2 } }] }];
    const learned = suggestPolicy(nested, { kind: "json" }).policy;
    expect(learned.arrayKeys ?? {}).toEqual({});
    const next = diffJson(nested[2], { o: [{ m: { id: 3 } }, { m: { id: 2 } }] }, { policy: learned });
    expect(next?.changes).toEqual([expect.objectContaining({ path: "$.o[0].m.id", op: "replace", before: 1, after: 3 })]);
  });

  it("learns a throughput named by its unit of time (`requestsPerSec`) beside readings that moved as a reading, however rarely it moved; a jump beyond double is reported", () => {
    const puts = [20.71, 20.71, 20.74, 20.74, 20.74, 21.9];
    const fetches = puts.map((requestsPerSec, i) => ({ database: "orders", stats: { requestsPerSec, writesPerSecond: [3.12, 3.4, 2.95, 3.3, 3.05, 3.2][i], ioReadOps: 0.55 } }));
    expect(learnThenDiff(fetches).next).toBeNull();
    const jump = [...fetches.slice(0, -1), { ...fetches[5]!, stats: { ...fetches[5]!.stats, requestsPerSec: 61.2 } }];
    expect(learnThenDiff(jump).next?.changes.map((c) => c.path)).toContain("$.stats.requestsPerSec");
  });
});
