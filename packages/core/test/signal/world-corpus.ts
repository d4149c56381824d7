// The world corpus, assembled: every payload under real/ (listed in real/sources.json with its
// repository, commit, licence and URL) as one history, and the generated templates of
// json-histories.ts / html-histories.ts replayed over WORLD_FETCHES (JSON) or WORLD_HTML_FETCHES (HTML) fetches (three scenarios per
// template). See world.ts for the history format and the held-out split.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Label, LEARN_SAMPLES, type Template } from "./corpus.js";
import { HTML_TEMPLATES } from "./html-histories.js";
import { JSON_TEMPLATES } from "./json-histories.js";
import { splitOf, type WorldHistory } from "./world.js";
import { htmlWorldHistory, WORLD_HTML_FETCHES } from "./world-html.js";
import { jsonWorldHistory, WORLD_FETCHES } from "./world-json.js";
import { generatedPayloads } from "./world-generated.js";
import { fnv1a, rngFor } from "./world-rng.js";

const REAL = join(dirname(fileURLToPath(import.meta.url)), "real");

export interface RealSource {
  file: string;
  repository: string;
  path: string;
  pointer?: string;
  request?: string;
  commit: string;
  license: string;
  url: string;
  /** A measurement target (world-json.ts, MeasurementOptions). */
  measurements?: boolean;
}

export function realSources(): RealSource[] {
  return JSON.parse(readFileSync(join(REAL, "sources.json"), "utf8")) as RealSource[];
}

function realHistories(): WorldHistory[] {
  return realSources().map((source) => {
    const text = readFileSync(join(REAL, source.file), "utf8");
    const name = `real:${source.file}`;
    return source.file.endsWith(".html") ? htmlWorldHistory(name, text, "real") : jsonWorldHistory(name, JSON.parse(text) as unknown, "real", undefined, { measurements: source.measurements === true });
  });
}

/**
 * A template replayed over 12 (JSON) or 10 (HTML) fetches: its mutations at fetches 3, 6 and the
 * last (a different one each, starting at the scenario's offset), every other pair noise.
 */
function replay(template: Template<unknown>, scenario: number): WorldHistory {
  const name = `generated:${template.name} #${scenario + 1}`;
  const rng = rngFor(name);
  const state = template.init(rng);
  const snapshots: unknown[] = [];
  const labels: Label[] = [];
  const m = template.mutations.length;
  const fetches = template.kind === "json" ? WORLD_FETCHES : WORLD_HTML_FETCHES;
  // The templates script unlabelled events of their own during their first LEARN_SAMPLES fetches
  // (a check down once, a fare that moved twice): those fetches are rendered but not recorded.
  for (let t = 0; t < LEARN_SAMPLES; t++) template.render(state, t, rng);
  const at = new Map([3, 6, fetches - 1].map((t, k) => [t, template.mutations[(scenario + k) % m]!] as const));
  for (let f = 0; f < fetches; f++) {
    const mutation = at.get(f);
    if (mutation && (m >= 3 || f !== fetches - 1)) {
      mutation.apply(state, rng);
      labels.push({ kind: "meaningful", what: mutation.what, minSeverity: mutation.minSeverity, where: mutation.where });
    } else if (f > 0) labels.push({ kind: "noise" });
    snapshots.push(structuredClone(template.render(state, LEARN_SAMPLES + f, rng)));
  }
  return { name, kind: template.kind, ...(template.selector ? { selector: template.selector } : {}), origin: "generated", snapshots, labels };
}

let cached: WorldHistory[] | undefined;

/** Every history of the world corpus (built once per process; deterministic). */
export function worldHistories(): WorldHistory[] {
  cached ??= [
    ...realHistories(),
    ...generatedPayloads().map(({ name, payload }) => jsonWorldHistory(name, payload, "generated")),
    ...[...JSON_TEMPLATES, ...HTML_TEMPLATES].flatMap((template) => [0, 1, 2].map((s) => replay(template, s))),
  ];
  return cached;
}

/** The tuning set and the held-out set (world.ts: FNV-1a of the name modulo 3 is 0 -> held out). */
export function worldSplit(): { tuning: WorldHistory[]; heldOut: WorldHistory[] } {
  return splitOf(worldHistories());
}

export { fnv1a };
