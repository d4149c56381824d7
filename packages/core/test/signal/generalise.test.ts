// The learner on shapes of noise that no template of the corpus produces: judged by the values'
// behaviour (identifiers of any alphabet, tokens inside URLs, counters as digit strings, fields of
// collections, nested identities, measurements, coarse clocks, rotations), and never learning away
// a real change. Each case learns from a history and diffs the next fetch with what was learned.
import type { PolicyRules } from "@driftwatch/schema";
import { describe, expect, it } from "vitest";
import { diffJson, suggestPolicy } from "../../src/index.js";

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

  it("does not take the only member of an element as its identity", () => {
    const diff = diffJson({ o: [{ a: 1 }, { a: 2 }] }, { o: [{ a: 3 }, { a: 2 }] });
    expect(diff?.changes).toEqual([expect.objectContaining({ path: "$.o[0].a", op: "replace", before: 1, after: 3 })]);
    const { policy } = suggestPolicy([{ o: [{ a: 1 }, { a: 2 }] }, { o: [{ a: 1 }, { a: 2 }] }], { kind: "json" });
    expect(policy.arrayKeys ?? {}).toEqual({});
  });
});
