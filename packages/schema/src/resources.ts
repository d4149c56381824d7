import { z } from "zod";
import {
  BlockableResourceSchema,
  BrowserStepActionSchema,
  CategorySchema,
  DeliveryStateSchema,
  EventTypeSchema,
  HttpMethodSchema,
  MonitorStateSchema,
  MonitorTypeSchema,
  OpSchema,
  ScopeSchema,
  ScreenshotModeSchema,
  SeveritySchema,
  WaitStrategySchema,
  ClassificationSchema,
  ApiChangeLevelSchema,
} from "./enums.js";
import { AlertResultSchema, AlertSchema, TrackedNameSchema, TrackedValueSchema, TrackSchema } from "./conditions.js";

/** ISO 8601 UTC timestamp, e.g. `2026-01-02T03:04:05.678Z`. */
export const TimestampSchema = z.iso.datetime({ offset: false });

// ---------------------------------------------------------------------------------------------
// Browser options (request-only on monitors; stored and returned as browserOptionsJson)

export const ViewportSchema = z.strictObject({
  width: z.number().int().min(320).max(3840),
  height: z.number().int().min(240).max(4320),
});
export type Viewport = z.infer<typeof ViewportSchema>;

/** Most browser steps on one monitor. */
export const MAX_BROWSER_STEPS = 50;
/** Longest a single step may wait, and the bound on all of a monitor's steps together, in ms. */
export const MAX_BROWSER_STEP_TIMEOUT_MS = 30_000;
export const MAX_BROWSER_STEPS_TOTAL_MS = 120_000;
/** A step's timeout when it names none, in ms. */
export const DEFAULT_BROWSER_STEP_TIMEOUT_MS = 10_000;
/** Name of a stored secret a step may use instead of `value`. */
export const SECRET_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,100}$/;

/**
 * An absolute http or https URL (a monitor's target, a `goto` step). The URL parser would drop
 * surrounding whitespace and tabs or line breaks anywhere, so the URL fetched would not be the one
 * stored and shown: such a URL is refused rather than kept as sent.
 */
export const UrlSchema = z
  .string()
  .max(2048)
  .refine((value) => !/[\u0000-\u001f\u007f]/.test(value) && value.trim() === value, "must not contain control characters or surrounding whitespace")
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === "http:" || url.protocol === "https:";
    } catch {
      return false;
    }
  }, "must be an absolute http or https URL");
const StepUrlSchema = UrlSchema;

const needs: Partial<Record<z.infer<typeof BrowserStepActionSchema>, readonly ("selector" | "url" | "key" | "ms" | "value")[]>> = {
  goto: ["url"],
  click: ["selector"],
  fill: ["selector", "value"],
  select: ["selector", "value"],
  check: ["selector"],
  press: ["key"],
  waitForSelector: ["selector"],
  waitForTimeout: ["ms"],
};

/**
 * One browser step. `fill` and `select` take `value` or `secret` (the name of a stored secret,
 * resolved when the step runs and never stored in the monitor); `press` takes `key` (Playwright
 * key names: `Enter`, `Control+A`), optionally on `selector`; `scroll` scrolls `selector` into view,
 * or the page down by one viewport height when no selector is given.
 */
export const BrowserStepSchema = z
  .strictObject({
    action: BrowserStepActionSchema,
    selector: z.string().min(1).max(1000).optional(),
    value: z.string().max(10_000).optional(),
    secret: z.string().regex(SECRET_NAME_PATTERN, "must be 1-100 letters, digits, '_', '.' or '-'").optional(),
    url: StepUrlSchema.optional(),
    key: z.string().min(1).max(100).optional(),
    ms: z.number().int().min(0).max(MAX_BROWSER_STEP_TIMEOUT_MS).optional(),
    timeoutMs: z.number().int().min(100).max(MAX_BROWSER_STEP_TIMEOUT_MS).optional(),
  })
  .superRefine((step, ctx) => {
    for (const field of needs[step.action] ?? []) {
      const present = field === "value" ? step.value !== undefined || step.secret !== undefined : step[field] !== undefined;
      if (!present) ctx.addIssue({ code: "custom", path: [field], message: `a ${step.action} step needs ${field === "value" ? "value or secret" : field}` });
    }
    if (step.value !== undefined && step.secret !== undefined) ctx.addIssue({ code: "custom", path: ["secret"], message: "a step takes value or secret, not both" });
    if (step.secret !== undefined && step.action !== "fill" && step.action !== "select") {
      ctx.addIssue({ code: "custom", path: ["secret"], message: "only fill and select steps take a secret" });
    }
  });
export type BrowserStep = z.infer<typeof BrowserStepSchema>;

/** The time a step may take at most: its wait for `waitForTimeout`, else its timeout. */
export function browserStepBudgetMs(step: BrowserStep): number {
  return step.action === "waitForTimeout" ? (step.ms ?? 0) : (step.timeoutMs ?? DEFAULT_BROWSER_STEP_TIMEOUT_MS);
}

function isLanguageTag(value: string): boolean {
  try {
    return Intl.getCanonicalLocales(value).length === 1;
  } catch {
    return false;
  }
}

export const BrowserOptionsSchema = z
  .strictObject({
    waitStrategy: WaitStrategySchema.default("networkidle"),
    waitForSelector: z.string().min(1).max(1000).optional(),
    timeoutMs: z.number().int().min(1000).max(60000).default(30000),
    extraWaitMs: z.number().int().min(0).max(10000).optional(),
    viewport: ViewportSchema.optional(),
    /** Sent as the User-Agent header: characters up to U+00FF, no control characters. */
    userAgent: z
      .string()
      .min(1)
      .max(1000)
      .refine((value) => !/[^\u0020-\u007e\u0080-\u00ff]/.test(value), "must be characters a header can carry: up to U+00FF, no control characters")
      .optional(),
    /** A BCP 47 language tag (`de-DE`, `zh-Hant-TW`). */
    locale: z.string().min(2).max(35).refine(isLanguageTag, "must be a BCP 47 language tag such as en-US").optional(),
    blockResources: z.array(BlockableResourceSchema).max(4).optional(),
    /** Screenshot on each render: `"off"` (the default, same as absent), the viewport, the full page, or the `waitForSelector` element. */
    screenshot: ScreenshotModeSchema.optional(),
    /** Steps run in order after the page loads and before the capture (log in, accept cookies, ...). */
    steps: z.array(BrowserStepSchema).max(MAX_BROWSER_STEPS).optional(),
  })
  .superRefine((options, ctx) => {
    if (options.screenshot === "selector" && options.waitForSelector === undefined) {
      ctx.addIssue({ code: "custom", path: ["screenshot"], message: 'screenshot "selector" captures the waitForSelector element: set waitForSelector' });
    }
    const total = (options.steps ?? []).reduce((sum, step) => sum + browserStepBudgetMs(step), 0);
    if (total > MAX_BROWSER_STEPS_TOTAL_MS) {
      ctx.addIssue({ code: "custom", path: ["steps"], message: `the steps may take ${String(total)} ms together, more than ${String(MAX_BROWSER_STEPS_TOTAL_MS)} ms` });
    }
  });
/** Browser options after defaults are applied (what is stored and returned). */
export type BrowserOptions = z.output<typeof BrowserOptionsSchema>;
/** Browser options as a caller may send them (defaults optional). */
export type BrowserOptionsInput = z.input<typeof BrowserOptionsSchema>;

// ---------------------------------------------------------------------------------------------
// Monitor

const HeaderNameSchema = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "must be a valid HTTP header name");
export const HeadersSchema = z.record(HeaderNameSchema, z.string().max(8192));

/** Longest tag, and most tags on one monitor. */
export const MAX_TAG_LENGTH = 64;
export const MAX_MONITOR_TAGS = 20;
/** What a tag is once normalised: lowercase letters, digits, `-`, `_`, `:` and `.`. */
export const TAG_PATTERN = /^[a-z0-9_.:-]+$/;

/** One tag as a caller may send it: trimmed and lower-cased, then 1..64 characters of `TAG_PATTERN`. */
export const TagSchema = z
  .string()
  .trim()
  .toLowerCase()
  .min(1)
  .max(MAX_TAG_LENGTH)
  .regex(TAG_PATTERN, "may hold only lowercase letters, digits, '-', '_', ':' and '.'");

/** Tags as a caller may send them: each normalised, duplicates dropped (first place kept), at most 20. */
export const TagsSchema = z
  .array(TagSchema)
  .transform((tags) => [...new Set(tags)])
  .pipe(z.array(z.string()).max(MAX_MONITOR_TAGS));

/** The tags `TagsSchema` keeps from `tags`, or null when they are not valid tags. */
export function normalizeTags(tags: readonly unknown[]): string[] | null {
  const parsed = TagsSchema.safeParse(tags);
  return parsed.success ? parsed.data : null;
}

/** Most characters of a contract's operation id or path. */
export const MAX_CONTRACT_OPERATION_LENGTH = 1000;

/**
 * The contract of an `api` monitor: the OpenAPI document that documents its endpoint (a URL, or
 * an `openapi` monitor of the same organization whose newest snapshot is the document), the
 * operation (its `operationId`, or `method` and `path` as the document writes them), and the
 * response status whose schema applies (default: the status the target answered, then its `NXX`
 * range, then `default`). Each fetched response is validated against that schema (docs/contracts.md).
 */
export const ContractSchema = z.strictObject({
  document: z.union([UrlSchema, z.strictObject({ monitorId: z.string().min(1).max(100) })]),
  operation: z.union([
    z.string().min(1).max(MAX_CONTRACT_OPERATION_LENGTH),
    z.strictObject({
      method: z.enum(["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"]),
      path: z.string().min(1).max(MAX_CONTRACT_OPERATION_LENGTH).startsWith("/"),
    }),
  ]),
  status: z
    .union([z.number().int().min(100).max(599), z.string().regex(/^([1-5][0-9][0-9]|[1-5]XX|default)$/, "must be a status code, 1XX..5XX or default")])
    .optional(),
});
export type Contract = z.infer<typeof ContractSchema>;

/** The failed step of a `browser_step_failed` check (the `step` member of its problem, and of `lastFailure`). */
export const FailedStepSchema = z.object({
  index: z.number().int(),
  action: BrowserStepActionSchema,
  selector: z.string().nullable(),
});
export type FailedStep = z.infer<typeof FailedStepSchema>;

/** Why a monitor's last check failed, structured (`lastError` is the same as one line of text). */
export const MonitorFailureSchema = z.object({
  /** The error's code: `timeout`, `dns_failure`, `unsafe_url`, `browser_step_failed`, `invalid_body`, ... */
  reason: z.string(),
  message: z.string(),
  /** `browser_step_failed`: the step that failed (index from 0, action, selector); null otherwise. */
  step: FailedStepSchema.nullable(),
});
export type MonitorFailure = z.infer<typeof MonitorFailureSchema>;

export const MonitorSchema = z.object({
  id: z.string(),
  type: MonitorTypeSchema,
  name: z.string(),
  url: z.string(),
  method: HttpMethodSchema,
  /** Credential-bearing header values are returned masked as `***`. */
  headers: z.record(z.string(), z.string()),
  body: z.string().nullable(),
  intervalSeconds: z.number().int(),
  selector: z.string().nullable(),
  browserOptionsJson: BrowserOptionsSchema.nullable(),
  /** Normalised tags (see `TagSchema`), in the order they were given. */
  tags: z.array(z.string()),
  /** `api` monitors: the OpenAPI contract each response is validated against (null: none). */
  contract: ContractSchema.nullable(),
  state: MonitorStateSchema,
  consecutiveFailures: z.number().int(),
  lastCheckedAt: TimestampSchema.nullable(),
  lastChangedAt: TimestampSchema.nullable(),
  nextCheckAt: TimestampSchema.nullable(),
  lastStatus: z.number().int().nullable(),
  /** The last check's error as text (`<reason>: <message>`), null when it succeeded. */
  lastError: z.string().nullable(),
  /** The last check's error, structured (with the failed browser step), null when it succeeded. */
  lastFailure: MonitorFailureSchema.nullable(),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
});
export type Monitor = z.infer<typeof MonitorSchema>;


export const MIN_INTERVAL_SECONDS = 10;
export const MAX_INTERVAL_SECONDS = 7 * 24 * 3600;

const monitorFields = {
  name: z.string().min(1).max(200),
  url: UrlSchema,
  method: HttpMethodSchema,
  headers: HeadersSchema,
  body: z.string().max(1_000_000).nullable(),
  intervalSeconds: z.number().int().min(MIN_INTERVAL_SECONDS).max(MAX_INTERVAL_SECONDS),
  selector: z.string().min(1).max(1000).nullable(),
  browserOptions: BrowserOptionsSchema.nullable(),
  tags: TagsSchema,
  contract: ContractSchema.nullable(),
};

/** Body of `POST /api/monitors`. `browserOptions` only for `website` monitors. */
export const MonitorCreateSchema = z.strictObject({
  type: MonitorTypeSchema.default("api"),
  name: monitorFields.name.optional(),
  url: monitorFields.url,
  method: monitorFields.method.default("GET"),
  headers: monitorFields.headers.default({}),
  body: monitorFields.body.default(null),
  intervalSeconds: monitorFields.intervalSeconds.default(300),
  selector: monitorFields.selector.default(null),
  browserOptions: monitorFields.browserOptions.optional(),
  tags: monitorFields.tags.default([]),
  /** `api` monitors only. */
  contract: monitorFields.contract.default(null),
  state: z.enum(["active", "paused"]).default("active"),
});
export type MonitorCreate = z.input<typeof MonitorCreateSchema>;
export type MonitorCreateParsed = z.output<typeof MonitorCreateSchema>;

/** Body of `PATCH /api/monitors/{id}`. `browserOptions: null` turns browser rendering off. */
export const MonitorUpdateSchema = z.strictObject({
  name: monitorFields.name.optional(),
  url: monitorFields.url.optional(),
  method: monitorFields.method.optional(),
  headers: monitorFields.headers.optional(),
  body: monitorFields.body.optional(),
  intervalSeconds: monitorFields.intervalSeconds.optional(),
  selector: monitorFields.selector.optional(),
  browserOptions: monitorFields.browserOptions.optional(),
  /** Replaces the monitor's tags (`[]` removes them all). */
  tags: monitorFields.tags.optional(),
  /** `api` monitors only; null removes the contract. */
  contract: monitorFields.contract.optional(),
  state: z.enum(["active", "paused"]).optional(),
});
export type MonitorUpdate = z.input<typeof MonitorUpdateSchema>;
export type MonitorUpdateParsed = z.output<typeof MonitorUpdateSchema>;

// ---------------------------------------------------------------------------------------------
// Snapshot

/** Most hidden changes a silenced check keeps (the count covers all of them). */
export const SILENCED_MAX_ENTRIES = 20;

/** One change a check hid, and the policy entry that hid it. */
export const SilencedChangeSchema = z.object({
  /** JSONPath of the field (API monitors) or CSS selector of the block (website monitors). */
  path: z.string(),
  /** How it was hidden: `volatile`, `tolerance`, `unordered` or `ignored` (a rule). */
  outcome: z.enum(["volatile", "tolerance", "unordered", "ignored"]),
  /** The entry of the policy in effect (`volatile[3]`, `rules[0]`). */
  rule: z.string(),
  /**
   * The learned entry that hid it, when it was learned: its kind, its index in the learned policy
   * (`GET /api/monitors/{id}/noise`) and its path or selector. Absent when a user's rule hid it.
   */
  learned: z
    .object({
      kind: z.enum(["volatile", "tolerance", "unordered", "rule"]),
      index: z.number().int(),
      path: z.string().optional(),
      selector: z.string().optional(),
    })
    .optional(),
});
export type SilencedChange = z.infer<typeof SilencedChangeSchema>;

/** What a check that recorded no diff hid (see `Snapshot.silenced`). */
export const SilencedSchema = z.object({
  /** The snapshot the check compared with (`GET /api/monitors/{id}/compare?from=...&to=...` shows the pair again). */
  previousSnapshotId: z.string(),
  /** Changes hidden, all of them (`changes` lists the first `SILENCED_MAX_ENTRIES`). */
  count: z.number().int(),
  /** How many of them a learned entry hid. */
  learnedCount: z.number().int(),
  changes: z.array(SilencedChangeSchema),
});
export type Silenced = z.infer<typeof SilencedSchema>;

export const SnapshotSchema = z.object({
  id: z.string(),
  monitorId: z.string(),
  fetchedAt: TimestampSchema,
  status: z.number().int(),
  latencyMs: z.number().int(),
  contentType: z.string().nullable(),
  contentHash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  size: z.number().int(),
  browserRender: z.boolean(),
  /**
   * Present when the check that stored this snapshot found changes and every one was hidden by
   * the policy (learned noise or the user's rules): the check recorded no diff (or only an
   * alert-only diff, see `Diff.alertOnly`), and this says what it hid and by which entry.
   */
  silenced: SilencedSchema.optional(),
  /** Present only on `GET /api/monitors/{id}/snapshots/{snapshotId}`. */
  body: z.string().optional(),
});
export type Snapshot = z.infer<typeof SnapshotSchema>;



// ---------------------------------------------------------------------------------------------
// Changes and diffs

/**
 * One change. For API diffs `path` is an RFC 9535 singular query (`$.a['b.c'][0]`) resolving to
 * the changed node (removals in the old document, adds and replaces in the new one). For
 * website diffs `path` is a CSS selector of the changed element.
 */
export const ChangeSchema = z.object({
  path: z.string(),
  category: CategorySchema,
  op: OpSchema,
  /** `move` only: where the value was (old document), as `path` says where it is now. */
  from: z.string().optional(),
  severity: SeveritySchema,
  detail: z.string().optional(),
  before: z.unknown().optional(),
  after: z.unknown().optional(),
  /** `api` changes: the rule id (docs/contracts.md lists them). */
  rule: z.string().optional(),
  /** `api` changes: breaking, potentially breaking or non-breaking. */
  level: ApiChangeLevelSchema.optional(),
  /** `api` and `contract` changes: the operation, `GET /repos/{owner}/{repo}`. */
  operation: z.string().optional(),
  /** `contract` changes: the JSON Schema keyword the value violates (`required`, `type`, `additionalProperties`, ...). */
  keyword: z.string().optional(),
  /** `contract` changes: what the schema asks for (the keyword's value, e.g. the type or the missing property). */
  expected: z.unknown().optional(),
  /** `contract` changes: what the response holds there (absent for a missing property). */
  actual: z.unknown().optional(),
  /** `contract` changes: JSON pointer of the violated keyword in the OpenAPI document. */
  schemaPath: z.string().optional(),
  /**
   * `contract` changes: the schema object that holds the violated keyword, as the document wrote it
   * when the response was checked, shortened (three levels, 25 members, 2 KiB of JSON at most).
   * Recorded on the first violation of a diff at each `schemaPath`; the others there share it.
   */
  schemaExcerpt: z.unknown().optional(),
});
export type Change = z.infer<typeof ChangeSchema>;

const diffCommon = {
  id: z.string(),
  monitorId: z.string(),
  snapshotId: z.string(),
  previousSnapshotId: z.string().nullable(),
  diffFingerprint: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  topSeverity: SeveritySchema,
  changes: z.array(ChangeSchema),
  /**
   * True when `changes` lists only the first changes (the server's diff size caps); the counts,
   * `diffFingerprint` and `topSeverity` still cover every change. Absent otherwise.
   */
  truncated: z.boolean().optional(),
  requestId: z.string(),
  status: z.number().int(),
  latencyMs: z.number().int(),
  createdAt: TimestampSchema,
  /**
   * True for a diff recorded while the monitor was still learning its target's noise (fewer stored
   * contents to learn from than its learning samples, 3 by default: a young monitor; or found by
   * one of its warm-up fetches right after its first content): it is kept for the record but
   * notifies no webhook, unless it removes something or changes a type, or (a young monitor's,
   * learned from two contents or more) holds a change rated medium or above. Absent otherwise.
   */
  learning: z.boolean().optional(),
  /**
   * Present when the monitor has alert conditions (`settings.alert`): what each condition said on
   * this check. Webhooks are sent for the diff only when `matched` is true.
   */
  alert: AlertResultSchema.optional(),
  /**
   * True for a diff recorded only to deliver an alert: the check found no change to report (the
   * content did not change, or the policy hid every change) but the alert conditions became true.
   * Its `changes` are empty. Absent otherwise.
   */
  alertOnly: z.boolean().optional(),
};

/** Diff of an API (JSON) monitor: schema and value change counts, the changes, the top severity. */
export const ApiDiffSchema = z.object({
  ...diffCommon,
  /**
   * `api_change` for `openapi` monitors (then `schemaChanges` counts the breaking and potentially
   * breaking changes, `valueChanges` the non-breaking ones); `contract_violation` for an api
   * monitor's response that violates its contract and whose shape did not otherwise change.
   */
  classification: z.enum(["schema_change", "value_change", "api_change", "contract_violation"]),
  schemaChanges: z.number().int(),
  valueChanges: z.number().int(),
});
export type ApiDiff = z.infer<typeof ApiDiffSchema>;

/** Diff of a website monitor: added, removed and modified blocks, the changed selectors, how the page was rendered. */
/** A bounding box in CSS pixels of a screenshot. */
export const BoxSchema = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() });
export type Box = z.infer<typeof BoxSchema>;

/** The visual comparison of a website diff's two screenshots. */
export const VisualDiffSchema = z.object({
  /** Changed pixels over all pixels compared, in percent (0..100). */
  changedPercent: z.number(),
  /** Bounding boxes of the changed areas. */
  regions: z.array(BoxSchema),
});
export type VisualDiff = z.infer<typeof VisualDiffSchema>;

export const WebsiteDiffSchema = z.object({
  ...diffCommon,
  /**
   * `content_change`, or `visual_change` when the diff's only change is the `visual` one (the
   * page's text is unchanged, or its changes were all hidden by the policy, but its screenshot
   * changed over `policyRules.visual.minChangedPercent`): see `classifyWebsiteChanges` in core.
   */
  classification: z.enum(["content_change", "visual_change"]),
  summary: z.object({
    additions: z.number().int(),
    removals: z.number().int(),
    modifications: z.number().int(),
  }),
  changedTargets: z.array(z.string()),
  browserRender: z.boolean(),
  waitStrategy: WaitStrategySchema.nullable(),
  selector: z.string().nullable(),
  /** Present when both snapshots have a screenshot. */
  visual: VisualDiffSchema.optional(),
});
export type WebsiteDiff = z.infer<typeof WebsiteDiffSchema>;

/** A diff of either kind, discriminated by `classification`. */
export const DiffSchema = z.discriminatedUnion("classification", [ApiDiffSchema, WebsiteDiffSchema]);
export type Diff = z.infer<typeof DiffSchema>;

export function isWebsiteDiff(diff: Diff): diff is WebsiteDiff {
  return diff.classification === "content_change" || diff.classification === "visual_change";
}

// ---------------------------------------------------------------------------------------------
// Policy rules and settings

export const PolicyRuleSchema = z.strictObject({
  path: z.string().min(1).max(1000).optional(),
  selector: z.string().min(1).max(1000).optional(),
  category: CategorySchema.optional(),
  op: OpSchema.optional(),
  action: z.enum(["ignore", "set"]).optional(),
  severity: SeveritySchema.optional(),
});
export type PolicyRule = z.infer<typeof PolicyRuleSchema>;

/**
 * A volatile target: a JSONPath (api monitors) or a CSS selector (website monitors) whose VALUE
 * changes are noise. Unlike `action: "ignore"`, presence and type still count: a volatile member
 * that disappears or changes type is still reported.
 */
export const VolatileRuleSchema = z
  .strictObject({
    path: z.string().min(1).max(1000).optional(),
    selector: z.string().min(1).max(1000).optional(),
    /**
     * Only the volatile parts of the text may change (numbers, dates and times, relative times,
     * identifiers and tokens of any alphabet, also inside URLs and sentences): a change of the
     * rest of the text (its skeleton) is still reported.
     */
    parts: z.boolean().optional(),
    /**
     * A rotation: the values (JSON scalars) or block texts (websites) seen before. A change to one
     * of them is noise; a value never seen is reported. Texts longer than 200 characters are kept
     * as `#` and a 64-bit hash of the text.
     */
    seen: z.array(z.string().max(300)).max(64).optional(),
    /**
     * A clock or a counter: noise while it moves forward (a later time, a bigger number or digit
     * string); a value that goes back is reported.
     */
    forward: z.boolean().optional(),
    /**
     * The entry selects only texts of these skeletons (a text with its volatile parts replaced,
     * kept as `seen` keeps texts): a block or string value with another skeleton is compared as if
     * the entry did not select it (by the next entry that does, or as usual). The learner narrows
     * a `parts` entry widened to a block's siblings this way, so it applies to the block it
     * learned from, wherever that block moves, and not to a sibling paragraph whose number changes.
     */
    skeletons: z.array(z.string().max(300)).max(64).optional(),
  })
  .refine((rule) => (rule.path === undefined) !== (rule.selector === undefined), {
    message: "a volatile entry names exactly one of path or selector",
  });
export type VolatileRule = z.infer<typeof VolatileRuleSchema>;

/** Numbers at `path` are equal when they differ by at most `absolute` or by at most `relative` x max(|a|, |b|). */
export const ToleranceRuleSchema = z
  .strictObject({
    path: z.string().min(1).max(1000),
    absolute: z.number().nonnegative().optional(),
    relative: z.number().nonnegative().max(1).optional(),
  })
  .refine((rule) => rule.absolute !== undefined || rule.relative !== undefined, {
    message: "a tolerance names absolute, relative or both",
  });
export type ToleranceRule = z.infer<typeof ToleranceRuleSchema>;

/** Built-in normalisation of obviously volatile website text; every switch defaults to on. */
export const NormalizeSchema = z.strictObject({
  /** "3 minutes ago", "vor 3 Minuten", "il y a 2 heures", ... */
  relativeTimes: z.boolean().optional(),
  /** CSRF tokens, nonces and similar one-time attribute values. */
  csrfTokens: z.boolean().optional(),
  /** Cache-busting query strings in asset URLs (`app.js?v=123`, `style.css?1699999999`). */
  cacheBusters: z.boolean().optional(),
  /**
   * The items of a list (`li` of one list, `tr` of one table body) that came back with the same
   * texts in another order, nothing added, removed or edited: no change ("Most read" reordered).
   */
  listOrder: z.boolean().optional(),
});
export type Normalize = z.infer<typeof NormalizeSchema>;

/** Visual comparison settings (see docs/website-diffs.md). */
export const VisualRulesSchema = z.strictObject({
  /** Changed area, in percent of the compared pixels, from which a visual change is reported. Default 0.1. */
  minChangedPercent: z.number().min(0).max(100).optional(),
  /** Severity of the visual change. Default `medium`. */
  severity: SeveritySchema.optional(),
  /** Selectors of dynamic regions (ads, clocks, carousels) painted over before each screenshot. */
  mask: z.array(z.string().min(1).max(1000)).max(50).optional(),
});
export type VisualRules = z.infer<typeof VisualRulesSchema>;

export const PolicyRulesSchema = z.strictObject({
  rules: z.array(PolicyRuleSchema).max(500).default([]),
  arrayKeys: z.record(z.string().min(1), z.string().min(1)).optional(),
  notify: z.strictObject({ minSeverity: SeveritySchema.optional() }).optional(),
  volatile: z.array(VolatileRuleSchema).max(500).optional(),
  tolerance: z.array(ToleranceRuleSchema).max(500).optional(),
  /** JSONPaths of arrays whose order does not matter (compared as multisets). */
  unordered: z.array(z.string().min(1).max(1000)).max(500).optional(),
  normalize: NormalizeSchema.optional(),
  /** Website monitors with screenshots: when a visual change is reported, and what is masked before capture. */
  visual: VisualRulesSchema.optional(),
});
export type PolicyRules = z.output<typeof PolicyRulesSchema>;
export type PolicyRulesInput = z.input<typeof PolicyRulesSchema>;

export const DEFAULT_SNAPSHOT_RETENTION = 100;

/**
 * A learned entry a user rejected: the learner does not apply it again to this monitor (it still
 * shows in `GET /api/monitors/{id}/noise`, marked `rejected`). `path` for JSON fields and arrays
 * (as the suggestion named it, `$.items[*].updated_at`), `selector` for page blocks. A rejected
 * noise entry (`volatile`, `tolerance`, `unordered`) also keeps the other two noise kinds from being
 * applied at the same path or selector (docs/signal.md); an `arrayKey` rejection blocks that key only.
 */
export const RejectedSuggestionSchema = z
  .strictObject({
    kind: z.enum(["volatile", "tolerance", "unordered", "arrayKey"]),
    path: z.string().min(1).max(1000).optional(),
    selector: z.string().min(1).max(1000).optional(),
  })
  .refine((entry) => (entry.path === undefined) !== (entry.selector === undefined), { message: "give exactly one of path and selector" });
export type RejectedSuggestion = z.infer<typeof RejectedSuggestionSchema>;

/**
 * How a monitor that learns its noise starts (docs/signal.md, "The first fetches"): each member
 * absent (or the whole object null) takes the service's default.
 * - `warmupSamples`: extra fetches in the check that stores its first content (0 to 5; the
 *   service's default is 2, `--warmup-samples`);
 * - `learningSamples`: its diffs are `learning` diffs while its noise profile was learned from
 *   fewer than this many stored contents (2 to 10; the service's default is 3,
 *   `--learning-samples`). A learning diff notifies only when it removes something or changes a
 *   type, or, learned from two contents or more, holds a change rated `medium` or above.
 */
export const LearningSettingsSchema = z.strictObject({
  warmupSamples: z.number().int().min(0).max(5).optional(),
  learningSamples: z.number().int().min(2).max(10).optional(),
});
export type LearningSettings = z.infer<typeof LearningSettingsSchema>;

export const SettingsSchema = z.object({
  monitorId: z.string(),
  policyRulesJson: PolicyRulesSchema,
  snapshotRetention: z.number().int(),
  /**
   * When true, future diffs use `policyRulesJson` merged with the policy learned from the
   * monitor's recent snapshots (`GET /api/monitors/{id}/noise`); the user's rules always win.
   */
  autoApplySuggestions: z.boolean(),
  /** Learned entries the user rejected: never applied again to this monitor's diffs. */
  rejectedSuggestions: z.array(RejectedSuggestionSchema),
  /** Values each check records (docs/conditions.md); `[]` when none. */
  track: TrackSchema,
  /** Conditions that decide when a check alerts (docs/conditions.md); null: every diff alerts as usual. */
  alert: AlertSchema.nullable(),
  /** How the monitor starts learning (null: the service's defaults). */
  learning: LearningSettingsSchema.nullable(),
  updatedAt: TimestampSchema.nullable(),
});
export type Settings = z.infer<typeof SettingsSchema>;

/** Body of `PATCH /api/monitors/{id}/settings` (`policyRules`: see PolicyRulesSchema and docs/policy-rules.md). */
export const SettingsUpdateSchema = z.strictObject({
  policyRules: PolicyRulesSchema.optional(),
  snapshotRetention: z.number().int().min(1).max(10000).optional(),
  autoApplySuggestions: z.boolean().optional(),
  /** Replaces the list of rejected learned entries (at most 500). */
  rejectedSuggestions: z.array(RejectedSuggestionSchema).max(500).optional(),
  /** Replaces the tracked values (`[]` tracks none). Invalid: 422 invalid_track naming the place (`track[1].path`). */
  track: TrackSchema.optional(),
  /** Replaces the alert conditions (null removes them). Invalid: 422 invalid_conditions naming the place (`alert.conditions[1].to`). */
  alert: AlertSchema.nullable().optional(),
  /** Replaces how the monitor starts learning (`{ "warmupSamples": 0 }`; null: the service's defaults). */
  learning: LearningSettingsSchema.nullable().optional(),
});
export type SettingsUpdate = z.input<typeof SettingsUpdateSchema>;


// ---------------------------------------------------------------------------------------------
// Noise profile (what driftwatch learned from a monitor's recent snapshots)

/** Why one part of a suggested policy is there, or why a changing field was kept. */
export const PolicyEvidenceSchema = z.object({
  kind: z.enum(["volatile", "arrayKey", "unordered", "tolerance", "severity", "kept"]),
  /** The part of the suggested policy this explains (`volatile[0]`, `arrayKeys['$.items']`); absent for `kept`. */
  rule: z.string().optional(),
  /** JSONPath of the field or array. */
  path: z.string().optional(),
  /** CSS selector of the block (website monitors). */
  selector: z.string().optional(),
  /** In how many consecutive pairs of samples it changed. */
  changed: z.number().int(),
  /** How many consecutive pairs of samples were looked at. */
  pairs: z.number().int(),
  /** The value shape seen: `iso8601`, `uuid`, `counter`, `enum`, ... */
  shape: z.string().optional(),
  /** One sentence, e.g. "changed in 4 of 4 fetches, always an ISO 8601 timestamp". */
  reason: z.string(),
});
/** One entry of `evidence` (core's `PolicyEvidence`, as the API serves it). */
export type NoiseEvidence = z.infer<typeof PolicyEvidenceSchema>;

/**
 * Fewest snapshots the service learns noise from (one pair of contents). With one snapshot it
 * learns only what stays put (the severity of stable fields, clocks and counts by their names);
 * a diff found then is a `learning` diff.
 */
export const NOISE_MIN_SAMPLES = 2;
/** Most snapshots (the newest) the service learns from. */
export const NOISE_MAX_SAMPLES = 10;

/** `GET /api/monitors/{id}/noise`: the policy suggested by the monitor's recent snapshots, with its evidence. */
export const NoiseProfileSchema = z.object({
  monitorId: z.string(),
  /** Snapshots learned from: the newest, at most `NOISE_MAX_SAMPLES`, within a byte budget. */
  samples: z.number().int(),
  /** Snapshots needed before anything is suggested (3); below it `policy` is empty. */
  minSamples: z.number().int(),
  /** The suggested policy (a valid `policyRules` for the settings endpoint). */
  policy: PolicyRulesSchema,
  evidence: z.array(PolicyEvidenceSchema),
  /** Whether the monitor's `autoApplySuggestions` setting applies this policy to its diffs. */
  appliedAutomatically: z.boolean(),
});
export type NoiseProfile = z.infer<typeof NoiseProfileSchema>;

// ---------------------------------------------------------------------------------------------
// Webhooks and deliveries

export const WebhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(EventTypeSchema),
  monitorIds: z.array(z.string()).nullable(),
  minSeverity: SeveritySchema,
  enabled: z.boolean(),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
  /** Only on create and on rotate-secret. */
  secret: z.string().optional(),
});
export type Webhook = z.infer<typeof WebhookSchema>;

export const WebhookCreateSchema = z.strictObject({
  url: UrlSchema,
  description: z.string().max(500).nullable().default(null),
  events: z.array(EventTypeSchema).min(1).default(["diff.detected"]),
  monitorIds: z.array(z.string()).max(1000).nullable().default(null),
  minSeverity: SeveritySchema.default("info"),
  enabled: z.boolean().default(true),
});
export type WebhookCreate = z.input<typeof WebhookCreateSchema>;

export const WebhookUpdateSchema = z.strictObject({
  url: UrlSchema.optional(),
  description: z.string().max(500).nullable().optional(),
  events: z.array(EventTypeSchema).min(1).optional(),
  monitorIds: z.array(z.string()).max(1000).nullable().optional(),
  minSeverity: SeveritySchema.optional(),
  enabled: z.boolean().optional(),
});
export type WebhookUpdate = z.input<typeof WebhookUpdateSchema>;

export const DeliverySchema = z.object({
  id: z.string(),
  webhookId: z.string(),
  eventId: z.string(),
  eventType: EventTypeSchema,
  monitorId: z.string(),
  diffId: z.string(),
  state: DeliveryStateSchema,
  attempts: z.number().int(),
  nextAttemptAt: TimestampSchema.nullable(),
  lastAttemptAt: TimestampSchema.nullable(),
  lastResponseStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: TimestampSchema,
});
export type Delivery = z.infer<typeof DeliverySchema>;

export const WorkerRunRequestSchema = z.strictObject({
  webhookId: z.string().optional(),
  force: z.boolean().default(false),
});
export type WorkerRunRequest = z.input<typeof WorkerRunRequestSchema>;

export const WorkerRunResultSchema = z.object({
  attempted: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  pending: z.number().int(),
});
export type WorkerRunResult = z.infer<typeof WorkerRunResultSchema>;

// ---------------------------------------------------------------------------------------------
// Tokens

export const TokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  scopes: z.array(ScopeSchema),
  createdAt: TimestampSchema,
  lastUsedAt: TimestampSchema.nullable(),
  revokedAt: TimestampSchema.nullable(),
  /**
   * The user who created the token (a signed-in member, or the member whose token created it); null
   * for tokens made by the CLI, the setup or before this was recorded. When that member is removed
   * or loses the rights the token has, the token is revoked (docs/people.md).
   */
  createdBy: z.string().nullable(),
  /** The secret (`dw_...`): only in the response that creates the token. */
  token: z.string().optional(),
});
export type Token = z.infer<typeof TokenSchema>;

export const TokenCreateSchema = z.strictObject({
  name: z.string().min(1).max(200),
  scopes: z.array(ScopeSchema).min(1),
});
export type TokenCreate = z.input<typeof TokenCreateSchema>;

// ---------------------------------------------------------------------------------------------
// The diff.detected event: the webhook payload sent for a recorded diff (docs/webhooks.md)

export const EventChangeSchema = z.object({
  path: z.string(),
  category: CategorySchema,
  op: OpSchema,
  /** `move` only: the old path. */
  from: z.string().optional(),
  severity: SeveritySchema,
  /** `api` changes: the rule id and level (docs/contracts.md). */
  rule: z.string().optional(),
  level: ApiChangeLevelSchema.optional(),
  /** `api` and `contract` changes: the operation, `GET /pets/{id}`. */
  operation: z.string().optional(),
  /** `contract` changes: the JSON Schema keyword violated. */
  keyword: z.string().optional(),
});
export type EventChange = z.infer<typeof EventChangeSchema>;

export const DiffDetectedEventSchema = z.object({
  schemaVersion: z.literal("v1"),
  eventVersion: z.literal(1),
  eventId: z.string(),
  eventType: z.literal("diff.detected"),
  occurredAt: TimestampSchema,
  deliveredAt: TimestampSchema,
  monitorId: z.string(),
  diffId: z.string(),
  snapshotId: z.string(),
  data: z.object({
    classification: ClassificationSchema,
    schemaChanges: z.number().int(),
    valueChanges: z.number().int(),
    changes: z.array(EventChangeSchema),
    /** True when `changes` lists only the first changes (diff or payload size caps); the counts cover all. */
    truncated: z.boolean().optional(),
    /** Where to fetch the full stored diff (`/api/monitors/{id}/diffs/{diffId}`), on truncated events. */
    diffUrl: z.string().optional(),
    /** The monitor's alert conditions on this check (only for monitors with `settings.alert`; always matched when sent). */
    alert: AlertResultSchema.optional(),
    /** True when the diff was recorded only for the alert (no change to report; `changes` is empty). */
    alertOnly: z.boolean().optional(),
  }),
});
export type DiffDetectedEvent = z.infer<typeof DiffDetectedEventSchema>;

// ---------------------------------------------------------------------------------------------
// Paging and check results

export const PageQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).max(500).optional(),
});
export type PageQuery = z.input<typeof PageQuerySchema>;

export function pageSchema<T extends z.ZodTypeAny>(item: T) {
  return z.object({ data: z.array(item), nextCursor: z.string().nullable() });
}
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export const DiffListQuerySchema = PageQuerySchema.extend({
  since: TimestampSchema.optional(),
  until: TimestampSchema.optional(),
  minSeverity: SeveritySchema.optional(),
  classification: ClassificationSchema.optional(),
});
export type DiffListQuery = z.input<typeof DiffListQuerySchema>;

/** Query of `GET /api/monitors`: `tag` keeps the monitors that have that tag (normalised as `TagSchema`). */
export const MonitorListQuerySchema = PageQuerySchema.extend({
  tag: TagSchema.optional(),
});
export type MonitorListQuery = z.input<typeof MonitorListQuerySchema>;

/** Which policy `GET /api/monitors/{id}/compare` applies. */
export const ComparePolicySchema = z.enum(["effective", "user", "none"]);
export type ComparePolicy = z.infer<typeof ComparePolicySchema>;

export const SnapshotCompareQuerySchema = z.strictObject({
  /** The older snapshot. */
  from: z.string().min(1).max(100),
  /** The newer snapshot. */
  to: z.string().min(1).max(100),
  /**
   * `effective` (default): the policy checks use now (the stored rules merged with what the monitor
   * learned, when `autoApplySuggestions` is on, without rejected entries); `user`: the stored rules
   * only (what the learned policy hid shows again); `none`: no policy at all.
   */
  policy: ComparePolicySchema.default("effective"),
});

/** `GET /api/monitors/{id}/compare`: two stored snapshots compared again under a policy (nothing is stored). */
export const SnapshotCompareSchema = z.object({
  monitorId: z.string(),
  fromSnapshotId: z.string(),
  toSnapshotId: z.string(),
  policy: ComparePolicySchema,
  /** Whether the learned policy was part of the policy applied. */
  includesLearned: z.boolean(),
  /**
   * Website monitors: the CSS selector the two pages were compared under (null: the whole page),
   * the one the check that stored `to` used (docs/api.md). Absent for API monitors.
   */
  selector: z.string().nullable().optional(),
  /** The changes that remain, or null when none does. */
  diff: z
    .object({
      classification: ClassificationSchema,
      topSeverity: SeveritySchema,
      changes: z.array(ChangeSchema),
      truncated: z.boolean().optional(),
    })
    .nullable(),
  /** What the policy hid, by which entry (learned entries named as in `Snapshot.silenced`). */
  hidden: z.object({ count: z.number().int(), learnedCount: z.number().int(), changes: z.array(SilencedChangeSchema) }),
});
export type SnapshotCompare = z.infer<typeof SnapshotCompareSchema>;

export const CheckResultSchema = z.object({
  snapshot: SnapshotSchema,
  diff: DiffSchema.nullable(),
});
export type CheckResult = z.infer<typeof CheckResultSchema>;

// ---------------------------------------------------------------------------------------------
// Tracked values (GET /api/monitors/{id}/values)

/** Readings kept per tracked value of a monitor (the newest); older ones are dropped as checks record new ones. */
export const TRACKED_VALUE_RETENTION = 1000;

/** One reading of a tracked value: the value a check read (null when it was missing, with `reason`), and the snapshot it was read from. */
export const TrackedValueReadingSchema = z.object({
  /** When the check ran. */
  at: TimestampSchema,
  value: TrackedValueSchema.nullable(),
  /** The snapshot whose content the value was read from (the newest one when the content did not change). */
  snapshotId: z.string(),
  /** Why there is no value (present only when `value` is null). */
  reason: z.string().optional(),
});
export type TrackedValueReading = z.infer<typeof TrackedValueReadingSchema>;

/** Query of `GET /api/monitors/{id}/values`. */
export const TrackedValueListQuerySchema = PageQuerySchema.extend({
  /** The tracked value's name (as in `settings.track`). */
  name: TrackedNameSchema,
});
export type TrackedValueListQuery = z.input<typeof TrackedValueListQuerySchema>;

/** Most past checks `POST /api/monitors/{id}/alert/preview` replays. */
export const MAX_ALERT_PREVIEW_CHECKS = 1000;

/** Body of `POST /api/monitors/{id}/alert/preview`: conditions to try (default: the stored ones) on the monitor's recorded values. */
export const AlertPreviewRequestSchema = z.strictObject({
  /** The conditions to try; absent: the stored `settings.alert`. */
  alert: AlertSchema.optional(),
  /** The newest past checks to replay (default 100). */
  limit: z.number().int().min(1).max(MAX_ALERT_PREVIEW_CHECKS).optional(),
});
export type AlertPreviewRequest = z.input<typeof AlertPreviewRequestSchema>;

/** One past check of an alert preview: what the conditions say about it, and whether it would have alerted. */
export const AlertPreviewCheckSchema = z.object({
  at: TimestampSchema,
  matched: z.boolean(),
  /** The conditions hold on this check and did not on the check before. */
  alerted: z.boolean(),
  results: z.array(AlertResultSchema.shape.results.element),
});
export type AlertPreviewCheck = z.infer<typeof AlertPreviewCheckSchema>;

/** `POST /api/monitors/{id}/alert/preview`: the conditions replayed on the recorded values, newest check first. */
export const AlertPreviewSchema = z.object({
  monitorId: z.string(),
  /** The past checks replayed (the newest `limit` that recorded values), newest first. */
  checks: z.array(AlertPreviewCheckSchema),
  /** How many of them would have alerted. */
  alerts: z.number().int(),
});
export type AlertPreview = z.infer<typeof AlertPreviewSchema>;

// The schema inferred from a monitor's responses (docs/contracts.md)

/** `GET /api/monitors/{id}/schema`: the JSON Schema inferred from the newest snapshots. */
export const InferredSchemaSchema = z.object({
  monitorId: z.string(),
  /** Snapshots (parsed JSON responses) inferred from. */
  samples: z.number().int(),
  /** JSONPaths marked `x-driftwatch-volatile: true` in the schema (learned or configured volatile members). */
  volatile: z.array(z.string()),
  /** True when the inference stopped at its size limit (deeper members are `{}`). */
  truncated: z.boolean(),
  /** A JSON Schema 2020-12 document. */
  schema: z.record(z.string(), z.unknown()),
});
export type InferredSchema = z.infer<typeof InferredSchemaSchema>;

export const InferredSchemaQuerySchema = z.strictObject({
  /** `true`: the schema alone, as a file to save (`Content-Disposition: attachment`). */
  download: z.enum(["true", "false"]).optional(),
});
