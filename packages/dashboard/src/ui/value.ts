/** A changed value as text (JSON for structures, the string itself for strings); never markup. */
export function valueText(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A JSON value as JSON (strings keep their quotes), for places where its type matters. */
export function jsonText(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  return valueText(value);
}
