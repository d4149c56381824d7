// The labelled signal corpus: histories of consecutive snapshots of one target, the first
// LEARN_SAMPLES for learning, then held-out pairs labelled noise or meaningful. Histories are
// generated (seeded, deterministic) from templates modelled on real public APIs and pages: each
// snapshot is rendered from a persistent state at fetch t, so volatile values (timestamps, ids,
// counters, jitter, relative times, promos) vary with t while meaningful changes are mutations of
// the state that persist.
import type { Severity } from "@driftwatch/schema";

export const LEARN_SAMPLES = 6;

export type Label = { kind: "noise" } | { kind: "meaningful"; what: string; minSeverity: Severity; where: string };

export interface History {
  name: string;
  kind: "json" | "html";
  selector?: string;
  /** LEARN_SAMPLES learning snapshots followed by the held-out ones. */
  snapshots: unknown[];
  /** Labels of the held-out pairs: labels[i] is about snapshots[LEARN_SAMPLES - 1 + i] -> [LEARN_SAMPLES + i]. */
  labels: Label[];
}

/** A meaningful change: mutates the template's state; `where` finds it among the diff's changes. */
export interface Mutation<S> {
  what: string;
  minSeverity: Severity;
  /** JSON: a path pattern (`[*]` for any index) the change is at or below; HTML: text in the changed block. */
  where: string;
  apply: (state: S, rng: Rng) => void;
}

export interface Template<S> {
  name: string;
  kind: "json" | "html";
  selector?: string;
  init: (rng: Rng) => S;
  /** The snapshot at fetch `t` (JSON value or HTML string). */
  render: (state: S, t: number, rng: Rng) => unknown;
  mutations: Mutation<S>[];
}

export type Rng = () => number;

/** mulberry32: small, fast, deterministic. */
export function rngOf(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function int(rng: Rng, min: number, max: number): number {
  return min + Math.floor(rng() * (max - min + 1));
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)]!;
}

export function hex(rng: Rng, length: number): string {
  let out = "";
  while (out.length < length) out += Math.floor(rng() * 16).toString(16);
  // A token of random hex always has a digit and a letter; keep generated ones realistic.
  return /\d/.test(out) && /[a-f]/.test(out) ? out : `${out.slice(0, -2)}a7`;
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
export function base64url(rng: Rng, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += B64[Math.floor(rng() * 64)];
  return /\d/.test(out) && /[A-Za-z]/.test(out) ? out : `${out.slice(0, -2)}a7`;
}

export function uuid(rng: Rng): string {
  const h = hex(rng, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The base time of every history: 2026-11-20T08:00:00Z; fetches are `step` ms apart. */
export const T0 = Date.UTC(2026, 10, 20, 8, 0, 0);

export function fetchTime(t: number, stepMinutes = 5): number {
  return T0 + t * stepMinutes * 60_000;
}

/** Histories from a template: `scenarios` of them, each with its own seed and meaningful changes. */
export function historiesOf<S>(template: Template<S>, scenarios: number, heldOut = 6): History[] {
  const out: History[] = [];
  const m = template.mutations.length;
  for (let s = 0; s < scenarios; s++) {
    const rng = rngOf(hash(`${template.name}#${s}`));
    const state = template.init(rng);
    const snapshots: unknown[] = [];
    for (let t = 0; t < LEARN_SAMPLES; t++) snapshots.push(structuredClone(template.render(state, t, rng)));
    const labels: Label[] = [];
    // Held-out: noise and meaningful changes alternate, starting with noise.
    for (let i = 0; i < heldOut; i++) {
      const t = LEARN_SAMPLES + i;
      if (i % 2 === 1) {
        const mutation = template.mutations[(s + (i - 1) / 2) % m]!;
        mutation.apply(state, rng);
        labels.push({ kind: "meaningful", what: mutation.what, minSeverity: mutation.minSeverity, where: mutation.where });
      } else labels.push({ kind: "noise" });
      snapshots.push(structuredClone(template.render(state, t, rng)));
    }
    out.push({ name: `${template.name} #${s + 1}`, kind: template.kind, ...(template.selector ? { selector: template.selector } : {}), snapshots, labels });
  }
  return out;
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}
