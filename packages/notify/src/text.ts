// Text from monitored targets is data: every channel escapes it for its service's markup, and
// these helpers remove what no service should ever get (control characters, bidi overrides,
// lone surrogates) and cut text to a service's limits without splitting a character.

// C0/C1 controls but tab and newline; bidi embedding/override/isolate controls.
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const LINE_BREAKS = /[\r\n\t\u2028\u2029\u0085]+/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Multi-line text, safe: no controls but `\n` and `\t`, no lone surrogates. */
export function cleanText(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(CONTROLS, "").replace(LONE_SURROGATE, "\ufffd");
}

/** One line (a title, a subject, a header value): every line break and control becomes a space. */
export function oneLine(text: string): string {
  return cleanText(text).replace(LINE_BREAKS, " ").replace(/ {2,}/g, " ").trim();
}

/** Cuts `text` to at most `max` UTF-16 code units, ending with `…` when cut; never splits a pair. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 1) return max === 1 ? "…" : "";
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** Cuts `text` so its UTF-8 encoding is at most `maxBytes` bytes. */
export function truncateBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, "utf8") <= maxBytes) return text;
  let max = Math.min(text.length, maxBytes);
  while (max > 0 && Buffer.byteLength(truncate(text, max), "utf8") > maxBytes) max = Math.floor(max * 0.9);
  return truncate(text, max);
}

/** A short one-line preview of a JSON value from a diff (`before`/`after`). */
export function previewValue(value: unknown, max = 120): string {
  let text: string;
  if (value === undefined) return "";
  if (typeof value === "string") {
    // Cut before quoting, so a 100 KB string costs no more than a short one.
    text = JSON.stringify(value.length > max * 2 ? value.slice(0, max * 2) : value);
  } else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return truncate(oneLine(text), max);
}

/** HTML text and attribute escaping (e-mail, Matrix, Telegram, Google Chat, Pushover). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&#39;"));
}

/**
 * Slack mrkdwn: `&`, `<` and `>` are the only control characters (https://api.slack.com/reference/surfaces/formatting#escaping),
 * so escaping them makes `<!channel>`, `<@U123>` and `<http://x|y>` plain text.
 */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Breaks `@everyone`, `@here`, `@channel`, `@all` so no service treats them as a mention. */
export function neutraliseMentions(text: string): string {
  return text.replace(/@(?=(everyone|here|channel|all|room)\b)/gi, "@\u200b");
}

/**
 * Markdown (Discord, Mattermost, Rocket.Chat, Gotify): backslash-escape what makes emphasis, code,
 * links, images, quotes, headings, spoilers and HTML, and break mentions. Punctuation that only
 * starts a list at a line start is left alone (every line we write starts with our own text).
 */
export function escapeMarkdown(text: string): string {
  return neutraliseMentions(text.replace(/[\\`*_~|<>[\]()#]/g, "\\$&"));
}

/** Text inside an inline code span: no backtick can end it (replaced by a look-alike). */
export function codeSpan(text: string): string {
  return `\`${text.replace(/`/g, "\u02cb") || " "}\``;
}

/**
 * Cuts HTML to at most `max` characters. When it must cut, the tags are dropped first (a cut could
 * leave one open) and an entity is never split, so the result is still valid for the service.
 */
export function cutHtml(html: string, max: number): string {
  if (html.length <= max) return html;
  let cut = truncate(html.replace(/<[^>]*>/g, ""), max);
  const amp = cut.lastIndexOf("&");
  if (amp >= 0 && !cut.slice(amp).includes(";")) cut = `${cut.slice(0, amp)}…`;
  return cut;
}

/** Shrinks `body` until `fits(render(body))`, cutting with `cut` (at most 20 rounds). */
export function shrinkToFit<T>(body: string, render: (body: string) => T, fits: (rendered: T) => boolean, cut: (text: string, max: number) => string = truncate): T {
  let current = body;
  let rendered = render(current);
  for (let round = 0; round < 20 && !fits(rendered); round += 1) {
    current = cut(current, Math.floor(current.length * 0.7));
    rendered = render(current);
  }
  return rendered;
}
