import type { AnyNode, Document, Element } from "domhandler";

/** `CSS.escape` (CSSOM section 2.1) for an identifier, so any id can be written as `#id`. */
export function cssEscapeIdentifier(value: string): string {
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    const char = value.charAt(i);
    if (code === 0) out += "\uFFFD";
    else if ((code >= 0x01 && code <= 0x1f) || code === 0x7f) out += `\\${code.toString(16)} `;
    else if (i === 0 && code >= 0x30 && code <= 0x39) out += `\\${code.toString(16)} `;
    else if (i === 1 && code >= 0x30 && code <= 0x39 && value.charCodeAt(0) === 0x2d) out += `\\${code.toString(16)} `;
    else if (i === 0 && code === 0x2d && value.length === 1) out += `\\${char}`;
    else if (code >= 0x80 || code === 0x2d || code === 0x5f || (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) {
      out += char;
    } else out += `\\${char}`;
  }
  return out;
}

export function isElement(node: AnyNode): node is Element {
  return node.type === "tag" || node.type === "script" || node.type === "style";
}

const SIMPLE_TAG = /^[a-z][a-z0-9-]*$/;
/** Elements that occur exactly once in every document the HTML parser builds. */
const SINGLETONS = new Set(["html", "head", "body"]);

/**
 * Builds CSS selectors that select exactly one element of one parsed page: `#id` when the id is
 * unique in the page, otherwise a `tag:nth-of-type(n)` chain of child combinators from the
 * nearest ancestor with a unique id (or from `body`/`head`/`html`).
 */
export class PageSelectors {
  private idCounts: Map<string, number> | undefined;
  private readonly cache = new Map<Element, string>();
  /** Per parent, each element child's position among its siblings, computed once per parent. */
  private readonly positions = new Map<object, Map<Element, number>>();

  constructor(private readonly document: Document) {}

  selectorOf(element: Element): string {
    const steps: string[] = [];
    let current: Element | null = element;
    while (current !== null) {
      const cached = this.cache.get(current);
      if (cached !== undefined) {
        steps.push(cached);
        break;
      }
      const anchor = this.anchorOf(current);
      if (anchor !== null) {
        this.cache.set(current, anchor);
        steps.push(anchor);
        break;
      }
      steps.push(this.stepOf(current));
      const parent: AnyNode | null = current.parent;
      current = parent !== null && isElement(parent) ? parent : null;
    }
    steps.reverse();
    const selector = steps.join(" > ");
    this.cache.set(element, selector);
    return selector;
  }

  /** A selector for the element alone (`#id`, `body`), or null when it needs a chain. */
  private anchorOf(element: Element): string | null {
    const id = element.attribs["id"];
    if (id !== undefined && id !== "" && this.countId(id) === 1) return `#${cssEscapeIdentifier(id)}`;
    if (SINGLETONS.has(element.name) && (element.parent === this.document || element.parent?.parent === this.document)) {
      return element.name;
    }
    return null;
  }

  /**
   * `tag:nth-of-type(n)`, or `:nth-child(n)` for names a tag selector may not match as written
   * (SVG's camelCase `foreignObject`, ...).
   */
  private stepOf(element: Element): string {
    const parent = element.parent ?? element;
    let map = this.positions.get(parent);
    if (map === undefined) {
      map = new Map();
      const perTag = new Map<string, number>();
      let nth = 0;
      for (const sibling of element.parent?.children ?? [element]) {
        if (!isElement(sibling)) continue;
        nth++;
        const ofType = (perTag.get(sibling.name) ?? 0) + 1;
        perTag.set(sibling.name, ofType);
        map.set(sibling, SIMPLE_TAG.test(sibling.name) ? ofType : nth);
      }
      this.positions.set(parent, map);
    }
    const position = map.get(element)!;
    return SIMPLE_TAG.test(element.name) ? `${element.name}:nth-of-type(${position})` : `:nth-child(${position})`;
  }

  private countId(id: string): number {
    if (this.idCounts === undefined) {
      const counts = new Map<string, number>();
      const stack: AnyNode[] = [...this.document.children];
      while (stack.length > 0) {
        const node = stack.pop()!;
        if (!isElement(node)) continue;
        const value = node.attribs["id"];
        if (value !== undefined) counts.set(value, (counts.get(value) ?? 0) + 1);
        for (const child of node.children) stack.push(child);
      }
      this.idCounts = counts;
    }
    return this.idCounts.get(id) ?? 0;
  }
}

