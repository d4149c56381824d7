// What the learner must never learn away or under-rate, found on real payloads it had not seen
// (the seventh round's fresh histories: Shopify orders, npm search, Kubernetes objects, exchange
// tickers). Each case learns from a history with suggestPolicy and diffs the next fetch with what
// was learned, as the service does.
import type { PolicyRules } from "@driftwatch/schema";
import { describe, expect, it } from "vitest";
import { diffHtml, diffJson, suggestPolicy } from "../../src/index.js";

function learnThenDiff(fetches: unknown[]): { policy: PolicyRules; next: ReturnType<typeof diffJson> | null } {
  const history = fetches.slice(0, -1);
  const { policy } = suggestPolicy(history, { kind: "json" });
  return { policy, next: diffJson(history[history.length - 1], fetches[fetches.length - 1], { policy }) };
}

const base = Date.parse("2026-11-20T08:00:00Z");
const iso = (minutes: number): string => new Date(base + minutes * 60_000).toISOString();

describe("the learner never hides or under-rates these", () => {
  it("a decimal string beside a moving time that changed once (a tax) is kept, and its next change is rated medium", () => {
    // updated_at moves on every fetch; total_tax changed once while learning
    const fetches = Array.from({ length: 9 }, (_, i) => ({
      id: 450789469,
      updated_at: iso(i * 5),
      total_tax: i < 3 ? "11.94" : i < 8 ? "11.95" : "11.96",
      note: "Deliver to the side door",
    }));
    const { next } = learnThenDiff(fetches);
    const change = next?.changes.find((c) => c.path === "$.total_tax");
    expect(change, JSON.stringify(next?.changes)).toBeDefined();
    expect(change!.severity).not.toBe("info");
    expect(["medium", "high", "critical"]).toContain(change!.severity);
  });

  it("a bare `total` (an invoice's, money) that never moved is not taken for a count: a change is reported as a price", () => {
    const fetches = Array.from({ length: 5 }, (_, i) => ({ id: "in_1", total: i < 4 ? 2000 : 2500, currency: "usd", updated: 1_763_625_600 + i * 300 }));
    const { policy, next } = learnThenDiff(fetches);
    expect(policy.volatile?.some((v) => v.path === "$.total") ?? false).toBe(false);
    const change = next?.changes.find((c) => c.path === "$.total");
    expect(change?.severity).toBe("medium");
  });

  it("a Prometheus-style `…_total` counter and a `total_count` are still counts that may go up", () => {
    const fetches = Array.from({ length: 5 }, (_, i) => ({ checks_total: 52084, total_count: 31, name: "api", ...(i === 4 ? { checks_total: 52096, total_count: 32 } : {}) }));
    const { next } = learnThenDiff(fetches);
    expect(next).toBeNull();
  });

  it("an enum-like name with a version suffix (`RollingUpdate_v2`) is not a token: a change is rated medium, also after it changed once", () => {
    const values = ["RollingUpdate", "RollingUpdate", "RollingUpdate", "RollingUpdate_v2", "RollingUpdate_v2", "RollingUpdate_v2", "RollingUpdate_v2", "legacy_RollingUpdate_v2"];
    const fetches = values.map((type, i) => ({ metadata: { name: "web", resourceVersion: String(1000 + i) }, spec: { replicas: 3, updateStrategy: { type } } }));
    const { next } = learnThenDiff(fetches);
    const change = next?.changes.find((c) => c.path === "$.spec.updateStrategy.type");
    expect(change?.severity).toBe("medium");
  });

  it("a host's address that changes is rated medium, stable or after it changed once", () => {
    const stable = learnThenDiff(Array.from({ length: 5 }, (_, i) => ({ spec: { clusterIP: i < 4 ? "10.47.248.116" : "10.48.248.116", type: "ClusterIP" } })));
    expect(stable.next?.changes.find((c) => c.path === "$.spec.clusterIP")?.severity).toBe("medium");
    const again = learnThenDiff(["10.47.248.116", "10.47.248.116", "10.48.248.116", "10.48.248.116", "10.48.248.116", "fd00::4"].map((ip) => ({ spec: { clusterIP: ip } })));
    expect(again.next?.changes.find((c) => c.path === "$.spec.clusterIP")?.severity).toBe("medium");
  });
});

// Readings on clocks of their own (smart meters, devices' signal strengths): learned from their
// behaviour, each with what must still be reported.
describe("readings learned by their behaviour", () => {
  // a reading that moves on some fetches only: [value at fetch 0..n]
  // a neutral name: these are judged by behaviour alone (a name such as `rssi` says it is a reading on its own)
  const walk = (values: number[], extra: (i: number) => Record<string, unknown> = () => ({})) => values.map((v, i) => ({ link: v, ...extra(i) }));

  it("a number that went up and down on three fetches by varying amounts is a reading: its next move is quiet, a jump beyond what it did is reported", () => {
    const values = [-66, -66, -58, -58, -69, -69, -61, -61];
    const quiet = learnThenDiff(walk([...values, -64]));
    expect(quiet.next).toBeNull();
    expect(quiet.policy.tolerance?.some((t) => t.path === "$.link")).toBe(true);
    const jump = learnThenDiff(walk([...values, -610]));
    expect(jump.next?.changes.map((c) => c.path)).toEqual(["$.link"]);
    // twice up and down is not enough: a setting changed and changed back
    const twice = learnThenDiff(walk([5, 5, 3, 3, 5, 5, 4]));
    expect(twice.next?.changes.map((c) => c.path)).toEqual(["$.link"]);
  });

  it("a running total (a meter's kWh) that only went up is quiet while it goes up; going down is reported; a reading that rose three times is not one", () => {
    // moves of 1 to 2 %: more than a float's jitter
    const kwh = [100.5, 101.7, 101.7, 103.2, 104.0, 104.0];
    const total = (last: number) => kwh.concat(last).map((v) => ({ energy_import_kwh: v, meter: "HWE-KWH3" }));
    expect(learnThenDiff(total(106.1)).next).toBeNull();
    expect(learnThenDiff(total(12.3)).next?.changes.map((c) => c.path)).toEqual(["$.energy_import_kwh"]);
    // an unnamed non-integer that rose on three fetches (a temperature on a sunny morning) and falls
    const temperature = [17.1, 17.3, 17.6, 17.9, 17.7].map((t) => ({ temperature: t, station: "EHAM" }));
    const fall = learnThenDiff(temperature);
    expect(fall.policy.volatile?.some((v) => v.path === "$.temperature" && v.forward === true) ?? false).toBe(false);
  });

  it("an uptime is a count that grows on its own, before it moved; a restart that resets it is reported", () => {
    const device = (uptime: number) => ({ name: "WLED", uptime, leds: { count: 30 } });
    expect(learnThenDiff([device(32), device(32), device(32), device(92)]).next).toBeNull();
    expect(learnThenDiff([device(32), device(32), device(32), device(5)]).next?.changes.map((c) => c.path)).toEqual(["$.uptime"]);
  });

  it("in an object most of whose numbers are readings, a number that moved rarely is one too (a tolerance); a larger move of it, a flag or money is reported", () => {
    // power, current and voltage move on most fetches; `battery_mv` moved once by 4 %
    const meter = (i: number, battery: number, extra: Record<string, unknown> = {}) => ({
      power_w: [159, 115, 131, 122, 140, 128, 150][i % 7],
      current_a: [0.77, 0.78, 0.75, 0.79, 0.74, 0.8, 0.76][i % 7],
      voltage_v: [229.1, 230.4, 228.7, 231.2, 229.9, 230.8, 228.1][i % 7],
      battery_mv: battery,
      phases: 3,
      tariff_price: 0.29,
      ...extra,
    });
    const history = [0, 1, 2, 3, 4, 5].map((i) => meter(i, i < 3 ? 4128 : 4300));
    const quiet = learnThenDiff([...history, meter(6, 4190)]);
    expect(quiet.next).toBeNull();
    // a move far beyond (a setting, not a reading) is reported; so are the number of phases and money
    const loud = learnThenDiff([...history, meter(6, 9000, { phases: 1, tariff_price: 0.35 })]);
    expect(loud.next?.changes.map((c) => c.path).sort()).toEqual(["$.battery_mv", "$.phases", "$.tariff_price"]);
  });
});


// Found in review (2026-11-28) on targets nobody here has seen: each hazard a rule of the day could
// hide or under-rate.
describe("review: the day's rules never hide these", () => {
  const page = (status: string, extra = "") => `<html><body><main><h2>Acme status</h2><p class="status">${status}</p>${extra}</main></body></html>`;
  const learnPages = (texts: string[], last: string) => {
    const pages = texts.map((t) => page(t));
    const { policy } = suggestPolicy(pages, { kind: "html" });
    return diffHtml(pages[pages.length - 1]!, page(last), { policy });
  };

  it("a status page whose prose status went through three states while learning: a return to a state seen is reported", () => {
    // three fetches (first3): operational, then an incident, then worse; later recovered
    expect(learnPages(["All Systems Operational", "Partial System Outage", "Major Service Outage"], "All Systems Operational")).not.toBeNull();
    expect(learnPages(["All Systems Operational", "Partial System Outage", "Major Service Outage"], "Partial System Outage")).not.toBeNull();
    // an incident's updates through a long learning window (another text on every fetch, none twice)
    expect(learnPages(["Investigating elevated API errors", "Identified the failing database node", "Monitoring the recovery of the API", "Resolved: all API requests succeed", "All systems are operating normally"], "Investigating elevated API errors")).not.toBeNull();
    // prose that flaps between a state and another (it came back while learning), then a third
    expect(learnPages(["All Systems Operational", "Partial System Outage", "All Systems Operational", "Partial System Outage"], "Major Service Outage")).not.toBeNull();
    // in a language written without spaces, and in German
    expect(learnPages(["全てのシステムが正常に稼働しています", "一部のサービスで障害が発生しています", "現在メンテナンスを実施しています"], "全てのシステムが正常に稼働しています")).not.toBeNull();
    expect(learnPages(["Alle Systeme sind betriebsbereit", "Teilweise Störung der API", "Geplante Wartung der Datenbank"], "Alle Systeme sind betriebsbereit")).not.toBeNull();
    // a status that flapped over three states on every fetch: a fourth state is reported, and so is a return
    expect(learnPages(["Operational", "Degraded performance", "Operational", "Partial outage"], "Major outage")).not.toBeNull();
    expect(learnPages(["All Systems Operational", "Degraded Performance", "All Systems Operational", "Partial System Outage"], "Major Service Outage")).not.toBeNull();
  });

  // KNOWN HAZARD, not fixed (review 2026-11-28): a slot learned as an open pool (two texts taking turns,
  // or three or more with one come back: volatile with neither `seen` nor `parts`) hides ANY later
  // text, a state never seen included. The learner cannot express "any text but a state" with the
  // volatile entry's fields (parts, seen, forward, skeletons); fixing it needs the diff (or the
  // schema) to tell a learned open slot from a user's volatile block. Reverting the two-text rule
  // alone would not close it (the pool of three has it too) and breaks learn.test.ts's slot tests.
  it.fails("a product page's buy box whose two delivery promos took turns while learning: a new text (out of stock) is reported, a promo seen is not", () => {
    const product = (text: string) => `<html><body><main><h1>Acme Kettle 1.7 L</h1><p class="buybox">${text}</p><p>Stainless steel kettle with a 1.7 litre capacity.</p></main></body></html>`;
    const promos = ["Free delivery on your first order with Prime", "Arrives before Christmas when ordered today"];
    const pages = [0, 1, 0, 1, 0].map((i) => product(promos[i]!));
    const { policy } = suggestPolicy(pages, { kind: "html" });
    expect(diffHtml(pages[4]!, product(promos[1]!), { policy })).toBeNull();
    expect(diffHtml(pages[4]!, product("Currently unavailable."), { policy })).not.toBeNull();
    expect(diffHtml(pages[4]!, product("Only available to business customers"), { policy })).not.toBeNull();
  });

  it("in an object of readings, a setting that never moved (a thermostat's setpoint) is not taken for a slower reading", () => {
    const thermostat = (i: number, setpoint: number) => ({
      device: { temperature: [21.3, 21.1, 21.6, 21.4, 21.2, 21.7, 21.5][i % 7], humidity: [45.2, 46.1, 44.8, 45.9, 46.4, 45.1, 44.6][i % 7], pressure: [1013.2, 1012.8, 1013.9, 1012.4, 1013.5, 1012.1, 1013.7][i % 7], setpoint },
    });
    const { policy, next } = learnThenDiff([0, 1, 2, 3, 4, 5, 6].map((i) => thermostat(i, i < 6 ? 20.5 : 21.5)));
    expect(policy.tolerance?.some((t) => t.path === "$.device.setpoint") ?? false).toBe(false);
    expect(next?.changes.map((c) => c.path)).toEqual(["$.device.setpoint"]);
  });

  it("beside a repository's moving counts, its id and an issue number that never moved are kept (another repository, another issue)", () => {
    const repo = (i: number, id: number, number: number) => ({
      id,
      latest_issue: { number },
      stargazers_count: 1000 + i * 3 + (i % 2),
      watchers_count: 1000 + i * 3 + (i % 2),
      forks_count: 200 + i + (i % 3),
      open_issues_count: 40 + (i % 4),
      size: 5120 + i * 7 + (i % 2) * 3,
    });
    const history = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => repo(i, 123456789, 17));
    const { policy } = suggestPolicy(history, { kind: "json" });
    expect(policy.tolerance?.some((t) => t.path === "$.id") ?? false).toBe(false);
    const next = diffJson(history[7], repo(8, 123987654, 17), { policy });
    expect(next?.changes.map((c) => c.path)).toContain("$.id");
  });

  it("an amount of money written as a decimal string beside a moving time (a Shopify order's discounts) that changed twice is kept, rated medium", () => {
    const discounts = ["0.00", "0.00", "0.00", "10.00", "10.00", "10.00", "15.50", "15.50", "15.50", "40.00"];
    const fetches = discounts.map((d, i) => ({ order: { id: 450789469, updated_at: iso(i * 5), total_discounts: d, financial_status: "paid" } }));
    const { policy, next } = learnThenDiff(fetches);
    expect(policy.volatile?.some((v) => v.path === "$.order.total_discounts") ?? false).toBe(false);
    const change = next?.changes.find((c) => c.path === "$.order.total_discounts");
    expect(change?.severity).toBe("medium");
  });
});

describe("review: families of readings", () => {
  it("an account's balances written with one format (Kraken's Balance), one of which changed once (a deposit), are kept: a withdrawal is reported", () => {
    const balances = (xbt: string, eth: string) => ({ error: [], result: { XXBT: xbt, XETH: eth, XXRP: "1520.4412300000", XLTC: "12.9907310000" } });
    const history = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => balances(i < 4 ? "0.1234567890" : "0.1271234560", "2.5000123400"));
    const { policy } = suggestPolicy(history, { kind: "json" });
    const next = diffJson(history[7], balances("0.1271234560", "2.3750117230"), { policy });
    expect(next?.changes.map((c) => c.path)).toEqual(["$.result.XETH"]);
  });
});

describe("review: numbers that went up and down", () => {
  it("a setting or a code that went up and down while learning (a thermostat's scheduled setpoint, an HTTP status code) is not a reading: its next change is reported", () => {
    const setpoints = [20, 20, 18.5, 18.5, 21, 21, 19, 19, 19];
    const thermostat = (s: number) => ({ name: "Hallway", target_temperature: s, hvac: "heat" });
    const moved = learnThenDiff([...setpoints, 22].map(thermostat));
    expect(moved.policy.tolerance?.some((t) => t.path === "$.target_temperature") ?? false).toBe(false);
    expect(moved.next?.changes.map((c) => c.path)).toEqual(["$.target_temperature"]);
    const codes = [200, 200, 503, 503, 200, 502, 200, 200, 200];
    const probe = (code: number) => ({ url: "https://api.example.com/health", status_code: code });
    expect(learnThenDiff([...codes, 301].map(probe)).next?.changes.map((c) => c.path)).toEqual(["$.status_code"]);
  });
});

describe("readings by their names", () => {
  // A HomeWizard socket: two powers on a clock slower than the fetches, each moved once so far.
  const socket = (power: number, l1: number, extra: Record<string, unknown> = {}) => ({ wifi_ssid: "My Wi-Fi", wifi_strength: 100, total_power_import_t1_kwh: 10830.511, active_power_w: power, active_power_l1_w: l1, ...extra });

  it("a device's readings named with their unit that moved once are readings: their next move is quiet, a move beyond half or double is reported", () => {
    const history = [socket(152, 141), socket(152, 141), socket(133, 119), socket(133, 119)];
    expect(learnThenDiff([...history, socket(170, 152)]).next).toBeNull();
    expect(learnThenDiff([...history, socket(2900, 152)]).next?.changes.map((c) => c.path)).toEqual(["$.active_power_w"]);
    // a reading gone (null, removed) is still reported
    expect(learnThenDiff([...history, socket(170, 152, { active_power_w: null })]).next?.changes.map((c) => c.path)).toEqual(["$.active_power_w"]);
  });

  it("a meter's running total named with its unit is quiet while it goes up, before it moved; going down is reported", () => {
    const history = [socket(152, 141), socket(152, 141), socket(152, 141)];
    expect(learnThenDiff([...history, socket(152, 141, { total_power_import_t1_kwh: 10830.9 })]).next).toBeNull();
    expect(learnThenDiff([...history, socket(152, 141, { total_power_import_t1_kwh: 830.511 })]).next?.changes.map((c) => c.path)).toEqual(["$.total_power_import_t1_kwh"]);
  });

  it("a rated figure, a setting, a product's mass or a score is not a reading by its name: a change after it changed once is reported", () => {
    const figures = ["max_power_w", "status_led_brightness_pct", "weight_kg", "score_a", "capacity_kwh", "timeout_s", "thumb_w", "envVar"];
    for (const name of figures) {
      const product = (value: number) => ({ sku: "KETTLE-1", [name]: value, active_power_w: 20 + value / 100 });
      // the other member, a reading, moves on every fetch: the object is live
      const history = [product(2200), product(2200), product(2000), product(2000)];
      expect(learnThenDiff([...history, product(1800)]).next?.changes.map((c) => c.path), name).toContain(`$.${name}`);
    }
  });

  it("a product's figure named with a quantity (a kettle's `power`), in an object where nothing else is a reading, is kept after it changed once", () => {
    const kettle = (power: number, stock: number) => ({ sku: "KETTLE-1", power, stock, updated_at: iso(stock) });
    const history = [kettle(2200, 10), kettle(2200, 9), kettle(2000, 8), kettle(2000, 7)];
    expect(learnThenDiff([...history, kettle(1800, 6)]).next?.changes.map((c) => c.path)).toContain("$.power");
  });
});

describe("a field that becomes volatile later", () => {
  const token = (i: number) => `req_${["hOtbPFgyvLbDTs", "Q8zKd2LmXc4RtY", "p0VwNq7sJe3HbG", "Zt5YcRk9WmA2Lu"][i]}`;
  it("is learned from its first change on once it changed on every fetch since, three times, each to a new token, whatever it was before", () => {
    const before = Array.from({ length: 6 }, () => ({ id: 7, trace: "none" }));
    const history = [...before, ...[0, 1, 2].map((i) => ({ id: 7, trace: token(i) }))];
    expect(learnThenDiff([...history, { id: 7, trace: token(3) }]).next).toBeNull();
    // going back to its old value, a removal or a type change is still reported
    expect(learnThenDiff([...history, { id: 7 }]).next?.changes.map((c) => c.path)).toEqual(["$.trace"]);
    expect(learnThenDiff([...history, { id: 7, trace: 42 }]).next?.changes.map((c) => c.path)).toEqual(["$.trace"]);
  });

  it("is kept while it changed twice only, or to values that came back (a status that flaps)", () => {
    const before = Array.from({ length: 6 }, () => ({ id: 7, trace: "none" }));
    const twice = [...before, ...[0, 1].map((i) => ({ id: 7, trace: token(i) }))];
    expect(learnThenDiff([...twice, { id: 7, trace: token(2) }]).next?.changes.map((c) => c.path)).toEqual(["$.trace"]);
    const flaps = [...before, ...[0, 1, 0].map((i) => ({ id: 7, trace: token(i) }))];
    expect(learnThenDiff([...flaps, { id: 7, trace: token(3) }]).next?.changes.map((c) => c.path)).toEqual(["$.trace"]);
  });
});

describe("prefixed ids of letters only", () => {
  it("a request id of base62 that drew no digit (`req_hOtbPFgyvLbDTs`) is a token; words run together (`type_iPhoneProMax`) are not", () => {
    const ids = ["req_hOtbPFgyvLbDTs", "req_QkzKdwLmXcrRtY", "req_pBVwNqesJeHbGx", "req_ZtrYcRkqWmAwLu"];
    const requests = ids.map((request_id) => ({ request_id, plan: "pro" }));
    const learned = learnThenDiff(requests);
    expect(learned.policy.volatile?.map((v) => v.path)).toContain("$.request_id");
    expect(learned.next).toBeNull();
    const kinds = ["type_iPhoneProMax", "type_getElementById", "type_HTMLParser", "type_AccountDisabled"].map((type) => ({ type, plan: "pro" }));
    expect(suggestPolicy(kinds.slice(0, 3), { kind: "json" }).policy.volatile?.map((v) => v.path) ?? []).not.toContain("$.type");
  });
});

describe("readings by their units and quotes by their market", () => {
  it("a ticker's quotes (bid, ask, last, volume) that moved once are quotes: a move of up to 10 % is quiet, a larger one is reported", () => {
    const ticker = (ask: string, bid = "73368.43") => ({ result: { open: "72165.04", bid, ask, low: "68701.12", high: "73636.72", last: "73363.07", volume: "17340.923796" } });
    const history = [ticker("73371.13"), ticker("73371.13"), ticker("73102.50"), ticker("73102.50")];
    expect(learnThenDiff([...history, ticker("73310.35")]).next).toBeNull();
    expect(learnThenDiff([...history, ticker("93310.35")]).next?.changes.map((c) => c.path)).toEqual(["$.result.ask"]);
    // a quote that goes away is reported
    const { bid: _gone, ...withoutBid } = ticker("73310.35").result;
    expect(learnThenDiff([...history, { result: withoutBid }]).next?.changes.map((c) => c.path)).toEqual(["$.result.bid"]);
  });

  it("a product's price range (`low`, `high`) beside its price is no ticker: a change after one change is reported", () => {
    const product = (low: number, high: number) => ({ sku: "KETTLE-1", price: 49, price_range: { low, high, currency_code: "EUR" } });
    const history = [product(39, 59), product(39, 59), product(35, 59), product(35, 59)];
    expect(learnThenDiff([...history, product(33, 59)]).next?.changes.map((c) => c.path)).toEqual(["$.price_range.low"]);
  });

  it("a generic `Value` whose `Unit` names a physical reading (an inverter's `{ Value, Unit: \"A\" }`) is a reading; one in kilograms is not", () => {
    // (review2: in a block of such readings, as Fronius sends them; a lone `{ Value, Unit: "W" }` edited once is a product's attribute as often, below)
    const inverter = (iac: number, weight = 21.5) => ({ Body: { Data: { IAC_L1: { Value: iac, Unit: "A" }, UAC_L1: { Value: 229.4, Unit: "V" }, PAC: { Value: 212, Unit: "W" }, WEIGHT: { Value: weight, Unit: "kg" } } } });
    const history = [inverter(0.926), inverter(0.926), inverter(0.894), inverter(0.894)];
    expect(learnThenDiff([...history, inverter(0.95)]).next).toBeNull();
    const weights = [inverter(0.926, 21.5), inverter(0.926, 21.5), inverter(0.926, 20.9), inverter(0.926, 20.9)];
    expect(learnThenDiff([...weights, inverter(0.926, 20.1)]).next?.changes.map((c) => c.path)).toEqual(["$.Body.Data.WEIGHT.Value"]);
  });

  it("a weather station's run-together names (`windspeedmph`, `tempf`) and a battery block's `v_out` (null in a block that reports none) are readings", () => {
    const station = (wind: number, temp: number) => [{ macAddress: "00:0E:C6:20:0F:7B", lastData: { windspeedmph: wind, tempf: temp, winddir: 200 } }];
    const history = [station(1.61, 68.9), station(1.61, 68.9), station(1.4, 69.3), station(1.4, 69.3)];
    expect(learnThenDiff([...history, station(1.9, 70.1)]).next).toBeNull();
    const blocks = (v: number, f: number) => ({ battery_blocks: [{ PackageSerialNumber: "TG1", v_out: v, f_out: f }, { PackageSerialNumber: "TG2", v_out: null, f_out: null }] });
    const powerwall = [blocks(232.6, 50.01), blocks(232.6, 50.13), blocks(223.7, 50.17), blocks(223.7, 51.1)];
    expect(learnThenDiff([...powerwall, blocks(223.2, 51.09)]).next).toBeNull();
  });

  it("a hardware version written with a letter (`HWVersion: \"2.4E\"`) and a sensor's model code (`BMP280_temperature`) that change are rated medium", () => {
    const logger = (hw: string) => ({ Body: { LoggerInfo: { HWVersion: hw, SWVersion: "3.18.7-1", UniqueID: "240.420912" } } });
    const hw = learnThenDiff([logger("2.4E"), logger("2.4E"), logger("2.4E"), logger("2.5E")]);
    expect(hw.next?.changes.map((c) => [c.path, c.severity])).toEqual([["$.Body.LoggerInfo.HWVersion", "medium"]]);
    const sensors = (type: string) => ({ sensordatavalues: [{ value_type: "SDS_P1", value: "6.00" }, { value_type: type, value: "21.40" }] });
    const model = learnThenDiff([sensors("BMP280_temperature"), sensors("BMP280_temperature"), sensors("BMP280_temperature"), sensors("BME280_temperature")]);
    expect(model.next?.changes.map((c) => c.severity)).toContain("medium");
  });
});

describe("arrays of one element", () => {
  it("a member of the only element of a nested array (a segment's rule `type`) that changed once is kept and its next change rated medium, at its own path", () => {
    const env = (type: string, at: number) => ({ updated_at: iso(at), project: { segments: [{ id: 1, name: "Test segment", rules: [{ type: "ALL", rules: [{ type, rules: [], conditions: [{ operator: "EQUAL", property_: "foo", value: "bar" }] }] }] }] } });
    const { next } = learnThenDiff([env("ALL", 0), env("ALL", 5), env("ALL_v2", 10), env("ALL_v2", 15), env("ANY", 20)]);
    expect(next?.changes.map((c) => [c.path, c.severity])).toEqual([["$.project.segments[0].rules[0].rules[0].type", "medium"]]);
  });
});

describe("an identity missing from one element", () => {
  it("a list keyed by `id`, reordered, where one element lost its id once: the key holds, and a status changed after it changed once is rated medium at its element", () => {
    const terminal = (n: number, status = "active", id = true) => ({ ...(id ? { id: `term_${n}MgL4wea46qkRcoTZjWEH` } : {}), status, brand: "PAX", serialNumber: "1234567890" });
    const list = (order: number[], statuses: Record<number, string> = {}, noId = -1) => ({ count: 3, terminals: order.map((n) => terminal(n, statuses[n] ?? "active", n !== noId)) });
    const history = [list([7, 8, 9]), list([9, 7, 8]), list([7, 8, 9], { 8: "suspended" }), list([8, 9, 7], { 8: "suspended" }), list([7, 8, 9], { 8: "suspended" }, 9), list([9, 8, 7], { 8: "suspended" })];
    const { policy, next } = learnThenDiff([...history, list([7, 9, 8], { 8: "failed" })]);
    expect(policy.arrayKeys).toEqual({ "$.terminals": "id" });
    expect(next?.changes.map((c) => [c.path, c.severity])).toEqual([["$.terminals[2].status", "medium"]]);
  });
});

describe("review: tickers by their words", () => {
  // (review2: passes on main; it fails without QUOTE_ANCHOR, which no other test exercised)
  it("a hotel's rates named like quotes (`low`, `high`, `best`), none of them a bid, an ask, a last trade or a volume, are no ticker: a change under 10 % is reported", () => {
    const hotel = (best: number, at: number) => ({ updated_at: iso(at), rates: { low: 89, high: 149, best } });
    const history = [hotel(109, 0), hotel(109, 5), hotel(99, 10), hotel(99, 15)];
    expect(learnThenDiff([...history, hotel(95, 20)]).next?.changes.map((c) => c.path)).toEqual(["$.rates.best"]);
  });

  it("a basket's prices (`basketPrice`, `unitPrice`, `salePrice`) are no ticker: a price changed after it changed once is reported, rated medium", () => {
    const basket = (unitPrice: number, at: number) => ({ updated_at: iso(at), cart: { basketPrice: unitPrice * 2, unitPrice, salePrice: unitPrice - 1, base_price: 10 } });
    const { next } = learnThenDiff([basket(20, 0), basket(20, 5), basket(21, 10), basket(21, 15), basket(22, 20)]);
    expect(next?.changes.map((c) => [c.path, c.severity])).toContainEqual(["$.cart.unitPrice", "medium"]);
  });
});

// Review (2026-11-29) of the day's rules - readings by their names, tickers' quotes, volatile later
// - on APIs the corpus does not have: each case a real change a rule of the day hid.
describe("review: today's rules", () => {
  it("a thermostat's set temperature beside its `current_temperature` (Home Assistant's climate entity) is a setting, not a reading: a change is reported", () => {
    const entity = (current: number, target: number, at: number) => ({
      entity_id: "climate.hallway",
      state: "heat",
      attributes: { current_temperature: current, temperature: target, current_humidity: 45, humidity: 40, hvac_action: "heating", min_temp: 7, max_temp: 35 },
      last_updated: iso(at),
    });
    const history = [entity(21.3, 20, 0), entity(21.1, 20, 5), entity(20.8, 20, 10), entity(21.0, 20, 15), entity(21.2, 20, 20)];
    expect(learnThenDiff([...history, entity(21.2, 24, 25)]).next?.changes.map((c) => c.path)).toEqual(["$.attributes.temperature"]);
    // changed once while learning, then again
    const moved = [entity(21.3, 20, 0), entity(21.1, 20, 5), entity(20.8, 22, 10), entity(21.0, 22, 15), entity(21.2, 22, 20)];
    expect(learnThenDiff([...moved, entity(21.2, 18, 25)]).next?.changes.map((c) => c.path)).toEqual(["$.attributes.temperature"]);
  });

  it("a product's figure or a device's setting named with an electrical unit that never moved (a car's `power_kw`, a power bank's `output_w`, a monitor's `refresh_rate_hz`, a radio's `tx_power_dbm`, a `{ value, unit: \"W\" }` attribute) is reported when it changes", () => {
    const cases: [string, (v: number) => unknown, number, number, string][] = [
      ["car", (v) => ({ id: "car-1", make: "VW", model: "Golf", price: 21990, mileage: 45000, power_kw: v }), 110, 150, "$.power_kw"],
      ["power bank", (v) => ({ sku: "A1289", name: "Anker 737", capacity_mah: 24000, output_w: v, price: 109.99 }), 140, 100, "$.output_w"],
      ["monitor", (v) => ({ sku: "MON-27", refresh_rate_hz: v, price: 299 }), 144, 240, "$.refresh_rate_hz"],
      ["access point", (v) => ({ radio: { channel: 36, tx_power_dbm: v, channel_width: 80 } }), 20, 14, "$.radio.tx_power_dbm"],
      ["attribute", (v) => ({ attributes: { power: { value: v, unit: "W" }, weight: { value: 1.2, unit: "kg" } } }), 9, 12, "$.attributes.power.value"],
    ];
    for (const [name, make, before, after, path] of cases) {
      expect(learnThenDiff([make(before), make(before), make(before), make(after)]).next?.changes.map((c) => c.path), name).toEqual([path]);
    }
  });

  it("a product's figure or a device's setting named with a unit, edited once while learning (a car's `power_kw`, a radio's `tx_power_dbm`, a `{ value, unit: \"W\" }` attribute), is reported when it changes again", () => {
    const car = (kw: number, at: number) => ({ id: "car-1", price: 21990, power_kw: kw, updated_at: iso(at) });
    expect(learnThenDiff([car(110, 0), car(110, 5), car(96, 10), car(96, 15), car(150, 20)]).next?.changes.map((c) => c.path)).toEqual(["$.power_kw"]);
    const radio = (dbm: number) => ({ radio: { channel: 36, tx_power_dbm: dbm } });
    expect(learnThenDiff([radio(20), radio(20), radio(17), radio(17), radio(11)]).next?.changes.map((c) => c.path)).toEqual(["$.radio.tx_power_dbm"]);
    const lamp = (watts: number) => ({ attributes: { power: { value: watts, unit: "W" }, weight: { value: 0.2, unit: "kg" } } });
    expect(learnThenDiff([lamp(9), lamp(9), lamp(8), lamp(8), lamp(12)]).next?.changes.map((c) => c.path)).toEqual(["$.attributes.power.value"]);
  });

  it("an energy tariff's rate per kWh is money, not a reading by its unit: a change is reported", () => {
    const tariff = (rate: number) => ({ tariff: { name: "Agile", rate_per_kwh: rate, standing_charge_per_day: 0.53 } });
    expect(learnThenDiff([tariff(0.245), tariff(0.245), tariff(0.245), tariff(0.3)]).next?.changes.map((c) => c.path)).toEqual(["$.tariff.rate_per_kwh"]);
    // beside a meter's readings that move (a smart meter that shows its tariff)
    const meter = (i: number, rate: number) => ({ active_power_w: [152, 133, 170, 141, 160][i]!, active_power_l1_w: [141, 119, 152, 130, 149][i]!, rate_per_kwh: rate });
    expect(learnThenDiff([meter(0, 0.245), meter(1, 0.245), meter(2, 0.245), meter(3, 0.245), meter(4, 0.3)]).next?.changes.map((c) => c.path)).toEqual(["$.rate_per_kwh"]);
  });

  it("a bill's energy beside its cost (UtilityAPI's `bill_total_kwh`) is no meter's running total: a correction upwards is reported", () => {
    const bills = (kwh: number) => ({
      bills: [
        { uid: "b1", bill_total_kwh: kwh, bill_total_cost: 98.12, bill_start_date: "2026-10-01", bill_end_date: "2026-10-31" },
        { uid: "b2", bill_total_kwh: 480, bill_total_cost: 91.2, bill_start_date: "2026-09-01", bill_end_date: "2026-09-30" },
      ],
    });
    expect(learnThenDiff([bills(512.4), bills(512.4), bills(512.4), bills(590.1)]).next?.changes.map((c) => c.path)).toEqual(["$.bills[0].bill_total_kwh"]);
    // in whole kWh: not a count either (`_total_` in its name)
    expect(learnThenDiff([bills(512), bills(512), bills(512), bills(590)]).next?.changes.map((c) => c.path)).toEqual(["$.bills[0].bill_total_kwh"]);
  });

  it("an estimate named like a meter's total (a solar quote's `annual_production_kwh`), with no device's readings beside it, is no running total: a change upwards is reported", () => {
    const quote = (kwh: number) => ({ id: "q_1", system: { panels: 20, annual_production_kwh: kwh, orientation: "south" }, offer: { price: 18000, currency: "EUR" } });
    expect(learnThenDiff([quote(10500), quote(10500), quote(10500), quote(11200)]).next?.changes.map((c) => c.path)).toEqual(["$.system.annual_production_kwh"]);
  });

  it("a product's figures named like quantities (a wall charger's `power`, `current`, `voltage`), one of which was edited once, are not readings: a change of another is reported", () => {
    const charger = (power: number, current: number, voltage: number, at: number) => ({ sku: "WALLBOX-1", power, current, voltage, price: 799, updated_at: iso(at) });
    const history = [charger(7.4, 16, 400, 0), charger(7.4, 16, 400, 5), charger(11, 16, 400, 10), charger(11, 16, 400, 15)];
    expect(learnThenDiff([...history, charger(11, 32, 400, 20)]).next?.changes.map((c) => c.path)).toEqual(["$.current"]);
    expect(learnThenDiff([...history, charger(11, 16, 230, 20)]).next?.changes.map((c) => c.path)).toEqual(["$.voltage"]);
  });

  // KNOWN HAZARD, not fixed (review2, 2026-11-29): the same figures in an object without money (a
  // product's `specs` apart from its price) still take one edited figure for a reading that moved,
  // and hide the others' changes up to half or double. From one pair of fetches a device whose one
  // reading moved (Elgato's battery `inputChargeVoltage`, a Tesla meter's `solar` block, a HomeWizard
  // kWh meter's `apparent_power_l1_va`, all in the tuning set) looks the same: requiring two readings
  // that moved, or one on two fetches, raised the tuning set's false alarms from 8 to 10 (learned)
  // and 14 to 16 (first3), all at fetch 2.
  it.fails("a product's figures named like quantities in a `specs` object without money, one of which was edited once: a change of another is reported", () => {
    const charger = (power: number, current: number, at: number) => ({ sku: "WALLBOX-1", specs: { power, current, voltage: 400 }, offer: { price: 799 }, updated_at: iso(at) });
    const history = [charger(7.4, 16, 0), charger(7.4, 16, 5), charger(11, 16, 10), charger(11, 16, 15)];
    expect(learnThenDiff([...history, charger(11, 32, 20)]).next?.changes.map((c) => c.path)).toEqual(["$.specs.current"]);
  });

  // KNOWN HAZARD, not fixed (review2, 2026-11-29): a stable integer named by a quantity alone (`cpu`
  // as a count of cores) beside a reading that moves (`load`) is taken for a reading, and a resize
  // from 4 to 8 cores (to double) is hidden. Devices send their readings as stable integers too
  // (Elgato's `currentBatteryVoltage` in mV, a Tesla meter's `instant_power`, a HomeWizard meter's
  // `voltage_l1_v`, all in the tuning set): keeping stable non-zero integers named by a quantity
  // alone raised the tuning set's false alarms from 8 to 10 (learned) and 14 to 17 (first3).
  it.fails("a server's `cpu` (a count of cores) beside its moving `load`: a resize is reported", () => {
    const vm = (load: number, cpu: number) => ({ server: { name: "web-1", cpu, ram_gb: 16, load } });
    expect(learnThenDiff([vm(0.42, 4), vm(0.55, 4), vm(0.38, 4), vm(0.61, 4), vm(0.61, 8)]).next?.changes.map((c) => c.path)).toEqual(["$.server.cpu"]);
  });

  it("a shop's prices named like quotes (`base_price`, `best_price`, `trade_in_price`; `deal_price` beside a `last_price`) are no ticker: a price change under 10 % is reported, rated medium", () => {
    const phone = (base: number, best: number, at: number) => ({ updated_at: iso(at), product: { base_price: base, best_price: best, trade_in_price: 300 } });
    const history = [phone(999, 949, 0), phone(999, 949, 5), phone(999, 929, 10), phone(999, 929, 15)];
    expect(learnThenDiff([...history, phone(949, 929, 20)]).next?.changes.map((c) => [c.path, c.severity])).toEqual([["$.product.base_price", "medium"]]);
    const deal = (dealPrice: number, last: number, at: number) => ({ updated_at: iso(at), product: { base_price: 120, deal_price: dealPrice, last_price: last } });
    const deals = [deal(99, 110, 0), deal(99, 110, 5), deal(99, 105, 10), deal(99, 105, 15)];
    expect(learnThenDiff([...deals, deal(95, 105, 20)]).next?.changes.map((c) => [c.path, c.severity])).toEqual([["$.product.deal_price", "medium"]]);
  });

  it("a field that became volatile later: a return to the value it had before (another shape) is reported, and an event's time rescheduled three times in a row is no clock", () => {
    const token = (i: number) => `req_${["hOtbPFgyvLbDTs", "Q8zKd2LmXc4RtY", "p0VwNq7sJe3HbG", "Zt5YcRk9WmA2Lu"][i]}`;
    const before = Array.from({ length: 6 }, () => ({ id: 7, trace: "none" }));
    const history = [...before, ...[0, 1, 2].map((i) => ({ id: 7, trace: token(i) }))];
    expect(learnThenDiff([...history, { id: 7, trace: "none" }]).next?.changes.map((c) => c.path)).toEqual(["$.trace"]);
    const times = ["10:00", "10:00", "10:00", "10:00", "10:00", "10:30", "11:00", "11:45"].map((t) => ({ event: "Launch", starts_at: `2026-12-01T${t}:00Z` }));
    expect(learnThenDiff([...times, { event: "Launch", starts_at: "2026-12-08T10:00:00Z" }]).next?.changes.map((c) => c.path)).toEqual(["$.starts_at"]);
  });
  // The eleventh round's fresh payloads (PyPI's JSON API, 2026-11-29), under-rated before any
  // tuning: a list of a project's versions written as PEP 440 writes them (`4.1.0rc1`, `21.11b0`),
  // a version-named member holding versions and a word (`python_version`: "2.7", "3.6",
  // "source"), and a flag that is `false` or the text of its reason (PEP 592's `yanked`).
  it("a PEP 440 version in a stable list of versions that changed is rated medium", () => {
    const project = (v: string) => ({ name: "ipython", versions: [v, "5.7.0", "7.5.0", "8.0.0b1", "21.11b0"] });
    const { next } = learnThenDiff([project("4.1.0rc1"), project("4.1.0rc1"), project("4.1.0rc1"), project("4.1.0rc1"), project("4.2.0rc1")]);
    expect(next?.changes.map((c) => [c.path, c.severity])).toEqual([["$.versions[0]", "medium"]]);
  });

  it("a version-named member whose values are versions and a word (`python_version`: 2.7, 3.6, source): a change is rated medium, also after it changed once", () => {
    const release = (py: string) => ({ urls: [{ filename: "a-py2.whl", python_version: "2.7" }, { filename: "a-py3.whl", python_version: py }, { filename: "a.tar.gz", python_version: "source" }] });
    expect(learnThenDiff([release("3.6"), release("3.6"), release("3.6"), release("3.6"), release("3.7")]).next?.changes.map((c) => [c.path, c.severity])).toEqual([["$.urls[1].python_version", "medium"]]);
    const changedOnce = [..."3.6 3.6 3.7 3.7 3.7 3.7 3.7 3.7".split(" ").map(release), release("3.8")];
    expect(learnThenDiff(changedOnce).next?.changes.map((c) => [c.path, c.severity])).toEqual([["$.urls[1].python_version", "medium"]]);
  });

  it("a flag that is false or the text of its reason (PEP 592's `yanked`) that flips is rated medium", () => {
    const files = (first: boolean | string) => ({ files: [{ filename: "black-19.10b0.whl", yanked: first }, { filename: "black-19.10b0.tar.gz", yanked: false }, { filename: "black-21.11b0.whl", yanked: "Broken regex dependency. Use 21.11b1 instead." }] });
    expect(learnThenDiff([files(false), files(false), files(false), files(false), files(true)]).next?.changes.map((c) => [c.path, c.severity])).toEqual([["$.files[0].yanked", "medium"]]);
  });

  // The twelfth round's fresh payloads (NextDNS's analytics, 2026-11-29), under-rated before any
  // tuning: rows told apart by a `status` whose value changed in place while learning (the row
  // kept its place and its count) were keyed by that status (by the learner, and by the diff's
  // own inference without it), so its next change read as a row gone and another come, rated info.
  it("a status that names its row (`{status, queries}`) and changed in place while learning is no identity: its next change is rated medium", () => {
    const rows = (third: string, i: number) => ({
      data: [
        { status: "default", queries: 837_764 + i * 120 },
        { status: "blocked", queries: 530_805 + i * 80 },
        { status: third, queries: 6279 },
        { status: "allowed", queries: 5452 + i },
      ],
    });
    const fetches = [0, 1, 2, 3, 4, 5, 6].map((i) => rows(i < 3 ? "relayed" : "suspended", i));
    const { policy, next } = learnThenDiff([...fetches, rows("failed", 7)]);
    expect(policy.arrayKeys?.["$.data"]).toBeUndefined();
    expect(next?.changes.filter((c) => c.severity !== "info").map((c) => [c.path, c.severity])).toEqual([["$.data[2].status", "medium"]]);
    // rows that only changed places are still told apart by their status
    const moved = [0, 1, 2, 3].map((i) => ({ data: i < 2 ? [{ status: "default", queries: 5 + i }, { status: "blocked", queries: 9 }] : [{ status: "blocked", queries: 9 }, { status: "default", queries: 5 + i }] }));
    expect(suggestPolicy(moved, { kind: "json" }).policy.arrayKeys?.["$.data"]).toBe("status");
  });

  // The twelfth round's fresh payloads (OpenSky Network's aircraft states, 2026-11-29): state
  // vectors are positional records (`[icao24, callsign, country, time, time, lon, lat, altitude,
  // on_ground, velocity, ...]`); learned as one path, `$.states[*][*]`, the moving positions made
  // every position volatile: an aircraft's `on_ground` that flipped was rated info, an element
  // gone from a vector medium at most, and the positions' moves were false alarms.
  it("a positional record (an aircraft's state vector) is learned by position: its moving readings are quiet, a flag that flips is rated medium, a value gone is critical", () => {
    const vector = (icao: string, lon: number, lat: number, alt: number, onGround: boolean) => [icao, "UAL421  ", "United States", 1683488743, lon, lat, alt, onGround, 0, 4];
    const states = (t: number, flip = false) => ({
      states: [vector("ab1644", -71.17 + t * 0.13, 42.54 + t * 0.07 - (t % 2) * 0.02, 2217.4 + (t % 3) * 31.5, false), vector("e8027e", -77.13 - t * 0.05 + (t % 2) * 0.01, -12.01 + t * 0.04, 4335.8 - (t % 2) * 22.7, flip)],
      time: 1683488744 + t * 300,
    });
    const history = [0, 1, 2, 3, 4, 5].map((t) => states(t));
    expect(learnThenDiff([...history, states(6)]).next).toBeNull();
    expect(learnThenDiff([...history, states(6, true)]).next?.changes.map((c) => [c.path, c.severity])).toEqual([["$.states[1][7]", "medium"]]);
    const shorter = states(6);
    (shorter.states[0] as unknown[]).splice(6, 1);
    const removed = learnThenDiff([...history, shorter]).next?.changes ?? [];
    expect(removed.some((c) => c.severity === "critical"), JSON.stringify(removed)).toBe(true);
  });

  it("a list of settings as name-value pairs whose values differ in shape (words, codes, paths) rates a changed setting medium", () => {
    // pooled over the list's elements the values are mostly enum-like or short words, some paths
    const settings = (overlay: string): string[][] => [
      ["Storage Driver", "overlay2"],
      ["Backing Filesystem", "xfs"],
      ["Supports d_type", "true"],
      ["Native Overlay Diff", overlay],
      ["Data root", "/var/lib/containers/storage"],
      ["Userxattr", "false"],
    ];
    const fetches = Array.from({ length: 5 }, (_, i) => ({ name: "build-host-3", storage: settings(i < 4 ? "true" : "false") }));
    const change = learnThenDiff(fetches).next?.changes.find((c) => c.path === "$.storage[3][1]");
    expect(change?.severity).toBe("medium");
    // changed once while learning, then again
    const again = Array.from({ length: 7 }, (_, i) => ({ name: "build-host-3", storage: settings(i < 3 ? "true" : i < 6 ? "false" : "true") }));
    const next = learnThenDiff(again).next?.changes.find((c) => c.path === "$.storage[3][1]");
    expect(next?.severity).toBe("medium");
  });
});
