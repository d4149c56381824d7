import { availableParallelism } from "node:os";

/** Limits of the comparison step of a check (see docs/deployment.md, "Limits"). */
export interface CompareLimits {
  /** Bodies (new or previous) larger than this are compared in a worker thread. */
  workerThresholdBytes: number;
  /** A comparison in a worker running longer is stopped (the worker is terminated): `analysis_timeout`. */
  compareTimeoutMs: number;
  /** Content larger than this is not compared at all: `target_too_large`. */
  maxTargetBytes: number;
  /** Heap of one worker thread (old generation), in MB; a comparison past it fails with `target_too_large`. */
  workerMemoryMb: number;
  /** Worker threads at most (they start on demand and end when idle). */
  workers: number;
  /** A stored diff lists at most this many changes ... */
  maxDiffChanges: number;
  /** ... and at most this many bytes of them; past either cap it says `truncated: true`. */
  maxDiffBytes: number;
}

export const DEFAULT_COMPARE_LIMITS: CompareLimits = {
  workerThresholdBytes: 256 * 1024,
  compareTimeoutMs: 30_000,
  maxTargetBytes: 10 * 1024 * 1024,
  workerMemoryMb: 512,
  workers: Math.max(1, Math.min(4, availableParallelism() - 1)),
  maxDiffChanges: 1000,
  maxDiffBytes: 1024 * 1024,
};

