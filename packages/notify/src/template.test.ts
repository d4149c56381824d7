import { describe, expect, it } from "vitest";
import { buildMessage } from "./notification.js";
import { compileTemplate, templateView } from "./template.js";
import { createTestNotification } from "./notification.js";
import { escapeHtml } from "./text.js";

const view = templateView(buildMessage(createTestNotification(new Date("2026-11-28T06:00:00Z")), { publicUrl: "https://dw.example.com" }));

describe("templates", () => {
  it("renders fields, sections over changes, inverted sections and comments", () => {
    const template = compileTemplate("{{! a comment }}{{title}}\n{{#changes}}- {{path}} ({{severity}}): {{values}}\n{{/changes}}{{^changes}}none{{/changes}}{{#more}}and {{more}} more{{/more}}{{link}}");
    expect(template.render(view, (t) => t)).toBe(
      '[HIGH] driftwatch test notification: schema change\n- $.price (high): "12.50" -> 12.5\n- $.items[0].sku (medium): removed: "A-1"\n- $.updatedAt (info): "2026-01-01" -> "2026-01-02"\nhttps://dw.example.com/monitors/mon_test/diffs/dif_test',
    );
  });

  it("escapes every value with the channel's escaper, never the template's own text", () => {
    const template = compileTemplate("<b>{{monitor.name}}</b>");
    expect(template.render({ monitor: { name: "<script>x</script>" } }, escapeHtml)).toBe("<b>&lt;script&gt;x&lt;/script&gt;</b>");
  });

  it("sees only the view's own data: no prototype, no function", () => {
    const template = compileTemplate("[{{toString}}][{{monitor.hasOwnProperty}}][{{valueOf}}][{{changes.length}}]");
    expect(template.render(view, (t) => t)).toBe("[][][][]");
    const withFunction = { f: (() => "called") as unknown as string };
    expect(compileTemplate("{{f}}").render(withFunction, (t) => t)).toBe("");
  });

  it.each([
    ["{{#changes}}x", "line 1: the section {{#changes}} is never closed"],
    ["a\n{{/changes}}", "line 2: {{/changes}} closes no open section"],
    ["{{#a}}{{/b}}", "line 1: {{/b}} closes the section {{#a}} opened on line 1"],
    ["{{{title}}}", "line 1: unescaped output ({{{...}}}) is not supported: every value is escaped"],
    ["{{title", "line 1: a tag is not closed with }}"],
    ["{{constructor}}", 'line 1: the name "constructor" is not allowed'],
    ["{{a.__proto__.b}}", 'line 1: the name "a.__proto__.b" is not allowed'],
    ["{{> partial}}", "line 1: the tag {{>...}} is not supported"],
    ["{{a b}}", 'line 1: "a b" is not a field name'],
    ["{{#a}}".repeat(9) + "{{/a}}".repeat(9), "line 1: sections may nest at most 8 deep"],
  ])("%s is an invalid_template error naming the problem", (source, message) => {
    expect(() => compileTemplate(source)).toThrow(expect.objectContaining({ code: "invalid_template", message: `template ${message}`, details: [{ path: "template", message }] }));
  });

  it("refuses a template over 10 000 characters", () => {
    expect(() => compileTemplate("x".repeat(10_001))).toThrow(expect.objectContaining({ code: "invalid_template" }));
  });

  it("caps the output of a template that repeats a big section", () => {
    const big = { items: Array.from({ length: 1000 }, () => ({ v: "x".repeat(1000) })) };
    const out = compileTemplate("{{#items}}{{v}}{{/items}}").render(big, (t) => t);
    expect(out.length).toBe(200_000);
  });
});
