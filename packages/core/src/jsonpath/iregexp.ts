import { RE2JS } from "re2js";

/**
 * I-Regexp (RFC 9485) patterns for the RFC 9535 match() and search() functions, run on re2js, a
 * pure-JavaScript port of RE2: matching takes time linear in the input, whatever the pattern
 * (no backtracking, so `(a+)+$` cannot blow up). Patterns longer than MAX_REGEXP_LENGTH are
 * refused.
 */
export const MAX_REGEXP_LENGTH = 1000;

const cache = new Map<string, RE2JS | null>();
const CACHE_SIZE = 256;

/** The compiled pattern, or null when it is not a valid I-Regexp (or is too long). */
export function compileIRegexp(pattern: string): RE2JS | null {
  let compiled = cache.get(pattern);
  if (compiled !== undefined) return compiled;
  compiled = null;
  const translated = pattern.length <= MAX_REGEXP_LENGTH ? translateIRegexp(pattern) : undefined;
  if (translated !== undefined) {
    try {
      compiled = RE2JS.compile(translated);
    } catch {
      compiled = null;
    }
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(pattern, compiled);
  return compiled;
}

/** Why a pattern is refused, or undefined when it is a valid I-Regexp. */
export function iregexpProblem(pattern: string): string | undefined {
  if (pattern.length > MAX_REGEXP_LENGTH) return `a regular expression has at most ${MAX_REGEXP_LENGTH} characters`;
  return compileIRegexp(pattern) === null ? `${JSON.stringify(pattern)} is not a valid I-Regexp (RFC 9485)` : undefined;
}

const SINGLE_ESCAPES = new Set(["(", ")", "*", "+", "-", ".", "?", "[", "\\", "]", "^", "{", "|", "}", "n", "r", "t"]);

/**
 * Rewrites an I-Regexp into RE2 syntax: `.` matches any character but \n and \r; `^` and `$`
 * anchor at the start and end of the input. Returns undefined for anything outside the I-Regexp grammar.
 */
export function translateIRegexp(pattern: string): string | undefined {
  let out = "";
  let i = 0;
  const n = pattern.length;
  const escape = (): string | undefined => {
    // At a backslash: a single-character escape or \p{..} / \P{..}.
    const e = pattern[i + 1];
    if (e === undefined) return undefined;
    if (e === "p" || e === "P") {
      const m = /^\{(?:[LMNPZSC][a-z]?|Is[A-Za-z0-9-]+)\}/.exec(pattern.slice(i + 2, i + 40));
      if (!m || m[0].startsWith("{Is")) return undefined;
      i += 2 + m[0].length;
      return `\\${e}${m[0]}`;
    }
    if (!SINGLE_ESCAPES.has(e)) return undefined;
    i += 2;
    return `\\${e}`;
  };
  let quantifiable = false;
  let depth = 0;
  while (i < n) {
    const c = pattern[i]!;
    if (c === "\\") {
      const e = escape();
      if (e === undefined) return undefined;
      out += e;
      quantifiable = true;
    } else if (c === ".") {
      out += "[^\\n\\r]";
      i++;
      quantifiable = true;
    } else if (c === "^" || c === "$") {
      // Anchors, as the RFC 9535 compliance suite expects (`^ab.*`, `.*bc$`).
      out += c;
      i++;
      quantifiable = false;
    } else if (c === "(") {
      out += "(?:";
      depth++;
      i++;
      quantifiable = false;
    } else if (c === ")") {
      if (depth === 0) return undefined;
      depth--;
      out += ")";
      i++;
      quantifiable = true;
    } else if (c === "|") {
      out += "|";
      i++;
      quantifiable = false;
    } else if (c === "*" || c === "+" || c === "?") {
      if (!quantifiable) return undefined;
      out += c;
      i++;
      quantifiable = false;
    } else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 24));
      if (!m || !quantifiable) return undefined;
      if (m[3] !== undefined && m[3] !== "" && Number(m[3]) < Number(m[1])) return undefined;
      out += m[0];
      i += m[0].length;
      quantifiable = false;
    } else if (c === "[") {
      const cls = translateClass();
      if (cls === undefined) return undefined;
      out += cls;
      quantifiable = true;
    } else if (c === "]" || c === "}") {
      return undefined;
    } else {
      const code = pattern.codePointAt(i)!;
      if (code >= 0xd800 && code <= 0xdfff) return undefined;
      const ch = String.fromCodePoint(code);
      out += ch;
      i += ch.length;
      quantifiable = true;
    }
  }
  return depth === 0 ? out : undefined;

  function translateClass(): string | undefined {
    // charClassExpr = "[" ["^"] ( "-" / CCE1 ) *CCE1 ["-"] "]"
    let cls = "[";
    i++;
    if (pattern[i] === "^") {
      cls += "^";
      i++;
    }
    let first = true;
    for (;;) {
      if (i >= n) return undefined;
      const c = pattern[i]!;
      if (c === "]") {
        if (first) return undefined;
        i++;
        return `${cls}]`;
      }
      if (c === "-") {
        // Only first or last in the class.
        if (!first && pattern[i + 1] !== "]") return undefined;
        cls += "\\-";
        i++;
        first = false;
        continue;
      }
      const start = classChar();
      if (start === undefined) return undefined;
      cls += start.text;
      if (pattern[i] === "-" && pattern[i + 1] !== "]" && start.code !== undefined) {
        i++;
        const end = classChar();
        if (end === undefined || end.code === undefined || end.code < start.code) return undefined;
        cls += `-${end.text}`;
      }
      first = false;
    }
  }

  function classChar(): { text: string; code: number | undefined } | undefined {
    const c = pattern[i]!;
    if (c === "[") return undefined;
    if (c === "\\") {
      const e = pattern[i + 1];
      if (e === "p" || e === "P") {
        const text = escape();
        return text === undefined ? undefined : { text, code: undefined };
      }
      const text = escape();
      if (text === undefined) return undefined;
      const literal = e === "n" ? 10 : e === "r" ? 13 : e === "t" ? 9 : e!.codePointAt(0)!;
      return { text, code: literal };
    }
    const code = pattern.codePointAt(i)!;
    if (code >= 0xd800 && code <= 0xdfff) return undefined;
    const ch = String.fromCodePoint(code);
    i += ch.length;
    return { text: /[\\\]^-]/.test(ch) ? `\\${ch}` : ch, code };
  }
}
