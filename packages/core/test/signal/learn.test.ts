// suggestPolicy on small hand-written histories: each shape it recognises, what it keeps, the
// severity rules, paths, and its errors.
import { PolicyRulesSchema } from "@driftwatch/schema";
import { describe, expect, it } from "vitest";
import { diffHtml, diffJson, isDriftwatchError, type PolicyEvidence, suggestPolicy } from "../../src/index.js";
import { rankedListsWork, shiftedPairsWork, stableSelectorWork } from "../../src/learn/html.js";

const T = Date.UTC(2026, 10, 20, 8);
const at = (i: number): string => new Date(T + i * 300_000).toISOString();
const history = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));
const volatilePaths = (policy: { volatile?: { path?: string }[] }): (string | undefined)[] => (policy.volatile ?? []).map((v) => v.path);
const evidenceAt = (evidence: PolicyEvidence[], path: string): PolicyEvidence | undefined => evidence.find((e) => e.path === path);

describe("suggestPolicy (json)", () => {
  it("makes timestamps in every common form volatile, with the shape in the evidence", () => {
    const samples = history(5, (i) => ({
      iso: at(i),
      isoNoZone: at(i).slice(0, 19),
      isoOffset: at(i).replace("Z", "+02:00"),
      httpDate: new Date(T + i * 300_000).toUTCString(),
      unixSeconds: Math.floor((T + i * 300_000) / 1000),
      unixMillis: T + i * 300_001,
      unixString: String(Math.floor((T + i * 300_000) / 1000)),
    }));
    const { policy, evidence } = suggestPolicy(samples, { kind: "json" });
    expect(volatilePaths(policy)).toEqual(["$.iso", "$.isoNoZone", "$.isoOffset", "$.httpDate", "$.unixSeconds", "$.unixMillis", "$.unixString"]);
    expect(evidenceAt(evidence, "$.iso")).toMatchObject({ kind: "volatile", rule: "volatile[0]", changed: 4, pairs: 4, shape: "iso8601", reason: "changed in 4 of 4 fetches, always an ISO 8601 timestamp" });
    expect(evidenceAt(evidence, "$.httpDate")?.shape).toBe("http_date");
    expect(evidenceAt(evidence, "$.unixSeconds")?.shape).toBe("unix_time");
    expect(evidenceAt(evidence, "$.unixString")?.shape).toBe("unix_time");
  });

  it("makes ids, tokens, ETags, counters and relative times volatile", () => {
    const tokens = ["9f86d081884c7d65", "2c26b46b68ffc68f", "fcde2b2edba56bf4", "bd7e6b1f8a1c2d3e", "0a1b2c3d4e5f6a7b"];
    const samples = history(5, (i) => ({
      requestId: `req_${tokens[i]!.slice(0, 12)}`,
      uuid: `${tokens[i]!.slice(0, 8)}-1234-4abc-8def-${tokens[i]!.slice(4, 16)}`,
      etag: `W/"${tokens[i]}"`,
      hex: tokens[i],
      csrf: Buffer.from(`token-${tokens[i]}`).toString("base64url"),
      views: 1000 + i * 17,
      stock: 90 - i * 3,
      seen: `${i + 2} minutes ago`,
      took: [12, 3, 40, 7, 22][i],
    }));
    const { policy, evidence } = suggestPolicy(samples, { kind: "json" });
    expect(volatilePaths(policy).sort()).toEqual(["$.csrf", "$.etag", "$.hex", "$.requestId", "$.seen", "$.stock", "$.took", "$.uuid", "$.views"]);
    expect(Object.fromEntries(evidence.filter((e) => e.kind === "volatile").map((e) => [e.path, e.shape]))).toEqual({
      "$.requestId": "token",
      "$.uuid": "uuid",
      "$.etag": "etag",
      "$.hex": "hex",
      "$.csrf": "base64",
      "$.views": "counter",
      "$.stock": "counter",
      "$.seen": "relative_time",
      "$.took": "duration",
    });
  });

  it("keeps fields that changed but look meaningful, and says why", () => {
    const statuses = ["active", "suspended", "active", "pending", "active"];
    const samples = history(5, (i) => ({ status: statuses[i], price: ["19.99", "24.99", "19.99", "19.99", "17.50"][i], version: `1.${i}.0`, enabled: i % 2 === 0, label: ["Hello", "Bonjour", "Hallo", "Hola", "Ciao"][i], temperature: 10 + i * 3.7, notes: `x${i}` }));
    const { policy, evidence } = suggestPolicy(samples, { kind: "json" });
    // a number that moves on every fetch by varying amounts is a measurement; a text whose
    // numbers alone change keeps its skeleton compared
    expect(policy.volatile ?? []).toEqual([{ path: "$.temperature" }, { path: "$.notes", parts: true }]);
    expect(policy.tolerance ?? []).toEqual([]);
    const kept: Record<string, PolicyEvidence> = Object.fromEntries(evidence.filter((e) => e.kind === "kept").map((e) => [e.path, e]));
    expect(kept["$.status"]).toMatchObject({ shape: "enum", changed: 4, pairs: 4, reason: "kept: changed in 4 of 4 fetches but looks like an enum-like value (3 distinct values)" });
    expect(kept["$.price"]?.shape).toBe("price");
    expect(kept["$.version"]?.shape).toBe("version");
    expect(kept["$.enabled"]?.shape).toBe("boolean");
    expect(kept["$.label"]?.shape).toBe("enum");
    expect(evidence.find((e) => e.path === "$.temperature")).toMatchObject({ kind: "volatile", shape: "measurement" });
    expect(evidence.find((e) => e.path === "$.notes")).toMatchObject({ kind: "volatile", shape: "parts" });
    for (const e of Object.values(kept)) expect(e.rule).toBeUndefined();
  });

  it("never makes a field that was stable during learning volatile, whatever its shape", () => {
    const samples = history(6, () => ({ created_at: "2021-03-04T10:11:12Z", id: "4f1c2a9e-1111-4abc-8def-0123456789ab", token: "c2VjcmV0LXRva2VuLTEyMzQ1Njc4" }));
    const { policy } = suggestPolicy(samples, { kind: "json" });
    expect(policy.volatile ?? []).toEqual([]);
    // ...and a later change to it is reported.
    expect(diffJson(samples[5], { ...samples[5]!, created_at: "2022-01-01T00:00:00Z" }, { policy })).not.toBeNull();
  });

  it("does not call a timestamp that changed once in five fetches noise", () => {
    const samples = history(6, (i) => ({ released_at: i < 4 ? "2026-01-01T00:00:00Z" : "2026-02-01T00:00:00Z" }));
    const { policy, evidence } = suggestPolicy(samples, { kind: "json" });
    expect(policy.volatile ?? []).toEqual([]);
    expect(evidenceAt(evidence, "$.released_at")).toMatchObject({ kind: "kept", shape: "iso8601", changed: 1, pairs: 5 });
  });

  it("infers identity keys, generalises volatile fields in elements to [*], and learns unordered arrays", () => {
    const items = [
      { sku: "A-1", title: "Mug", stock: 3 },
      { sku: "B-2", title: "Cap", stock: 5 },
      { sku: "C-3", title: "Tee", stock: 8 },
    ];
    const samples = history(5, (i) => ({
      items: (i % 2 ? [...items].reverse() : items).map((item) => ({ ...item, updated_at: at(i) })),
      tags: i % 2 ? ["b", "a", "c"] : ["a", "b", "c"],
    }));
    const { policy, evidence } = suggestPolicy(samples, { kind: "json" });
    expect(policy.arrayKeys).toEqual({ "$.items": "sku" });
    expect(volatilePaths(policy)).toEqual(["$.items[*].updated_at"]);
    expect(policy.unordered).toEqual(["$.tags"]);
    expect(evidence.find((e) => e.kind === "arrayKey")).toMatchObject({ rule: "arrayKeys['$.items']", reason: "array reordered 4 times, elements unique by `sku`" });
    expect(evidence.find((e) => e.kind === "unordered")).toMatchObject({ rule: "unordered[0]", path: "$.tags", reason: "array reordered 4 times with the same elements" });
  });

  it("suggests a relative tolerance for jittering floats, with a margin over the spread seen", () => {
    const jitter = [0, 3e-7, -2e-7, 1e-7, -3e-7];
    const samples = history(5, (i) => ({ lat: 52.52 * (1 + jitter[i]!) }));
    const { policy, evidence } = suggestPolicy(samples, { kind: "json" });
    expect(policy.tolerance).toHaveLength(1);
    const relative = policy.tolerance![0]!.relative!;
    const spread = Math.max(...jitter.slice(1).map((j, i) => Math.abs(j - jitter[i]!) / (1 + Math.max(j, jitter[i]!))));
    expect(relative).toBeGreaterThan(spread);
    expect(relative).toBeLessThanOrEqual(spread * 8);
    expect(evidence.find((e) => e.kind === "tolerance")).toMatchObject({ path: "$.lat", shape: "float", rule: "tolerance[0]" });
  });

  it("rates removals and enum-like value changes of stable fields medium, additions stay info", () => {
    const samples = history(5, (i) => ({ plan: "pro", active: true, price: 49, seats: [{ id: 1 }, { id: 2 }], count: 7, seen: at(i) }));
    const { policy, evidence } = suggestPolicy(samples, { kind: "json" });
    expect(policy.rules).toEqual([
      { path: "$.seats", category: "value", op: "remove", severity: "medium" },
      { path: "$.plan", category: "value", op: "replace", severity: "medium" },
      { path: "$.active", category: "value", op: "replace", severity: "medium" },
      { path: "$.price", category: "value", op: "replace", severity: "medium" },
    ]);
    expect(evidence.filter((e) => e.kind === "severity").map((e) => e.rule)).toEqual(["rules[0]", "rules[1]", "rules[2]", "rules[3]"]);
    const last = samples[4]!;
    expect(diffJson(last, { ...last, plan: "free" }, { policy })?.topSeverity).toBe("medium");
    expect(diffJson(last, { ...last, seats: [{ id: 1 }] }, { policy })?.topSeverity).toBe("medium");
    // a stable count is noise while it goes up, and reported when it goes down
    expect(diffJson(last, { ...last, count: 8 }, { policy })).toBeNull();
    expect(diffJson(last, { ...last, count: 6 }, { policy })?.topSeverity).toBe("info");
    expect(diffJson(last, { ...last, extra: "new" }, { policy })?.topSeverity).toBe("info");
    expect(diffJson(last, { ...last, seats: [...last.seats, { id: 3 }] }, { policy })?.topSeverity).toBe("info");
    const { plan: _plan, ...withoutPlan } = last;
    expect(diffJson(last, withoutPlan, { policy })?.topSeverity).toBe("critical");
  });

  it("does not rate a ticker's quotes medium from one pair when every one moved by varying amounts; a price list that changed once is still medium", () => {
    const quote = (p: number) => (p === 0 ? "43375.80088778" : "43371.39133522");
    const ticker = (p: number) => ({
      items: [
        { symbol: "BTCUSDT", lastPrice: quote(p) },
        { symbol: "ETHUSDT", lastPrice: p === 0 ? "2259.11213552" : "2247.20083609" },
        { symbol: "SOLUSDT", lastPrice: p === 0 ? "99.28142597" : "98.30296293" },
      ],
    });
    const learned = suggestPolicy([ticker(0), ticker(1)], { kind: "json" });
    expect(learned.policy.rules.filter((r) => r.path === "$.items[*].lastPrice")).toEqual([]);
    expect(evidenceAt(learned.evidence, "$.items[*].lastPrice")).toMatchObject({ kind: "kept", shape: "measurement" });
    expect(volatilePaths(learned.policy)).not.toContain("$.items[*].lastPrice");
    // list prices (two decimals) all changed in the one pair: a repricing, still rated medium
    const list = (p: number) => ({ items: [{ sku: "a", price: p === 0 ? 19.99 : 21.99 }, { sku: "b", price: p === 0 ? 5.49 : 5.99 }, { sku: "c", price: p === 0 ? 120.0 : 135.5 }] });
    const repriced = suggestPolicy([list(0), list(1)], { kind: "json" });
    expect(repriced.policy.rules).toContainEqual({ path: "$.items[*].price", category: "value", op: "replace", severity: "medium" });
    // one quote of several moved: a price that changed, rated medium
    const one = suggestPolicy([ticker(0), { items: [{ symbol: "BTCUSDT", lastPrice: quote(1) }, ...ticker(0).items.slice(1)] }], { kind: "json" });
    expect(one.policy.rules).toContainEqual({ path: "$.items[*].lastPrice", category: "value", op: "replace", severity: "medium" });
  });

  it("takes a reading that did not move yet, or moves on some fetches only, for a measurement by its surroundings; a status, a price, a unit and a tick size stay", () => {
    // A weather endpoint: readings with a declared unit (`current_units`) and a time beside them;
    // the sensor updated every third fetch, so the learning samples show it still.
    const weather = (i: number) => ({
      current_units: { time: "iso8601", temperature_2m: "°C", relative_humidity_2m: "%", wind_speed_10m: "km/h" },
      current: { time: "2026-10-03T12:30", temperature_2m: 17.7, relative_humidity_2m: 66, wind_speed_10m: i < 3 ? 3.6 : 4.1, status: "ok", price: 1.25 },
      station: { observed: "2026-10-03T12:30:00Z", pressure: 1012.6, status: "online" },
    });
    const { policy, evidence } = suggestPolicy(history(3, weather), { kind: "json" });
    expect(volatilePaths(policy)).toEqual(expect.arrayContaining(["$.current.temperature_2m", "$.current.relative_humidity_2m", "$.current.wind_speed_10m"]));
    expect(evidenceAt(evidence, "$.current.temperature_2m")).toMatchObject({ kind: "volatile", shape: "measurement", changed: 0 });
    // a stable non-integer beside a time, without a declared unit, is kept until it moved (it may
    // be a figure of the product: a rate, a weight); so is a number beside a lone `unit` member
    expect(policy.tolerance ?? []).not.toContainEqual(expect.objectContaining({ path: "$.station.pressure" }));
    const last = weather(2);
    expect(diffJson(last, { ...last, current: { ...last.current, temperature_2m: 18.4, relative_humidity_2m: 71 } }, { policy })).toBeNull();
    expect(diffJson(last, { ...last, station: { ...last.station, pressure: 1009.1 } }, { policy })?.changes.map((c) => c.path)).toEqual(["$.station.pressure"]);
    // beside a time that moved within the samples (an observation's clock), a stable non-integer
    // is a reading: a small move is noise, a large one is reported
    const observed = (i: number) => ({ observed: `2026-10-03T12:${String(30 + i * 5)}:00Z`, pressure: 1012.6, elevation: 181 });
    const clocked = suggestPolicy(history(3, observed), { kind: "json" }).policy;
    expect(clocked.tolerance).toContainEqual({ path: "$.pressure", relative: 0.1 });
    expect(diffJson(observed(2), { ...observed(2), pressure: 1009.1 }, { policy: clocked })).toBeNull();
    expect(diffJson(observed(2), { ...observed(2), pressure: 512 }, { policy: clocked })?.changes.map((c) => c.path)).toEqual(["$.pressure"]);
    expect(diffJson(observed(2), { ...observed(2), elevation: 182 }, { policy: clocked })?.changes.map((c) => c.path)).toEqual(["$.elevation"]);
    const quota = suggestPolicy(history(3, () => ({ updated_at: "2026-10-03T12:30:00Z", limit: 5000.5, unit: "requests", rate: 4.25 })), { kind: "json" });
    expect(volatilePaths(quota.policy)).not.toEqual(expect.arrayContaining(["$.limit"]));
    expect(volatilePaths(quota.policy)).not.toEqual(expect.arrayContaining(["$.rate"]));
    expect(quota.policy.tolerance ?? []).toEqual([]);
    // a status, a price, a unit that flips are still medium; a reading gone, null or of another type is reported
    const rated = (after: unknown) => diffJson(last, after, { policy })?.changes.map((c) => [c.path, c.severity]);
    expect(rated({ ...last, station: { ...last.station, status: "offline" } })).toEqual([["$.station.status", "medium"]]);
    expect(rated({ ...last, current: { ...last.current, price: 1.35 } })).toEqual([["$.current.price", "medium"]]);
    expect(rated({ ...last, current_units: { ...last.current_units, temperature_2m: "°F" } })).toEqual([["$.current_units.temperature_2m", "medium"]]);
    expect(rated({ ...last, current: { ...last.current, temperature_2m: null } })).toEqual([["$.current.temperature_2m", "medium"]]);
    expect(rated({ ...last, current: { ...last.current, temperature_2m: "n/a" } })).toEqual([["$.current.temperature_2m", "critical"]]);
    const { temperature_2m: _gone, ...rest } = last.current;
    expect(rated({ ...last, current: rest })).toEqual([["$.current.temperature_2m", "critical"]]);
    // a reading beside a time that moved on some fetches only, by small varying amounts: a
    // tolerance; one that changed once (a rate raised) is kept
    const coarse = history(6, (i) => ({ observed: "2026-10-03T12:30:00Z", pressure: i < 2 ? 1012.6 : i < 4 ? 1013.1 : 1012.2 }));
    expect(suggestPolicy(coarse, { kind: "json" }).policy.tolerance).toContainEqual({ path: "$.pressure", relative: 0.1 });
    const raised = history(6, (i) => ({ effective: "2026-10-03T12:30:00Z", rate: i < 3 ? 4.25 : 4.5 }));
    expect(suggestPolicy(raised, { kind: "json" }).policy.tolerance ?? []).toEqual([]);
    // decimals quoted by an exchange: a quantity that moved twice by varying amounts is a measurement,
    // a tick size that changed once is kept
    const book = (i: number) => ({ symbol: "BNBBTC", bidQty: ["256.78000000", "256.78000000", "253.91597006", "253.91597006", "254.89616407"][i], tickSize: i < 3 ? "0.01000000" : "0.00100000" });
    const learned = suggestPolicy(history(5, book), { kind: "json" });
    expect(evidenceAt(learned.evidence, "$.bidQty")).toMatchObject({ kind: "volatile", shape: "measurement" });
    expect(volatilePaths(learned.policy)).not.toContain("$.tickSize");
    // with no unit and no time beside it, a stable float is compared as before
    const bare = suggestPolicy(history(3, () => ({ ratio: 0.4375, name: "x" })), { kind: "json" });
    expect(bare.policy.tolerance ?? []).toEqual([]);
    expect(volatilePaths(bare.policy)).toEqual([]);
  });

  it("keeps the number of rules bounded by grouping stable fields by parent", () => {
    const wide = Object.fromEntries(Array.from({ length: 450 }, (_, i) => [`group${i % 9}`, Object.fromEntries(Array.from({ length: 50 }, (_, j) => [`flag${j}`, "on"]))]));
    const { policy } = suggestPolicy([wide, wide, wide], { kind: "json" });
    expect(policy.rules.length).toBeLessThanOrEqual(400);
    expect(policy.rules.length).toBeGreaterThan(0);
    expect(PolicyRulesSchema.safeParse(policy).success).toBe(true);
    expect(diffJson(wide, { ...wide, group3: { ...wide["group3"], flag7: "off" } }, { policy })?.topSeverity).toBe("medium");
  });

  it("holds at most 500 volatile entries; the rest are kept, and the evidence says why", () => {
    const samples = history(3, (i) => Object.fromEntries(Array.from({ length: 600 }, (_, j) => [`t${j}`, at(i + j)])));
    const { policy, evidence } = suggestPolicy(samples, { kind: "json" });
    expect(policy.volatile).toHaveLength(500);
    const over = evidence.filter((e) => e.reason.endsWith("but a policy holds at most 500 volatile entries"));
    expect(over).toHaveLength(100);
    expect(over.every((e) => e.kind === "kept" && e.rule === undefined)).toBe(true);
    expect(PolicyRulesSchema.safeParse(policy).success).toBe(true);
  });

  it("parses JSON strings and accepts parsed values", () => {
    const parsed = history(3, (i) => ({ at: at(i) }));
    expect(suggestPolicy(parsed.map((p) => JSON.stringify(p)), { kind: "json" })).toEqual(suggestPolicy(parsed, { kind: "json" }));
  });
});

describe("suggestPolicy (html)", () => {
  const page = (i: number, promo: string, extra = ""): string =>
    `<html><body><div class="promo">${promo}</div><main><h1>Spring sale</h1><p id="viewers">${20 + i} people are looking at this</p>` +
    `<p class="posted">Posted ${i + 3} minutes ago</p><p>Everything must go.</p>${extra}</main><footer><p>Rendered at 08:0${i}:1${i} UTC</p></footer></body></html>`;
  const promos = ["Free shipping on all orders today", "Join the club and save ten percent", "New arrivals every single week"];

  it("makes blocks with counters, times and rotating promos volatile, and keeps edited text", () => {
    const pages = history(6, (i) => page(i, promos[i % 3]!, i === 5 ? "<p>Now with gift wrapping.</p>" : ""));
    const { policy, evidence } = suggestPolicy(pages, { kind: "html" });
    expect((policy.volatile ?? []).map((v) => v.selector)).toEqual(["div.promo", "#viewers", "p.posted", "body > footer:nth-of-type(1) > p"]);
    expect(Object.fromEntries(evidence.filter((e) => e.kind === "volatile").map((e) => [e.selector, e.shape]))).toEqual({
      "div.promo": "rotating",
      "#viewers": "counter",
      "p.posted": "relative_time",
      "body > footer:nth-of-type(1) > p": "iso8601",
    });
    expect(policy.rules).toEqual([]);
  });

  it("looks only inside options.selector", () => {
    const pages = history(4, (i) => page(i, promos[i % 3]!));
    const { policy } = suggestPolicy(pages, { kind: "html", selector: "main" });
    expect((policy.volatile ?? []).map((v) => v.selector)).toEqual(["#viewers", "p.posted"]);
  });

  it("takes a block that shows another text on every fetch, texts coming back and new ones, for a rotation over a larger pool; a flap and a headline stay", () => {
    const texts = ["Listen to our new podcast", "Meet us at the spring fair", "Read the annual report"];
    const slot = (order: readonly number[], pool = texts) => history(order.length, (i) => `<html><body><aside><p>${pool[order[i]!]}</p></aside><main><h1>Opening hours</h1><p>We open at nine.</p></main></body></html>`);
    const pages = slot([0, 1, 0, 2]);
    const { policy, evidence } = suggestPolicy(pages, { kind: "html" });
    expect(policy.volatile).toEqual([{ selector: "body > aside:nth-of-type(1) > p:nth-of-type(1)" }]);
    expect(evidence).toEqual([expect.objectContaining({ kind: "volatile", shape: "rotating", changed: 3, pairs: 3 })]);
    const next = pages[3]!.replace(texts[2]!, "Our shop moves to Main Street");
    expect(diffHtml(pages[3]!, next, { policy })).toBeNull();
    // the slot going away, and the rest of the page, are still reported
    expect(diffHtml(pages[3]!, next.replace(/<aside>.*<\/aside>/, ""), { policy })).not.toBeNull();
    expect(diffHtml(pages[3]!, pages[3]!.replace("nine", "ten"), { policy })).not.toBeNull();
    // every text seen came back: the pool is known, a new text is reported
    expect(suggestPolicy(slot([0, 1, 2, 0, 1, 2]), { kind: "html" }).policy.volatile).toEqual([{ selector: "body > aside:nth-of-type(1) > p:nth-of-type(1)", seen: texts }]);
    // two texts taking turns (a status that flaps): kept; a text that changed on some fetches only is no open rotation
    expect(suggestPolicy(slot([0, 1, 0, 1], ["All good", "Service degraded"]), { kind: "html" }).policy.volatile).toBeUndefined();
    expect(suggestPolicy(slot([0, 1, 1, 2, 0]), { kind: "html" }).policy.volatile?.[0]?.seen).toEqual(texts);
  });

  describe("two texts taking turns on every fetch", () => {
    const page = (text: string, tag = "p") => `<html><body><aside><${tag}>${text}</${tag}></aside><main><h2>Opening hours</h2><p>We open at nine.</p></main></body></html>`;
    /** Learns from `texts` (one fetch each), then diffs the last fetch with `next`. */
    const next = (texts: readonly string[], text: string, tag = "p") => {
      const pages = texts.map((t) => page(t, tag));
      const { policy } = suggestPolicy(pages, { kind: "html" });
      return diffHtml(pages[pages.length - 1]!, page(text, tag), { policy });
    };
    const alternate = (a: string, b: string, n = 4) => history(n, (i) => (i % 2 === 0 ? a : b));

    it("take content (teasers, links, dates) for a slot over a pool the samples did not show whole: a third text is noise, the slot going away is not", () => {
      const teasers = alternate("Press and Youtube", "Friday Facts #282 - 0.17 in sight");
      expect(next(teasers, "Starter Page")).toBeNull();
      // words of a script without spaces are counted by their segments, not by spaces
      expect(next(alternate("2019年02月11日", "#サイバー攻撃"), "January 25, 2019")).toBeNull();
      expect(next(alternate("新着記事をまとめて読む", "来週のイベントの予定"), "今月の人気のおすすめ記事")).toBeNull();
      const pages = teasers.map((t) => page(t));
      const { policy } = suggestPolicy(pages, { kind: "html" });
      expect(diffHtml(pages[3]!, pages[3]!.replace(/<aside>.*<\/aside>/, ""), { policy })).not.toBeNull();
      expect(diffHtml(pages[3]!, pages[3]!.replace("nine", "ten"), { policy })).not.toBeNull();
    });

    it("keep a status that flaps: a third status is reported, whether one word, two, or a short line with a word of state", () => {
      expect(next(alternate("Operational", "Degraded"), "Major outage")).not.toBeNull();
      expect(next(alternate("Operational", "Degraded", 8), "Major outage")).not.toBeNull();
      expect(next(alternate("In stock", "Sold out"), "Discontinued")).not.toBeNull();
      expect(next(alternate("稼働中", "障害発生"), "メンテナンス中")).not.toBeNull();
      expect(next(alternate("All Systems Operational", "Partial System Outage"), "Major System Outage")).not.toBeNull();
      expect(next(alternate("All services running normally", "We are investigating reports of errors"), "All services are down")).not.toBeNull();
      // one status beside a longer text is still a status
      expect(next(alternate("Operational", "Degraded performance since 10:42 UTC"), "Major outage")).not.toBeNull();
    });

    it("remember prices that take turns (a price tested per request): a new price is reported, over three texts too", () => {
      expect(next(alternate("Pro plan: $19 a month, billed yearly", "Pro plan: $24 a month, billed monthly"), "Pro plan: $29 a month, billed monthly")).not.toBeNull();
      expect(next(["Starter kit from $49", "Family pack from $99", "Starter kit from $49", "Gift box from $35"], "Gift box from $45")).not.toBeNull();
    });

    it("remember a page's headline that takes turns (an A/B test): a new headline is reported", () => {
      const headlines = alternate("Council approves the new park on Elm Street", "The new park on Elm Street gets the go-ahead");
      expect(next(headlines, "Council delays the vote on the new park", "h1")).not.toBeNull();
      expect(next(headlines, headlines[1]!, "h1")).toBeNull();
    });

    it("never take a block that changed once, or a headline changed and then corrected, for a slot", () => {
      const a = "Listen to our new podcast every week";
      const b = "Meet us at the spring fair in May";
      expect(next([a, a, a, b], "Read the annual report online now")).not.toBeNull();
      expect(next([a, a, b, b, b], "Read the annual report online now")).not.toBeNull();
      // changed, then corrected: A B C on some fetches only
      expect(next([a, a, b, b, `${b} (corrected)`], "Read the annual report online now")).not.toBeNull();
      // changed and reverted once: A B A is two pairs, not enough to call it a slot
      expect(next([a, b, a], "Read the annual report online now")).not.toBeNull();
    });

    it("remember three short texts shown in three fetches (learned from three samples): one coming back is noise, a new one is reported", () => {
      // link texts, names, ids of a teaser slot: no state, no price, not a headline
      const slot = ["Login/Register", "Silicon Exposed", "4th generation"];
      expect(next(slot, "Login/Register")).toBeNull();
      expect(next(slot, "Silicon Exposed")).toBeNull();
      expect(next(slot, "My Order History")).not.toBeNull();
      const pages = slot.map((t) => page(t));
      const { policy, evidence } = suggestPolicy(pages, { kind: "html" });
      expect(policy.volatile).toEqual([{ selector: "body > aside:nth-of-type(1) > p:nth-of-type(1)", seen: slot }]);
      expect(evidence).toEqual([expect.objectContaining({ kind: "volatile", shape: "rotating", changed: 2, pairs: 2 })]);
      // the slot going away, and the rest of the page, are still reported
      expect(diffHtml(pages[2]!, pages[2]!.replace(/<aside>.*<\/aside>/, ""), { policy })).not.toBeNull();
      expect(diffHtml(pages[2]!, pages[2]!.replace("nine", "ten"), { policy })).not.toBeNull();
    });

    it("never remember three texts in three fetches that may be a state, a price or a headline, nor a block that changed once: its next change is reported", () => {
      // a status during an incident (one word, or a word of state): its recovery is reported
      expect(next(["Operational", "Degraded", "Outage"], "Operational")).not.toBeNull();
      expect(next(["Shipped", "Delayed", "Returned"], "Shipped")).not.toBeNull();
      expect(next(["Operational", "Major outage", "Under maintenance"], "Operational")).not.toBeNull();
      expect(next(["In stock", "Low stock", "Sold out"], "In stock")).not.toBeNull();
      expect(next(["稼働中", "障害発生", "復旧"], "稼働中")).not.toBeNull();
      // a price, a headline
      expect(next(["Now $19", "Sale: €24", "Deal $12!"], "Now $19")).not.toBeNull();
      expect(next(["Budget vote", "Budget fails", "Vote delayed"], "Budget vote", "h1")).not.toBeNull();
      // changed once (A A B), or changed and reverted (A B A): not three texts in three fetches
      expect(next(["Login/Register", "Login/Register", "Sign in / Join"], "Log in")).not.toBeNull();
      expect(next(["Login/Register", "Sign in / Join", "Login/Register"], "Log in")).not.toBeNull();
    });

    it("count words of scripts without spaces, so their prose that comes back is a rotation and a new text is reported", () => {
      const a = "新着記事をまとめて読む";
      const b = "来週のイベントの予定";
      expect(next([a, b, a], b)).toBeNull();
      expect(next([a, b, a], "今月の人気のおすすめ記事")).not.toBeNull();
    });
  });

  it("compares the numbers of one template's blocks by skeleton wherever they are, and rates a price in a paragraph medium", () => {
    const story = (k: number, i: number) => `<li><h2>Story number ${"ABCDE"[k]}</h2><p>${100 + 7 * i + k} points | ${10 + 3 * i + k} comments</p></li>`;
    const intro = "Our shop sells handmade furniture from local wood, built to last for generations and repaired for free when anything breaks. Every table is finished by hand with natural oils, and every chair is tested before it leaves the workshop. A dining table starts at $1,200.00 and ships within six weeks.";
    const page = (i: number, stories: number) => `<html><body><main><p>${intro}</p><ul id="stories">${Array.from({ length: stories }, (_, k) => story(k, i)).join("")}</ul></main></body></html>`;
    const pages = history(4, (i) => page(i, 3));
    const { policy } = suggestPolicy(pages, { kind: "html" });
    expect(policy.volatile).toEqual([{ selector: "#stories > li > p", parts: true, skeletons: ["<n> points | <n> comments"] }]);
    // a story added at the end: its counts moving are noise too, its title is reported
    expect(diffHtml(page(4, 4), page(5, 4), { policy })).toBeNull();
    expect(diffHtml(page(4, 3), page(5, 4), { policy })?.changes.map((c) => c.op)).toEqual(["add", "add"]);
    expect(diffHtml(pages[3]!, pages[3]!.replace("$1,200.00", "$1,350.00"), { policy })?.topSeverity).toBe("medium");
  });

  it("compares a ranked list whose items hold a block of their own (a byline and a headline) as a set", () => {
    const items = [
      ["Ann Lee", "Ten places to eat this winter"],
      ["Bo Park", "The city council votes on the new park"],
      ["Ann Lee", "A guide to the holiday lights downtown"],
      ["Cy Diaz", "How the river trail was rebuilt"],
    ];
    const orders = [[0, 1, 2, 3], [2, 0, 3, 1], [1, 3, 0, 2], [3, 2, 1, 0], [0, 2, 3, 1]];
    const page = (order: readonly number[], extra = "") =>
      `<html><body><main><h1>Local news</h1></main><aside><ol>${order.map((k) => `<li><div>By ${items[k]![0]}<h2>${items[k]![1]}</h2></div></li>`).join("")}${extra}</ol></aside></body></html>`;
    const { policy } = suggestPolicy(orders.slice(0, 4).map((o) => page(o)), { kind: "html" });
    expect(diffHtml(page(orders[3]!), page(orders[4]!), { policy })).toBeNull();
    expect(diffHtml(page(orders[3]!), page(orders[4]!, "<li><div>By Di Wu<h2>A new bakery opens on Elm Street</h2></div></li>"), { policy })).not.toBeNull();
  });

  it("compares a list item whose own numbers move by its skeleton, ahead of its list", () => {
    const paras = ["Alpha opens the story.", "Beta follows it closely.", "Gamma comes in third.", "Delta closes the story."];
    const page = (i: number) => {
      const order = i >= 2 ? [0, 2, 1, 3] : [0, 1, 2, 3];
      return `<html><body><main><h1>Report</h1><div><p>${200 + 3 * i} comments · ${900 + 5 * i} shares</p>${order.map((k) => `<p>${paras[k]}</p>`).join("")}</div></main></body></html>`;
    };
    const { policy } = suggestPolicy(history(4, page), { kind: "html" });
    expect(policy.volatile).toEqual([{ selector: "body > main:nth-of-type(1) > div:nth-of-type(1) > p:nth-of-type(1)", parts: true }, expect.objectContaining({ selector: "body > main:nth-of-type(1) > div:nth-of-type(1) > p" })]);
    expect(diffHtml(page(3), page(4), { policy })).toBeNull();
    expect(diffHtml(page(3), page(4).replace("Delta closes", "Delta ends"), { policy })).not.toBeNull();
  });

  it("follows a block that a paragraph added before it moved down: its numbers still move by skeleton, an edit is still reported", () => {
    const paras = ["We moved our monitoring to diffs.", "The biggest win was silence.", "Tags: monitoring, ops"];
    const page = (i: number, comments: number, opts: { added?: boolean; edit?: string } = {}) => {
      const body = [...paras];
      if (opts.added === true) body.splice(2, 0, "Update: we open-sourced it.");
      if (opts.edit !== undefined) body[1] = opts.edit;
      return `<html><body><article><p>Posted by Dana</p>${body.map((t) => `<p>${t}</p>`).join("")}<p>${String(comments)} comments</p></article><footer>page ${String(i % 1)}</footer></body></html>`;
    };
    // the comments paragraph moved from p:nth-of-type(5) to (6) when a paragraph was added at the third fetch
    const pages = [page(0, 27), page(1, 29), page(2, 31), page(3, 32, { added: true })];
    const { policy, evidence } = suggestPolicy(pages, { kind: "html" });
    expect(policy.volatile).toEqual([{ selector: "body > article:nth-of-type(1) > p", parts: true, skeletons: ["<n> comments"] }]);
    expect(evidence.find((e) => e.kind === "volatile")).toMatchObject({ changed: 2, pairs: 2 });
    // the added paragraph's place (it changed once, beyond numbers) is kept
    expect(evidence.filter((e) => e.kind === "kept").map((e) => e.selector)).toEqual(["body > article:nth-of-type(1) > p:nth-of-type(4)"]);
    expect(diffHtml(pages[3]!, page(4, 34, { added: true }), { policy })).toBeNull();
    // an edit of a paragraph's words is reported, and so is the added paragraph going away
    expect(diffHtml(pages[3]!, page(4, 34, { added: true, edit: "The biggest win was noise." }), { policy })?.changes.map((c) => c.after)).toEqual(["The biggest win was noise."]);
    expect(diffHtml(pages[3]!, page(4, 34), { policy })?.changes.some((c) => c.before === "Update: we open-sourced it.")).toBe(true);
    // two paragraphs that swapped places are not a shift: both stay kept
    const swapped = [page(0, 27), page(1, 27), page(2, 27).replace("<p>We moved our monitoring to diffs.</p><p>The biggest win was silence.</p>", "<p>The biggest win was silence.</p><p>We moved our monitoring to diffs.</p>")];
    expect(suggestPolicy(swapped, { kind: "html" }).policy.volatile ?? []).toEqual([{ selector: "body > article:nth-of-type(1) > p", parts: true, skeletons: ["<n> comments"] }]);
  });

  it("applies a followed block's parts entry to that block only: a number edited in another paragraph of the same parent is reported", () => {
    const paras = ["We moved our monitoring to diffs.", "The tour has 12 stops in 3 cities.", "Tags: monitoring, ops"];
    const page = (comments: number, opts: { added?: boolean; stops?: number } = {}) => {
      const body = [...paras];
      if (opts.stops !== undefined) body[1] = `The tour has ${String(opts.stops)} stops in 3 cities.`;
      if (opts.added === true) body.splice(2, 0, "Update: we open-sourced it.");
      return `<html><body><article><p>Posted by Dana</p>${body.map((t) => `<p>${t}</p>`).join("")}<p>${String(comments)} comments</p></article></body></html>`;
    };
    // the comments paragraph moves its numbers, and moves down when a paragraph is added above it
    const pages = [page(27), page(29), page(31), page(32, { added: true })];
    const { policy } = suggestPolicy(pages, { kind: "html" });
    expect(PolicyRulesSchema.safeParse(policy).success).toBe(true);
    // the comments still move by skeleton wherever the paragraph is
    expect(diffHtml(pages[3]!, page(34, { added: true }), { policy })).toBeNull();
    expect(diffHtml(pages[2]!, page(34, { added: true }), { policy })?.changes.map((c) => c.after)).toEqual(["Update: we open-sourced it."]);
    // a number edited in a sibling paragraph that never changed while learning is a real change
    expect(diffHtml(pages[3]!, page(34, { added: true, stops: 14 }), { policy })?.changes.map((c) => [c.before, c.after])).toEqual([["The tour has 12 stops in 3 cities.", "The tour has 14 stops in 3 cities."]]);
  });

  it("remembers the texts of a block that showed another one on every fetch: one coming back is noise, a new one is reported", () => {
    const texts = ["Apple ships a new laptop", "Rain expected all weekend", "Council approves the budget", "Library opens on Sundays"];
    const page = (text: string) => `<html><body><aside><p>${text}</p></aside><main><h1>Today</h1><p>We open at nine.</p></main></body></html>`;
    const { policy, evidence } = suggestPolicy(texts.map(page), { kind: "html" });
    expect(policy.volatile).toEqual([{ selector: "body > aside:nth-of-type(1) > p:nth-of-type(1)", seen: texts }]);
    expect(evidence).toEqual([expect.objectContaining({ kind: "volatile", shape: "rotating", changed: 3, pairs: 3 })]);
    expect(diffHtml(page(texts[3]!), page(texts[1]!), { policy })).toBeNull();
    expect(diffHtml(page(texts[3]!), page("Bridge closed after the storm"), { policy })).not.toBeNull();
    // short texts that changed on some fetches only (a headline changed, then corrected) are kept
    const some = ["Budget passes", "Budget passes", "Budget fails", "Budget passes again", "Budget vote delayed"].map(page);
    expect(suggestPolicy(some, { kind: "html" }).policy.volatile).toBeUndefined();
  });

  it("compares a line stating when the page was updated, or counting comments and shares, by skeleton before it moved", () => {
    const page = (updated: string, counts: string, hours = "We open at 09:00 and close at 17:00.") =>
      `<html><body><p class="updated">${updated}</p><main><h1>Report</h1><p>${counts}</p><p>${hours}</p><p>Doors open at 7 pm on 3 floors.</p></main></body></html>`;
    const pages = [page("Updated 08:00 UTC", "178 comments · 7,129 shares"), page("Updated 08:00 UTC", "178 comments · 7,129 shares")];
    const { policy, evidence } = suggestPolicy(pages, { kind: "html" });
    expect(policy.volatile).toEqual([
      { selector: "p.updated", parts: true },
      { selector: "body > main:nth-of-type(1) > p", parts: true, skeletons: ["<n> comments · <n> shares"] },
    ]);
    expect(evidence.filter((e) => e.kind === "volatile").map((e) => [e.shape, e.changed])).toEqual([["clock_line", 0], ["counts", 0]]);
    expect(diffHtml(pages[1]!, page("Updated 08:15 UTC", "181 comments · 7,140 shares"), { policy })).toBeNull();
    // their words, the opening hours and a number in another sentence are still compared
    expect(diffHtml(pages[1]!, page("Closed for the holidays", "181 comments · 7,140 shares"), { policy })).not.toBeNull();
    expect(diffHtml(pages[1]!, page("Updated 08:15 UTC", "181 comments · 7,140 shares", "We open at 10:00 and close at 17:00."), { policy })?.changes).toHaveLength(1);
    expect(diffHtml(pages[1]!, pages[1]!.replace("7 pm", "8 pm"), { policy })).not.toBeNull();
  });

  it("keeps a block whose text changed beyond numbers and times", () => {
    const pages = history(5, (i) => `<main><h1>${["Budget passes", "Storm warning issued", "Storm warning issued", "Markets rally", "New mayor elected"][i]}</h1></main>`);
    const { policy, evidence } = suggestPolicy(pages, { kind: "html" });
    expect(policy.volatile ?? []).toEqual([]);
    expect(evidence).toEqual([expect.objectContaining({ kind: "kept", shape: "text", changed: 3, pairs: 4 })]);
  });
});

describe("following shifted blocks (shiftedPairs)", () => {
  /** Three pages of `n` paragraphs, a new one inserted at the top of each: every block shifts down. */
  const shifted = (n: number): string[] => {
    const texts = Array.from({ length: n }, (_, i) => `Paragraph number ${String(i)} says ${String((i * 7919) % 10007)} things`);
    return [0, 1, 2].map((page) => {
      const top = Array.from({ length: page }, (_, i) => `Breaking item ${String(i)} of the day`).reverse();
      return `<html><body><article>${[...top, ...texts].map((t) => `<p>${t}</p>`).join("")}</article></body></html>`;
    });
  };
  const work = (n: number): number => {
    shiftedPairsWork.comparisons = 0;
    suggestPolicy(shifted(n), { kind: "html" });
    return shiftedPairsWork.comparisons;
  };

  it("compares texts a bounded number of times per block and pair: linear in the blocks, not quadratic", () => {
    const small = work(300);
    const large = work(3000);
    expect(small).toBeGreaterThan(0);
    // at most 2 lookups and 4 neighbours per block and pair (two pairs here)
    expect(large).toBeLessThanOrEqual(3000 * 2 * 6);
    // ten times the blocks, about ten times the work (a quadratic scan is a hundred times)
    expect(large / small).toBeLessThan(12);
  });
});

describe("bounded work on permuted pages (suggestHtmlPolicy)", () => {
  /** Four pages of `n` paragraphs (or list items) in another order each, their counts moving. */
  const permuted = (n: number, tag: "p" | "li"): string[] => {
    let seed = 7;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    return [0, 1, 2, 3].map((page) => {
      // paragraphs whose counts move; list items that only change places (a ranked list)
      const texts = Array.from({ length: n }, (_, i) => `Story ${String(i)} has ${String(100 + i + (tag === "p" ? page * 3 : 0))} comments`);
      for (let i = texts.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [texts[i], texts[j]] = [texts[j]!, texts[i]!];
      }
      const items = texts.map((t) => `<${tag} class="story">${t}</${tag}>`).join("");
      return `<html><body><main>${tag === "li" ? `<ul>${items}</ul>` : `<article>${items}</article>`}</main></body></html>`;
    });
  };
  const work = (n: number, tag: "p" | "li"): { queries: number; comparisons: number } => {
    stableSelectorWork.queries = 0;
    rankedListsWork.comparisons = 0;
    suggestPolicy(permuted(n, tag), { kind: "html" });
    return { queries: stableSelectorWork.queries, comparisons: rankedListsWork.comparisons };
  };

  it("queries each page a bounded number of times whatever the number of blocks (a block's element is looked up, not selected)", () => {
    const small = work(100, "p");
    const large = work(800, "p");
    expect(small.queries).toBeGreaterThan(0);
    // one query per page for the candidate class `p.story`; none per block
    expect(large.queries).toBe(small.queries);
    expect(large.queries).toBeLessThanOrEqual(4 * 200);
  });

  it("checks a ranked list's shifts in work linear in its items, not cubic", () => {
    const small = work(100, "li");
    const large = work(800, "li");
    expect(small.comparisons).toBeGreaterThan(0);
    // two sides of three pairs per list, each item once
    expect(large.comparisons).toBeLessThanOrEqual(800 * 2 * 3);
    expect(large.comparisons / small.comparisons).toBeLessThan(10);
  });
});

describe("suggestPolicy errors", () => {
  const codeOf = (fn: () => unknown): string | undefined => {
    try {
      fn();
    } catch (error) {
      return isDriftwatchError(error) ? `${error.code}: ${error.details[0]?.path}` : String(error);
    }
    return undefined;
  };

  it("refuses bad input with invalid_input naming the problem", () => {
    expect(codeOf(() => suggestPolicy([{}], { kind: "json" }))).toBe("invalid_input: history");
    expect(codeOf(() => suggestPolicy("[]" as unknown as unknown[], { kind: "json" }))).toBe("invalid_input: history");
    expect(codeOf(() => suggestPolicy(['{"a":1}', "{nope"], { kind: "json" }))).toBe("invalid_input: history[1]");
    expect(codeOf(() => suggestPolicy([{ a: 1 }, { a: Number.NaN }], { kind: "json" }))).toBe("invalid_input: history[1]");
    expect(codeOf(() => suggestPolicy([{}, {}], { kind: "xml" as "json" }))).toBe("invalid_input: options.kind");
    expect(codeOf(() => suggestPolicy([{}, {}], null as unknown as { kind: "json" }))).toBe("invalid_input: options");
    expect(codeOf(() => suggestPolicy(["<p>a</p>", 3], { kind: "html" }))).toBe("invalid_input: history[1]");
    expect(codeOf(() => suggestPolicy(["<p>a</p>", "<p>b</p>"], { kind: "html", selector: "" }))).toBe("invalid_input: options.selector");
  });

  it("refuses documents nested too deep with too_deep, without overflowing the stack", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 5000; i++) deep = [deep];
    expect(codeOf(() => suggestPolicy([deep, deep], { kind: "json" }))).toBe("too_deep: history");
  });
});
