// The password policy: a length range and a check against a list of common passwords (the
// 49,000 most common passwords of @zxcvbn-ts/language-common, MIT licensed, compiled by the
// zxcvbn-ts project from public password leaks; loaded on first use).
import { PeopleError } from "./errors.js";

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;

let common: Promise<ReadonlySet<string>> | null = null;

/** The common-password list, lower-cased (loaded once). */
export function commonPasswords(): Promise<ReadonlySet<string>> {
  common ??= import("@zxcvbn-ts/language-common").then((module) => {
    const list = (module.dictionary ?? (module as unknown as { default: typeof module }).default.dictionary)["passwords-common"];
    return new Set(list.map((p) => p.toLowerCase()));
  });
  return common;
}

/**
 * Why `password` is refused (null when it passes): too short, too long, common, or the email itself.
 * Judged in NFC, the form it is hashed and compared in: "e" and a combining accent count as one.
 */
export async function passwordProblem(raw: string, email?: string): Promise<string | null> {
  const password = raw.normalize("NFC");
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters long`;
  if (length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters long`;
  const lower = password.toLowerCase();
  if ((await commonPasswords()).has(lower)) return "is one of the most common passwords; choose another";
  if (email !== undefined && lower === email.trim().toLowerCase()) return "must not be your email address";
  return null;
}

/** Throws `422 weak_password` (naming the `field`) when the password does not pass the policy. */
export async function assertPasswordPolicy(password: string, email?: string, field = "password"): Promise<void> {
  const problem = await passwordProblem(password, email);
  if (problem !== null) {
    throw new PeopleError("weak_password", `The ${field} is too weak: it ${problem}.`, { errors: [{ path: field, message: problem }] });
  }
}
