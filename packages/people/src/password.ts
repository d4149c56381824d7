// Password hashing with scrypt (node:crypto), stored as a PHC string that carries its own
// parameters, so a hash made with other parameters still verifies after the defaults change.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { PeopleError } from "./errors.js";

/**
 * scrypt parameters. The defaults follow the OWASP Password Storage Cheat Sheet's scrypt
 * recommendation: N = 2^17, r = 8, p = 1 (128 MiB and about a tenth of a second per hash on a
 * server core), a 16-byte random salt and a 32-byte derived key.
 */
export interface ScryptParams {
  /** log2 of the CPU/memory cost N. */
  logN: number;
  /** Block size. */
  r: number;
  /** Parallelization. */
  p: number;
}

export const DEFAULT_SCRYPT_PARAMS: Readonly<ScryptParams> = { logN: 17, r: 8, p: 1 };
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Bounds a stored hash may name (a corrupt or hostile hash cannot make verification run for minutes). */
const MIN_LOG_N = 10;
const MAX_LOG_N = 20;

/**
 * At most this many derivations run at once. Each takes 128 * N * r bytes (128 MiB at the
 * defaults) and one thread of libuv's pool (4 by default), which file access and DNS lookups of
 * checks share: a burst of sign-ins must neither exhaust memory nor stall the checks.
 */
export const MAX_CONCURRENT_HASHES = 2;
/** Derivations waiting for a slot; beyond this a sign-in gets 503 with Retry-After. */
export const MAX_QUEUED_HASHES = 64;

let running = 0;
const waiting: (() => void)[] = [];

async function withHashSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT_HASHES) {
    if (waiting.length >= MAX_QUEUED_HASHES) {
      throw new PeopleError("unavailable", "Too many passwords are being checked at once: retry in a moment.", { headers: { "retry-after": "2" } });
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else {
    running++;
  }
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    // the slot passes straight to the next waiter; otherwise it is freed
    if (next !== undefined) next();
    else running--;
  }
}

function derive(password: string, salt: Buffer, params: ScryptParams, keyBytes: number): Promise<Buffer> {
  return withHashSlot(() => deriveNow(password, salt, params, keyBytes));
}

function deriveNow(password: string, salt: Buffer, params: ScryptParams, keyBytes: number): Promise<Buffer> {
  const N = 2 ** params.logN;
  // scrypt needs 128 * N * r bytes; Node refuses anything above maxmem (32 MiB by default).
  const options: ScryptOptions = { N, r: params.r, p: params.p, maxmem: 128 * N * params.r * params.p + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFC"), salt, keyBytes, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** `$scrypt$ln=17,r=8,p=1$<salt>$<key>` (PHC string format, unpadded base64). */
export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, params, KEY_BYTES);
  return `$scrypt$ln=${params.logN},r=${params.r},p=${params.p}$${salt.toString("base64").replace(/=+$/, "")}$${key.toString("base64").replace(/=+$/, "")}`;
}

interface ParsedHash {
  params: ScryptParams;
  salt: Buffer;
  key: Buffer;
}

const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{16,88})\$([A-Za-z0-9+/]{16,88})$/;

function parseHash(encoded: string): ParsedHash | null {
  const match = PHC.exec(encoded);
  if (match === null) return null;
  const params = { logN: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
  if (params.logN < MIN_LOG_N || params.logN > MAX_LOG_N || params.r < 1 || params.r > 32 || params.p < 1 || params.p > 16) return null;
  return { params, salt: Buffer.from(match[4]!, "base64"), key: Buffer.from(match[5]!, "base64") };
}

/**
 * Whether `password` matches `encoded`, compared in constant time. A missing or malformed hash
 * is checked against a dummy one, so the answer takes as long as for a real user.
 */
export async function verifyPassword(password: string, encoded: string | null, params: ScryptParams = DEFAULT_SCRYPT_PARAMS): Promise<boolean> {
  const parsed = encoded === null ? null : parseHash(encoded);
  if (parsed === null) {
    await derive(password, DUMMY_SALT, params, KEY_BYTES);
    return false;
  }
  const key = await derive(password, parsed.salt, parsed.params, parsed.key.length);
  return key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
}

const DUMMY_SALT = randomBytes(SALT_BYTES);

/** Whether a stored hash was made with other parameters than `params` (re-hash it at the next sign-in). */
export function needsRehash(encoded: string, params: ScryptParams = DEFAULT_SCRYPT_PARAMS): boolean {
  const parsed = parseHash(encoded);
  return parsed === null || parsed.params.logN !== params.logN || parsed.params.r !== params.r || parsed.params.p !== params.p;
}
