/**
 * Longest common subsequence of two integer sequences, by Myers' O((N+M)D) algorithm in linear
 * space (the "middle snake" bisection, as in diff-match-patch): fast when the sequences are
 * mostly equal, which is the usual case for two fetches of one page.
 *
 * Returns the matched index pairs, flattened (`[a0, b0, a1, b1, ...]`), increasing in both.
 */
export function longestCommonSubsequence(a: ArrayLike<number>, b: ArrayLike<number>): number[] {
  const out: number[] = [];
  solve(a, 0, a.length, b, 0, b.length, out);
  return out;
}

function solve(a: ArrayLike<number>, aLo: number, aHi: number, b: ArrayLike<number>, bLo: number, bHi: number, out: number[]): void {
  while (aLo < aHi && bLo < bHi && a[aLo] === b[bLo]) {
    out.push(aLo++, bLo++);
  }
  let suffix = 0;
  while (aLo < aHi - suffix && bLo < bHi - suffix && a[aHi - 1 - suffix] === b[bHi - 1 - suffix]) suffix++;
  const aEnd = aHi - suffix;
  const bEnd = bHi - suffix;
  if (aLo < aEnd && bLo < bEnd) {
    const split = middleSnake(a, aLo, aEnd, b, bLo, bEnd);
    // A split at either corner would recurse on the same problem; the bisection never yields
    // one for trimmed, non-empty inputs, but the guard keeps termination unconditional.
    if (split !== null && !(split[0] === aLo && split[1] === bLo) && !(split[0] === aEnd && split[1] === bEnd)) {
      solve(a, aLo, split[0], b, bLo, split[1], out);
      solve(a, split[0], aEnd, b, split[1], bEnd, out);
    }
  }
  for (let k = 0; k < suffix; k++) out.push(aEnd + k, bEnd + k);
}

/** The point where a shortest edit path crosses the middle, in absolute indexes, or null for no common element. */
function middleSnake(
  a: ArrayLike<number>,
  aLo: number,
  aHi: number,
  b: ArrayLike<number>,
  bLo: number,
  bHi: number,
): [number, number] | null {
  const n = aHi - aLo;
  const m = bHi - bLo;
  const maxD = Math.ceil((n + m) / 2);
  const offset = maxD;
  const size = 2 * maxD + 2;
  const v1 = new Int32Array(size).fill(-1);
  const v2 = new Int32Array(size).fill(-1);
  v1[offset + 1] = 0;
  v2[offset + 1] = 0;
  const delta = n - m;
  const front = delta % 2 !== 0;
  let k1start = 0;
  let k1end = 0;
  let k2start = 0;
  let k2end = 0;
  for (let d = 0; d < maxD; d++) {
    for (let k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
      const k1Offset = offset + k1;
      let x1 = k1 === -d || (k1 !== d && v1[k1Offset - 1]! < v1[k1Offset + 1]!) ? v1[k1Offset + 1]! : v1[k1Offset - 1]! + 1;
      let y1 = x1 - k1;
      while (x1 < n && y1 < m && a[aLo + x1] === b[bLo + y1]) {
        x1++;
        y1++;
      }
      v1[k1Offset] = x1;
      if (x1 > n) k1end += 2;
      else if (y1 > m) k1start += 2;
      else if (front) {
        const k2Offset = offset + delta - k1;
        if (k2Offset >= 0 && k2Offset < size && v2[k2Offset] !== -1 && x1 >= n - v2[k2Offset]!) return [aLo + x1, bLo + y1];
      }
    }
    for (let k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
      const k2Offset = offset + k2;
      let x2 = k2 === -d || (k2 !== d && v2[k2Offset - 1]! < v2[k2Offset + 1]!) ? v2[k2Offset + 1]! : v2[k2Offset - 1]! + 1;
      let y2 = x2 - k2;
      while (x2 < n && y2 < m && a[aHi - 1 - x2] === b[bHi - 1 - y2]) {
        x2++;
        y2++;
      }
      v2[k2Offset] = x2;
      if (x2 > n) k2end += 2;
      else if (y2 > m) k2start += 2;
      else if (!front) {
        const k1Offset = offset + delta - k2;
        if (k1Offset >= 0 && k1Offset < size && v1[k1Offset] !== -1) {
          const x1 = v1[k1Offset]!;
          const y1 = offset + x1 - k1Offset;
          if (x1 >= n - x2) return [aLo + x1, bLo + y1];
        }
      }
    }
  }
  return null;
}
