// The world corpus (world.ts, world-corpus.ts): its size and make-up, and the JSON histories
// checked fetch by fetch the way the service checks a monitor (service-like.ts), on the tuning
// and the held-out set, with the default diffs, with the policy learned from the up-to-10 fetches
// before each fetch, and with the policy learned from the first 3 fetches. The HTML histories are
// measured in world-html.test.ts (tuning) and world-html-held-out.test.ts (held-out), files of
// their own: diffing and learning pages is the slow part.
//
// What must always hold is asserted (sizes, sources, the split, defaults never miss, learning
// never adds false alarms), and the learned policy never misses a change; its false alarms and
// under-rated changes are held at or below what was measured (a regression fails the test).
// Measured on the learner of 2026-11-29, eleventh round (before: commit c7ddce8, learned 682/306
// false alarms), pairs judged from the third fetch on (fetch index >= 2):
//
// | set      | kind | mode     | histories | judged pairs | noise pairs | false alarms | misses | under-rated | pair 1 FA | pair 2 FA |
// |----------|------|----------|-----------|--------------|-------------|--------------|--------|-------------|-----------|-----------|
// | tuning | json | defaults | 249 | 2490 | 1581 | 1526 | 0 | 476 | 238 | 242 |
// | tuning | json | learned | 249 | 2490 | 1581 | 8 | 0 | 0 | 217 | 7 |
// | tuning | json | first3 | 249 | 2490 | 1581 | 14 | 0 | 0 | 217 | 7 |
// | held-out | json | defaults | 124 | 1240 | 795 | 779 | 0 | 233 | 121 | 122 |
// | held-out | json | learned | 124 | 1240 | 795 | 27 | 0 | 0 | 106 | 13 |
// | held-out | json | first3 | 124 | 1240 | 795 | 49 | 0 | 0 | 106 | 13 |
// (tenth round, before the eleventh's 19 JSON histories: tuning 238 histories, learned 8, first3 14;
// held-out 116, learned 23, first3 40.)
// (eighth round, 2026-11-28: a second fresh batch of real payloads, measurement targets first -
// HomeWizard, Elgato, WLED, Autarco, EnergyZero, easyEnergy, Forecast.Solar, four exchanges -
// measured once before tuning (tuning 35 false alarms, 4 under-rated; held-out 19); then the
// corpus's measurement noise made realistic and readings learned by their behaviour, tuned on
// the tuning set; the held-out set run once, at the end. The rows above are after.)
// (The seventh round's rows, on the corpus of 189 and 96 JSON histories: tuning learned 2, first3
// 2; held-out learned 7, first3 12.)
// (seventh round, first part, on the corpus before the fresh histories: a non-integer declared with the empty unit is a reading, a unit that
// names a code is none; families of readings (three or more sibling decimal strings of one format,
// one of which moved by at most 10 %) learned with a 10 % tolerance. Tuned on the tuning set only
// (learned 8 -> 2, first3 13 -> 2; both left are the third fetch, learned from one pair: an order
// book none of whose decimals moved in it, a reading's one-pair tolerance); the held-out set was run
// once, at the end: learned 6 -> 4, first3 9 -> 5.)
// (seventh round, after the fresh histories and the fixes of their misses: a decimal string beside a moving time is a reading only once it
// moved twice by varying amounts; a bare `total` is money, not a count; a tax is money; words with a
// version suffix (`RollingUpdate_v2`) are not tokens; an IP address is rated like an enum; the
// corpus's clock rule no longer moves `creationTimestamp`. Tuned on the tuning set's misses and
// under-rated changes; the held-out rows above were seen once before the fixes (the fresh histories'
// first measurement, below) and once after.)
// (seventh round, 2026-11-28, before the fixes: 34 fresh JSON payloads from new sources added - Shopify, GitLab,
// Kubernetes, Statuspage, Unleash, npm, two exchanges' tickers, real/README.md - 25 of them to the
// tuning set and 9 held out by the rule, measured once before anything was tuned on them. Before
// them: tuning 164 histories, learned 8 false alarms, 0 misses, 0 under-rated (first3 13); held-out
// 87, learned 6, 0, 0 (first3 9). Every new miss, under-rated change and false alarm is on a fresh
// history: learned, tuning 4 misses (a stable decimal string that changed once taken for "a
// measurement moving on a clock of its own" - $.orders[*].total_tax, $.volume.USDT - and a stable
// `total` learned volatile because it is "named like a count", twice) and 3 under-rated (an enum
// that changed once rated as text; a Service's clusterIP, labelled a version by the corpus's rule);
// held-out 1 miss (the same decimal-string rule: $.percent_change_24) and 5 false alarms (a
// `creationTimestamp` the corpus moves as a coarse clock, 4; a ticker's volume at fetch 2, 1).)
// (the sixth round, 2026-11-28: six measurement targets added, three of them held out by the rule;
// readings learned by a units object or a time beside them that moved. Tuning learned 13 before
// that learner change on the grown set; the held-out set was run once, at the end, with rules
// that also took a number beside a lone `unit` member, or beside any time, for a reading (tuning
// 5, held-out 3); those two were then narrowed for safety, not from the figures: a product's
// weight beside its unit, or a rate beside its effective date, must not be hidden.)
// (pair 1 = fetch 0 -> 1, nothing learned yet; pair 2 = fetch 1 -> 2, learned from 2 samples and
// judged; the first changes come at fetch 3.) 2 cores at load average ~18: this file took 12 s.
import { PolicyRulesSchema } from "@driftwatch/schema";
import { readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { suggestPolicy } from "../../src/index.js";
import { isHeldOut } from "./world.js";
import { realSources, worldHistories, worldSplit } from "./world-corpus.js";
import { jsonWorldHistory } from "./world-json.js";
import { measureWorld } from "./world-measure.js";

const REAL = join(dirname(fileURLToPath(import.meta.url)), "real");

describe("world corpus", () => {
  const all = worldHistories();
  const json = all.filter((h) => h.kind === "json");
  const html = all.filter((h) => h.kind === "html");

  it("has at least 120 JSON and 50 HTML histories of at least 10 fetches, at least half from real payloads", () => {
    expect(json.length).toBeGreaterThanOrEqual(120);
    expect(html.length).toBeGreaterThanOrEqual(50);
    expect(all.filter((h) => h.origin === "real").length * 2).toBeGreaterThanOrEqual(all.length);
    expect(new Set(all.map((h) => h.name)).size).toBe(all.length);
    for (const h of all) {
      expect(h.snapshots.length, h.name).toBeGreaterThanOrEqual(10);
      expect(h.labels.length, h.name).toBe(h.snapshots.length - 1);
      // something to be quiet on and something to report, from the third fetch on
      expect(h.labels.slice(1).some((l) => l.kind === "noise"), h.name).toBe(true);
      expect(h.labels.slice(1).some((l) => l.kind === "meaningful"), h.name).toBe(true);
    }
  });

  it("includes the traps: a field changed while learning and again later, a volatile field that vanishes, turns null or changes type", () => {
    const whats = all.flatMap((h) => h.labels.flatMap((l) => (l.kind === "meaningful" ? [l.what] : [])));
    expect(whats.filter((w) => w.endsWith("(while learning)")).length).toBeGreaterThanOrEqual(80);
    expect(whats.filter((w) => w.endsWith(" again") || w === "headline corrected").length).toBeGreaterThanOrEqual(80);
    for (const how of ["disappears", "turns null", "changes type"]) expect(whats.filter((w) => w.startsWith("volatile ") && w.endsWith(how)).length, how).toBeGreaterThanOrEqual(10);
    for (const severity of ["info", "medium", "critical"] as const)
      expect(all.some((h) => h.labels.some((l) => l.kind === "meaningful" && l.minSeverity === severity)), severity).toBe(true);
  });

  it("applies every class of noise to several histories", () => {
    const count = (cls: string): number => all.filter((h) => h.noise?.includes(cls)).length;
    for (const cls of ["clock", "collection-clock", "token", "url", "counter", "measure", "rotation", "reorder"]) expect(count(cls), cls).toBeGreaterThanOrEqual(5);
    for (const cls of ["ranked-list", "rotating-block", "clock", "coarse-clock", "numbers-in-sentences", "percent-in-sentence", "session-uuid", "footer-time-and-request-id"]) expect(count(cls), cls).toBeGreaterThanOrEqual(5);
  });

  it("keeps every real payload's repository, commit, licence and URL, in less than 8 MB", () => {
    const sources = realSources();
    expect(sources.length).toBe(all.filter((h) => h.origin === "real").length);
    let bytes = 0;
    for (const s of sources) {
      expect(s.repository, s.file).toMatch(/^[\w.-]+\/[\w.-]+$/);
      expect(s.commit, s.file).toMatch(/^[0-9a-f]{40}$/);
      expect(s.license, s.file).toMatch(/MIT|Apache-2\.0|BSD|ISC|CC/);
      expect(s.url, s.file).toBe(`https://github.com/${s.repository}/blob/${s.commit}/${s.path}`);
      bytes += statSync(join(REAL, s.file)).size;
    }
    expect(bytes).toBeLessThan(8 * 1024 * 1024);
    expect(new Set(sources.map((s) => s.repository)).size).toBeGreaterThanOrEqual(3);
  });

  it("is deterministic and split by a fixed rule: about a third held out, of both kinds", () => {
    const { tuning, heldOut } = worldSplit();
    expect(tuning.length + heldOut.length).toBe(all.length);
    expect(heldOut.every((h) => isHeldOut(h.name)) && tuning.every((h) => !isHeldOut(h.name))).toBe(true);
    expect(heldOut.length / all.length).toBeGreaterThan(0.25);
    expect(heldOut.length / all.length).toBeLessThan(0.42);
    for (const kind of ["json", "html"]) {
      expect(heldOut.filter((h) => h.kind === kind).length, kind).toBeGreaterThanOrEqual(10);
      expect(tuning.filter((h) => h.kind === kind).length, kind).toBeGreaterThanOrEqual(30);
    }
    const one = json.find((h) => h.origin === "real")!;
    const again = jsonWorldHistory(one.name, JSON.parse(readFileSync(join(REAL, one.name.slice("real:".length)), "utf8")), "real");
    expect(JSON.stringify(again)).toBe(JSON.stringify(one));
  });

  it("suggests policies the settings API accepts, never `ignore`", () => {
    for (const h of all.filter((_, i) => i % 7 === 0)) {
      const { policy } = suggestPolicy(h.snapshots.slice(0, 10), { kind: h.kind, ...(h.selector ? { selector: h.selector } : {}) });
      expect(PolicyRulesSchema.safeParse(policy).success, h.name).toBe(true);
      expect(policy.rules.every((rule) => rule.action !== "ignore"), h.name).toBe(true);
    }
  });

  it("JSON, checked as the service does: defaults never miss, learning never adds false alarms", () => {
    const { rows, outcomes } = measureWorld(["json"]);
    console.table(rows);
    for (const set of ["tuning", "held-out"]) {
      const defaults = outcomes.get(`${set}/json/defaults`)!;
      expect([...defaults.judged.misses, ...defaults.early.misses]).toEqual([]);
      for (const mode of ["learned", "first3"]) expect(outcomes.get(`${set}/json/${mode}`)!.judged.falseAlarms.length).toBeLessThanOrEqual(defaults.judged.falseAlarms.length);
      const learned = outcomes.get(`${set}/json/learned`)!;
      expect([...learned.judged.misses, ...learned.early.misses], set).toEqual([]);
      // measured: 2 false alarms of 1183 tuning noise pairs, 7 of 608 held-out ones, no
      // under-rated change (see the table above). The eighth round's fresh payloads (measurement
      // targets first, 23 tuning and 6 held-out histories), measured once before any tuning on
      // them, raised these to what was measured (the corpus grew; not a target): tuning 35 of
      // 1334 (33 on the new histories) and 4 under-rated (all on them: a day-ahead price, a
      // meter's model, rated info), held-out 19 of 646 (12 on the new histories), no misses.
      // Then (eighth round, tuned on the tuning set only): the corpus's measurement noise made
      // realistic (a reading keeps its sign, a running total only goes up, member names matched
      // by their words: a `meter_model` is no mode, a `powerSource` no power) and readings learned
      // by their behaviour (up and down on three fetches: a tolerance; a running total; the rarer
      // numbers of a reading object; money named in camelCase, `priceIncl`): tuning 22, no
      // under-rated; held-out 15 (run at the end), then 13 with an uptime counted as a count (a
      // tuning history's `uptime_s`; the held-out set run a second time).
      // Ninth round (2026-11-29, tuned on the tuning set only): readings by their names (a unit in
      // the name, `active_power_w`; a quantity a device measures, beside readings that moved;
      // a meter's running total by its unit; `averageIncl` is money): tuning 3, held-out 12.
      // Then the ninth round's fresh batch (tickers, inverters, batteries, weather stations; 18
      // tuning and 9 held-out histories), measured once before tuning on the learner before this
      // round: tuning 53 (1 miss, 3 under-rated), held-out 23 (2 under-rated); after tuning on the
      // tuning set: 9 and 21, no misses, no under-rated. With the tenth round's batch (payments,
      // feature flags; 9 tuning and 4 held-out JSON histories): 1 under-rated in each set before
      // tuning (a nested single-element array, an identity missing from one element: both fixed
      // by general rules; the held-out one was inspected as a safety failure), then 8 and 23.
      // Eleventh round (2026-11-29): a fifth fresh batch (Jira, api.weather.gov, PyPI, CircleCI; 11
      // tuning and 8 held-out JSON histories), measured once before tuning on the learner of main:
      // tuning 8 (none on the new histories), 3 under-rated (all on them: a PEP 440 version in a
      // list of versions, `python_version` beside "source", rated info); held-out 27 (4 on the new
      // histories), 2 under-rated (a flag that is `false` or its reason, PyPI's `yanked`). Then
      // fixed by general rules (PEP 440 suffixes read as versions; versions beside a short code are
      // versions; a flag that is `false` or the text of its reason is a flag; tests in
      // never-hidden.test.ts): 8 and 27, no under-rated (the held-out set run a second time; its
      // under-rated change was inspected, as a safety failure).
      // Twelfth round (2026-11-29): a sixth fresh batch (Sentry, NextDNS, Mastodon, Radarr,
      // Tautulli, UptimeRobot, OpenSky, YouTube; 14 tuning and 6 held-out JSON histories), measured
      // once before tuning on the learner of main: tuning 15 (7 on the new histories, an aircraft's
      // state vector), 4 under-rated (all on them: a state vector's flag flipped or element gone,
      // NextDNS's analytics `status`, rated info); held-out 27 (none on the new histories), no
      // under-rated. Then fixed by general rules (a key that changed in place while learning is no
      // identity; positional records learned by position, a removed element critical; tests in
      // never-hidden.test.ts): tuning 10 (15 before; the state vector's readings quiet), no
      // under-rated; held-out 27 (unchanged). With the nineteenth session's learner changes beside
      // them (a bid beside an ask are quotes before any moved; a reading by name that moved once to
      // or from 0 gets an absolute part; a maximum over a period is a reading's statistic): tuning
      // 8, held-out 25, no under-rated.
      // Thirteenth round (2026-11-29): a seventh fresh batch (Telegraf's recorded responses of
      // RabbitMQ, Burrow, Docker, Slurm, RavenDB, Couchbase, smartctl, PHP-FPM, Loki, Nomad, Consul,
      // Filebeat; 13 tuning and 6 held-out JSON histories), measured once before tuning on the
      // learner of main (aa3ccf4): tuning 32 (24 on the new histories), 2 under-rated
      // (on them: a container engine's `DriverStatus` pairs, rated info); held-out 35 (10 on the new
      // histories), no under-rated. Then fixed by general rules (values pooled over an array's
      // elements, mostly enum-like, rated like an enum-like value; a throughput per second a reading
      // by name; tests in never-hidden.test.ts and generalise.test.ts): tuning 32, no under-rated;
      // held-out 35 (unchanged).
      // (the twentieth session's live documents, narrowed on review: tuning 30, held-out 33)
      expect(learned.judged.falseAlarms.length, learned.judged.falseAlarms.join("\n")).toBeLessThanOrEqual(set === "tuning" ? 30 : 33);
      expect(learned.judged.underRated.length, learned.judged.underRated.join("\n")).toBe(0);
      // learning once from the first 3 fetches: 2 of the tuning set's, 12 of the held-out set's;
      // with the eighth round's payloads 42 (40 new) and 32 (20 new), 4 under-rated in tuning
      const first3 = outcomes.get(`${set}/json/first3`)!;
      expect([...first3.judged.misses, ...first3.early.misses], set).toEqual([]);
      // (then 35 and 31, no under-rated; 35 and 27 with the uptime; 6 and 24 with readings by name;
      // with the ninth round's batch 79 and 45 before tuning, 18 and 37 after; 14 and 40 with the tenth;
      // 14 and 49 with the eleventh's, before tuning, 0 and 9 of them on its histories, 3 and 2 under-rated;
      // after its fixes 14 and 49, none under-rated; 21 and 49 with the twelfth's, before tuning, 7 and 0
      // of them on its histories, 3 and 0 under-rated; after its fixes 15 and 49, none under-rated;
      // with the nineteenth session's learner changes 9 and 47; 50 and 56 with the thirteenth's, before
      // tuning, 41 and 9 of them on its histories, 2 and 0 under-rated; after its fixes 50 and 56, none
      // under-rated; 54 and 56 after two of the nineteenth session's rules were reverted on review,
      // a reading's one move near 0 and a maximum over a period, which could hide real changes)
      // (47 and 53 with the twentieth session's live documents)
      expect(first3.judged.falseAlarms.length, first3.judged.falseAlarms.join("\n")).toBeLessThanOrEqual(set === "tuning" ? 47 : 53);
      expect(first3.judged.underRated.length, first3.judged.underRated.join("\n")).toBe(0);
    }
  }, 120_000);
});
