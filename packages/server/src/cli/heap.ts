// The V8 heap settings `driftwatch serve` gives itself (docs/operations.md, "Memory"; measured in
// docs/benchmarks.md, "Fourth pass"). Node's defaults size the heap for a throughput job: the
// young generation grows to two 16 MB semi-spaces during startup and keeps them while idle, and
// the old space grows up to four times its live objects before a full collection. A server of a
// few tens of MB of live objects pays that as RSS. All of it is set at run time with
// v8.setFlagsFromString (only flags V8 reads after the isolate exists), so the `driftwatch` bin,
// `npm start`, `node dist/cli.js serve` and a container get the same defaults; nothing is a hard
// limit (no --max-old-space-size: a big legitimate document still fits).
import v8 from "node:v8";
import vm from "node:vm";

/** The young generation's ceiling while serving (both semi-spaces; node's default is 32 MB). */
export const YOUNG_GENERATION_MAX_MB = 16;
/** How much the old space may grow past its live objects after a full collection (node: 10 to 300 %, its own choice). */
export const HEAP_GROWING_PERCENT = 30;
/** `DRIFTWATCH_HEAP`: `lean` (the default) or `node` (node's own heap settings). */
export const HEAP_ENV = "DRIFTWATCH_HEAP";

/** Node or V8 flags that set what these defaults set: when an operator passes one, theirs win. */
const OPERATOR_FLAGS = /--(max[-_]semi[-_]space[-_]size|min[-_]semi[-_]space[-_]size|semi[-_]space[-_]growth[-_]factor|heap[-_]growing[-_]percent)\b/;

export type HeapChoice = { mode: "lean" } | { mode: "node"; reason: string };

/** Which heap settings `serve` uses, from DRIFTWATCH_HEAP and the flags node was started with (execArgv and NODE_OPTIONS). */
export function heapChoice(env: Record<string, string | undefined>, execArgv: readonly string[]): HeapChoice {
  const value = (env[HEAP_ENV] ?? "").trim().toLowerCase();
  if (value === "node") return { mode: "node", reason: `${HEAP_ENV}=node` };
  const flags = [...execArgv, env.NODE_OPTIONS ?? ""].join(" ");
  const named = OPERATOR_FLAGS.exec(flags);
  if (named !== null) return { mode: "node", reason: `node was started with ${named[0]}` };
  return { mode: "lean" };
}

type SetFlags = (flags: string) => void;

let applied: HeapChoice | null = null;

/**
 * Called by the binary before it loads any module of the server, for `serve` only: while starting,
 * the young generation does not grow (module loading would take it to its maximum, which V8 gives
 * back only when its memory reducer runs, often after minutes), and the old space grows by
 * HEAP_GROWING_PERCENT past its live objects. An unknown DRIFTWATCH_HEAP is left to `serve`'s
 * configuration check (it exits 2 naming it).
 */
export function applyServeHeapDefaults(env: Record<string, string | undefined>, execArgv: readonly string[], setFlags: SetFlags = v8.setFlagsFromString): HeapChoice {
  const choice = heapChoice(env, execArgv);
  if (choice.mode === "lean") {
    setFlags("--semi-space-growth-factor=1");
    setFlags(`--heap-growing-percent=${String(HEAP_GROWING_PERCENT)}`);
  }
  applied = choice;
  return choice;
}

/** What applyServeHeapDefaults chose in this process (null: not the binary's `serve`, e.g. an embedder or a test). */
export function appliedHeapChoice(): HeapChoice | null {
  return applied;
}

/**
 * The growth factor that keeps the young generation at or under its ceiling: V8 doubles a full
 * young generation (the factor is read at each growth), so it may double while doubling stays
 * within the ceiling.
 */
export function youngGrowthFactor(youngBytes: number, maxBytes: number = YOUNG_GENERATION_MAX_MB * 1024 * 1024): 1 | 2 {
  return youngBytes * 2 > maxBytes ? 1 : 2;
}

/** Reads the young generation's committed size (`new_space`, both semi-spaces). */
function youngGenerationBytes(): number {
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0;
}

export interface HeapSettled {
  /** The young generation and old space right after the collection, in MB (the startup log line shows them). */
  youngGenerationMb: number;
  oldSpaceMb: number;
  stop(): void;
}

/**
 * Once `serve` listens (the lean choice only): one full collection of what starting left behind,
 * then the young generation may grow again under load, up to YOUNG_GENERATION_MAX_MB (checked
 * every second; the check reads V8's space statistics, a few microseconds).
 */
export function settleHeapAfterStartup(intervalMs = 1000): HeapSettled | null {
  if (applied?.mode !== "lean") return null;
  collectGarbageOnce();
  const stats = v8.getHeapSpaceStatistics();
  const mb = (name: string): number => Math.round((stats.find((space) => space.space_name === name)?.space_size ?? 0) / (1024 * 1024));
  let factor = 0;
  const tick = (): void => {
    const next = youngGrowthFactor(youngGenerationBytes());
    if (next !== factor) {
      factor = next;
      v8.setFlagsFromString(`--semi-space-growth-factor=${String(next)}`);
    }
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return { youngGenerationMb: mb("new_space"), oldSpaceMb: mb("old_space"), stop: () => clearInterval(timer) };
}

/** A full collection without starting node with --expose-gc: the flag is on only while a fresh context picks up `gc`. */
function collectGarbageOnce(): void {
  v8.setFlagsFromString("--expose-gc");
  let gc: unknown;
  try {
    gc = vm.runInNewContext("gc");
  } finally {
    v8.setFlagsFromString("--no-expose-gc");
  }
  if (typeof gc === "function") (gc as () => void)();
}
