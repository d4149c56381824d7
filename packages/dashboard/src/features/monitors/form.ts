import type { Monitor, MonitorCreate } from "@driftwatch/client";
import type { BrowserStep } from "../visual/api";

export const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;
export const WAIT_STRATEGIES = ["networkidle", "load", "domcontentloaded", "commit"] as const;
export const BLOCKABLE = ["image", "font", "media", "stylesheet"] as const;
export const SCREENSHOT_MODES = [
  ["off", "No screenshot"],
  ["viewport", "The viewport"],
  ["fullPage", "The full page"],
  ["selector", "The waited-for element"],
] as const;

/** The same rule as the server's masking: these header values are credentials. */
export function isCredentialHeader(name: string): boolean {
  const n = name.toLowerCase();
  return n === "authorization" || n === "cookie" || n === "x-api-key" || n.includes("token") || n.includes("secret") || n.includes("key");
}

export interface HeaderRow {
  name: string;
  value: string;
}

export interface MonitorFormValues {
  type: Monitor["type"];
  name: string;
  url: string;
  method: (typeof METHODS)[number];
  headers: HeaderRow[];
  body: string;
  intervalSeconds: number;
  selector: string;
  /** Comma-separated tags as typed; the server trims, lower-cases and deduplicates them. */
  tags: string;
  browser: boolean;
  waitStrategy: (typeof WAIT_STRATEGIES)[number];
  waitForSelector: string;
  timeoutMs: number;
  extraWaitMs: number;
  viewportWidth: string;
  viewportHeight: string;
  userAgent: string;
  locale: string;
  blockResources: Array<(typeof BLOCKABLE)[number]>;
  screenshot: (typeof SCREENSHOT_MODES)[number][0];
  steps: BrowserStep[];
  contract: ContractValues;
}

/** An `api` monitor's contract as the form edits it (docs/contracts.md, "Contract checks"). */
export interface ContractValues {
  on: boolean;
  /** The OpenAPI document: a URL, or a stored `openapi` monitor. */
  source: "url" | "monitor";
  documentUrl: string;
  documentMonitorId: string;
  /** The operation: by its operationId, or by method and path as the document writes it. */
  by: "operationId" | "path";
  operationId: string;
  method: (typeof CONTRACT_METHODS)[number];
  path: string;
  /** Empty: the status the target answered (then its range, then `default`). */
  status: string;
}

export const CONTRACT_METHODS = ["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"] as const;

export function contractValues(contract: Monitor["contract"] | undefined): ContractValues {
  const c = contract ?? null;
  const op = c?.operation;
  return {
    on: c !== null,
    source: c !== null && typeof c.document !== "string" ? "monitor" : "url",
    documentUrl: typeof c?.document === "string" ? c.document : "",
    documentMonitorId: c !== null && typeof c.document !== "string" ? c.document.monitorId : "",
    by: op !== undefined && typeof op !== "string" ? "path" : "operationId",
    operationId: typeof op === "string" ? op : "",
    method: op !== undefined && typeof op !== "string" ? op.method : "GET",
    path: op !== undefined && typeof op !== "string" ? op.path : "",
    status: c?.status === undefined ? "" : String(c.status),
  };
}

/** The contract as the API takes it (null: none); the server validates it and names the field at fault. */
export function toContract(c: ContractValues): NonNullable<Monitor["contract"]> | null {
  if (!c.on) return null;
  const status = c.status.trim();
  return {
    document: c.source === "url" ? c.documentUrl.trim() : { monitorId: c.documentMonitorId },
    operation: c.by === "operationId" ? c.operationId.trim() : { method: c.method, path: c.path.trim() },
    ...(status === "" ? {} : { status: /^[0-9]+$/.test(status) ? Number(status) : status.replace(/xx$/i, "XX") }),
  };
}

export function initialValues(monitor?: Monitor): MonitorFormValues {
  const b = monitor?.browserOptionsJson ?? null;
  return {
    type: monitor?.type ?? "api",
    name: monitor?.name ?? "",
    url: monitor?.url ?? "",
    method: monitor?.method ?? "GET",
    headers: Object.entries(monitor?.headers ?? {}).map(([name, value]) => ({ name, value })),
    body: monitor?.body ?? "",
    intervalSeconds: monitor?.intervalSeconds ?? 300,
    selector: monitor?.selector ?? "",
    tags: (monitor?.tags ?? []).join(", "),
    browser: b !== null,
    waitStrategy: b?.waitStrategy ?? "networkidle",
    waitForSelector: b?.waitForSelector ?? "",
    timeoutMs: b?.timeoutMs ?? 30000,
    extraWaitMs: b?.extraWaitMs ?? 0,
    viewportWidth: b?.viewport ? String(b.viewport.width) : "",
    viewportHeight: b?.viewport ? String(b.viewport.height) : "",
    userAgent: b?.userAgent ?? "",
    locale: b?.locale ?? "",
    blockResources: b?.blockResources ?? [],
    screenshot: b?.screenshot ?? "off",
    steps: (b?.steps ?? []) as BrowserStep[],
    contract: contractValues(monitor?.contract),
  };
}

/** The tags of a comma-separated text: each trimmed, empty entries dropped (the server normalises the rest). */
export function parseTags(text: string): string[] {
  return text
    .split(",")
    .map((tag) => tag.trim())
    .filter((tag) => tag !== "");
}

/** The request body (create or update) of the form's values; masked header values go back as `***` (kept). */
export function toRequest(v: MonitorFormValues, editing: boolean): MonitorCreate {
  const headers: Record<string, string> = {};
  for (const row of v.headers) if (row.name.trim() !== "") headers[row.name.trim()] = row.value;
  const body: MonitorCreate = {
    url: v.url.trim(),
    method: v.method,
    headers,
    body: v.body === "" ? null : v.body,
    intervalSeconds: v.intervalSeconds,
    selector: v.type === "website" && v.selector.trim() !== "" ? v.selector.trim() : null,
    tags: parseTags(v.tags),
  };
  if (v.name.trim() !== "") body.name = v.name.trim();
  if (v.type === "website") {
    body.browserOptions = v.browser
      ? {
          waitStrategy: v.waitStrategy,
          timeoutMs: v.timeoutMs,
          ...(v.waitForSelector.trim() !== "" ? { waitForSelector: v.waitForSelector.trim() } : {}),
          ...(v.extraWaitMs > 0 ? { extraWaitMs: v.extraWaitMs } : {}),
          ...(v.viewportWidth !== "" && v.viewportHeight !== "" ? { viewport: { width: Number(v.viewportWidth), height: Number(v.viewportHeight) } } : {}),
          ...(v.userAgent.trim() !== "" ? { userAgent: v.userAgent.trim() } : {}),
          ...(v.locale.trim() !== "" ? { locale: v.locale.trim() } : {}),
          ...(v.blockResources.length > 0 ? { blockResources: v.blockResources } : {}),
          ...(v.screenshot !== "off" ? { screenshot: v.screenshot } : {}),
          ...(v.steps.length > 0 ? { steps: v.steps.map(cleanStep) } : {}),
        }
      : null;
  }
  // a create of another type leaves the contract out (the server's default, none)
  if (v.type === "api" && (editing || v.contract.on)) body.contract = toContract(v.contract);
  return editing ? body : { ...body, type: v.type };
}

/** A step as sent: empty fields left out, `value` or `secret` (not both). */
export function cleanStep(step: BrowserStep): BrowserStep {
  const out: BrowserStep = { action: step.action };
  for (const key of ["selector", "value", "secret", "url", "key"] as const) {
    const value = step[key];
    if (value !== undefined && value.trim() !== "") out[key] = key === "value" ? value : value.trim();
  }
  if (out.secret !== undefined) delete out.value;
  if (step.ms !== undefined && Number.isFinite(step.ms)) out.ms = step.ms;
  if (step.timeoutMs !== undefined && Number.isFinite(step.timeoutMs)) out.timeoutMs = step.timeoutMs;
  return out;
}
