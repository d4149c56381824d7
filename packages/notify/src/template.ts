import { NotifyError } from "./errors.js";
import type { MessageModel } from "./notification.js";
import { changeValues } from "./notification.js";

// A small logic-less template language, a subset of Mustache: `{{name}}`, `{{a.b}}`, sections
// `{{#name}}...{{/name}}` (repeated over a list, shown when truthy), inverted sections
// `{{^name}}...{{/name}}` and comments `{{! ...}}`. Names resolve only to the template view's
// own data (no prototype, no function is ever called), and every value is escaped for the
// channel's markup: template text is the tenant's markup, values are the target's data.

const MAX_TEMPLATE_CHARS = 10_000;
const MAX_DEPTH = 8;
const MAX_OUTPUT_CHARS = 200_000;
const NAME = /^(\.|[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*)$/;
const FORBIDDEN = new Set(["__proto__", "prototype", "constructor"]);

type Node =
  | { kind: "text"; text: string }
  | { kind: "var"; name: string[] }
  | { kind: "section"; name: string[]; inverted: boolean; children: Node[] };

export interface CompiledTemplate {
  readonly source: string;
  /** Renders over a view; `escape` makes each value safe for the channel's markup. */
  render(view: TemplateView, escape: (text: string) => string): string;
}

/** The fields a template sees (docs/notifications.md lists them). */
export interface TemplateView {
  [key: string]: TemplateValue;
}
export type TemplateValue = string | number | boolean | null | undefined | TemplateView | TemplateValue[];

function fail(line: number, message: string): NotifyError {
  return new NotifyError("invalid_template", `template line ${line}: ${message}`, {
    details: [{ path: "template", message: `line ${line}: ${message}` }],
  });
}

/** Parses a template; throws `invalid_template` naming the line and the problem. */
export function compileTemplate(source: string): CompiledTemplate {
  if (typeof source !== "string") throw new NotifyError("invalid_template", "a template must be a string", { details: [{ path: "template", message: "not a string" }] });
  if (source.length > MAX_TEMPLATE_CHARS) {
    throw new NotifyError("invalid_template", `a template may have at most ${MAX_TEMPLATE_CHARS} characters`, {
      details: [{ path: "template", message: "too long" }],
    });
  }
  const root: Node[] = [];
  const stack: { name: string; children: Node[]; line: number }[] = [];
  let current = root;
  let position = 0;
  const lineAt = (index: number): number => source.slice(0, index).split("\n").length;
  while (position < source.length) {
    const open = source.indexOf("{{", position);
    if (open < 0) {
      current.push({ kind: "text", text: source.slice(position) });
      break;
    }
    if (open > position) current.push({ kind: "text", text: source.slice(position, open) });
    const line = lineAt(open);
    if (source.startsWith("{{{", open)) throw fail(line, "unescaped output ({{{...}}}) is not supported: every value is escaped");
    const close = source.indexOf("}}", open + 2);
    if (close < 0) throw fail(line, "a tag is not closed with }}");
    const tag = source.slice(open + 2, close).trim();
    position = close + 2;
    const sigil = tag.charAt(0);
    if (sigil === "!") continue;
    if (sigil === "&" || sigil === ">" || sigil === "=") throw fail(line, `the tag {{${sigil}...}} is not supported`);
    const name = sigil === "#" || sigil === "^" || sigil === "/" ? tag.slice(1).trim() : tag;
    if (!NAME.test(name)) throw fail(line, `${JSON.stringify(name.slice(0, 60))} is not a field name`);
    const parts = name === "." ? ["."] : name.split(".");
    if (parts.some((part) => FORBIDDEN.has(part))) throw fail(line, `the name ${JSON.stringify(name)} is not allowed`);
    if (sigil === "#" || sigil === "^") {
      if (stack.length >= MAX_DEPTH) throw fail(line, `sections may nest at most ${MAX_DEPTH} deep`);
      const section: Node = { kind: "section", name: parts, inverted: sigil === "^", children: [] };
      current.push(section);
      stack.push({ name, children: current, line });
      current = section.children;
    } else if (sigil === "/") {
      const top = stack.pop();
      if (top === undefined) throw fail(line, `{{/${name}}} closes no open section`);
      if (top.name !== name) throw fail(line, `{{/${name}}} closes the section {{#${top.name}}} opened on line ${top.line}`);
      current = top.children;
    } else {
      current.push({ kind: "var", name: parts });
    }
  }
  const unclosed = stack.pop();
  if (unclosed !== undefined) throw fail(unclosed.line, `the section {{#${unclosed.name}}} is never closed`);
  return {
    source,
    render(view, escape) {
      const out: string[] = [];
      let size = 0;
      const emit = (text: string): void => {
        if (size >= MAX_OUTPUT_CHARS) return;
        out.push(text);
        size += text.length;
      };
      renderNodes(root, [view], escape, emit);
      return out.join("").slice(0, MAX_OUTPUT_CHARS);
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function lookup(stack: readonly unknown[], name: string[]): unknown {
  if (name[0] === ".") return stack[stack.length - 1];
  for (let i = stack.length - 1; i >= 0; i -= 1) {
    const context = stack[i];
    if (isRecord(context) && Object.hasOwn(context, name[0] as string)) {
      let value: unknown = context[name[0] as string];
      for (const part of name.slice(1)) {
        value = isRecord(value) && Object.hasOwn(value, part) ? value[part] : undefined;
      }
      return value;
    }
  }
  return undefined;
}

function toText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return value.map(toText).join(", ");
  return "";
}

function renderNodes(nodes: Node[], stack: unknown[], escape: (text: string) => string, emit: (text: string) => void): void {
  for (const node of nodes) {
    if (node.kind === "text") emit(node.text);
    else if (node.kind === "var") emit(escape(toText(lookup(stack, node.name))));
    else {
      const value = lookup(stack, node.name);
      const truthy = Array.isArray(value) ? value.length > 0 : Boolean(value);
      if (node.inverted) {
        if (!truthy) renderNodes(node.children, stack, escape, emit);
      } else if (Array.isArray(value)) {
        for (const item of value) renderNodes(node.children, [...stack, item], escape, emit);
      } else if (truthy) {
        renderNodes(node.children, isRecord(value) ? [...stack, value] : stack, escape, emit);
      }
    }
  }
}

/** The view a template renders over: the message's fields, plain data only. */
export function templateView(model: MessageModel): TemplateView {
  return {
    event: model.event,
    id: model.id,
    occurredAt: model.occurredAt,
    title: model.title,
    summary: model.summary,
    severity: model.severity ?? "",
    classification: model.classificationLabel,
    link: model.link ?? "",
    monitor: { id: model.monitorId, name: model.monitorName, url: model.monitorUrl ?? "" },
    changes: model.changes.map((change) => ({
      path: change.path,
      op: change.op,
      severity: change.severity,
      before: change.before ?? "",
      after: change.after ?? "",
      values: changeValues(change).trim(),
    })),
    more: model.more,
    totalChanges: model.totalChanges,
  };
}
