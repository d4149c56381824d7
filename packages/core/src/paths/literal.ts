import { DriftwatchError } from "../errors.js";

export function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

export function pathError(path: string, at: number, message: string): DriftwatchError {
  return new DriftwatchError("invalid_path", `invalid path ${JSON.stringify(path)} at ${at}: ${message}`, {
    details: [{ path, message: `at character ${at}: ${message}` }],
  });
}

/**
 * Reads an RFC 9535 string literal whose opening quote is just before `from`; returns the
 * unescaped name and the index after the closing quote.
 */
export function parseStringLiteral(path: string, from: number, quote: string): [string, number] {
  let out = "";
  let i = from;
  for (;;) {
    if (i >= path.length) throw pathError(path, i, "unterminated string");
    const c = path.charCodeAt(i);
    const ch = path[i]!;
    if (ch === quote) return [out, i + 1];
    if (ch === "\\") {
      const e = path[i + 1];
      i += 2;
      switch (e) {
        case "b":
          out += "\b";
          break;
        case "f":
          out += "\f";
          break;
        case "n":
          out += "\n";
          break;
        case "r":
          out += "\r";
          break;
        case "t":
          out += "\t";
          break;
        case "/":
          out += "/";
          break;
        case "\\":
          out += "\\";
          break;
        case "'":
        case '"':
          if (e !== quote) throw pathError(path, i - 1, `\\${e} is not an escape inside ${quote}-quoted names`);
          out += e;
          break;
        case "u": {
          const hi = readHex4(path, i);
          i += 4;
          if (hi >= 0xdc00 && hi <= 0xdfff) throw pathError(path, i - 6, "lone low surrogate");
          if (hi >= 0xd800 && hi <= 0xdbff) {
            if (path[i] !== "\\" || path[i + 1] !== "u") throw pathError(path, i, "high surrogate without a low surrogate");
            const lo = readHex4(path, i + 2);
            if (!isLowSurrogate(lo)) throw pathError(path, i, "high surrogate without a low surrogate");
            out += String.fromCharCode(hi, lo);
            i += 6;
          } else out += String.fromCharCode(hi);
          break;
        }
        default:
          throw pathError(path, i - 1, `invalid escape \\${e ?? ""}`);
      }
      continue;
    }
    if (c < 0x20) throw pathError(path, i, "control characters must be escaped");
    if (c >= 0xd800 && c <= 0xdbff && isLowSurrogate(path.charCodeAt(i + 1))) {
      out += ch + path[i + 1]!;
      i += 2;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) throw pathError(path, i, "lone surrogate");
    out += ch;
    i++;
  }
}

function readHex4(path: string, at: number): number {
  const hex = path.slice(at, at + 4);
  if (!/^[0-9A-Fa-f]{4}$/.test(hex)) throw pathError(path, at, "\\u needs four hex digits");
  return Number.parseInt(hex, 16);
}

