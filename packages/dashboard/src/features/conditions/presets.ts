import type { Alert, Condition, TrackSpec, TrackingSettings } from "./api";

export type PresetKind = "none" | "restock" | "price_below";

export interface PresetValues {
  kind: PresetKind;
  /** The price to fall below ("when the price falls below ..."). */
  below: string;
  /** Where the value is: a JSONPath for an API monitor; an optional selector for a page (default: its structured data). */
  where: string;
}

export const NO_PRESET: PresetValues = { kind: "none", below: "", where: "" };

/** What is wrong with the preset's fields, or null. */
export function presetProblem(p: PresetValues, type: "api" | "website" | "openapi"): string | null {
  if (p.kind === "none") return null;
  if (p.kind === "price_below" && !(Number(p.below) > 0)) return "Type the price to fall below (a positive number).";
  if (type !== "website" && p.kind === "restock") return "Back in stock reads a page's availability: choose it for a web page monitor.";
  if (type !== "website" && p.where.trim() === "") return "Type the JSONPath of the price (for example $.price).";
  return null;
}

/**
 * The monitor's `track` and `alert` for a preset: "notify me when back in stock" tracks the
 * availability and alerts when it becomes `in_stock`; "when the price falls below X" tracks the
 * price and alerts when its amount is below X. Other tracked values are kept; the alert is replaced.
 */
export function presetSettings(p: PresetValues, type: "api" | "website" | "openapi", existing: readonly TrackSpec[] = []): TrackingSettings | null {
  if (p.kind === "none") return null;
  const name = p.kind === "restock" ? "availability" : "price";
  const where = p.where.trim();
  // a JSON price is a number at its path; a page's price is parsed with its currency
  const extract = p.kind === "restock" ? "availability" : type !== "website" ? "number" : "price";
  const spec: TrackSpec = { name, extract, ...(where === "" ? {} : type !== "website" ? { path: where } : { selector: where }) };
  const condition: Condition = p.kind === "restock" ? { value: name, op: "changed_to", to: "in_stock" } : { value: name, op: "lt", to: Number(p.below) };
  const alert: Alert = { when: "all", conditions: [condition] };
  return { track: [...existing.filter((s) => s.name !== name), spec], alert };
}
