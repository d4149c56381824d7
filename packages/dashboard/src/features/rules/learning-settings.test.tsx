// How a monitor learns (rules page) and what new monitors start with (organization page):
// validation at the field, the server's 422 at the field, and what is sent.
import type { LearningSettings, Settings } from "@driftwatch/client";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { fakeClient, meAs, monitor, renderPage, type Answer, type Call } from "../../test-support";
import { OrgPage } from "../people/OrgPage";
import { parseLearningDraft } from "./learning-settings";
import { RulesPage } from "./RulesPage";

const MON = monitor(1);

describe("parseLearningDraft", () => {
  it("leaves empty fields out, sends null when both are empty, and refuses numbers out of range or not whole", () => {
    expect(parseLearningDraft({ warmupSamples: "", learningSamples: "" })).toEqual({ ok: true, value: null });
    expect(parseLearningDraft({ warmupSamples: "0", learningSamples: "" })).toEqual({ ok: true, value: { warmupSamples: 0 } });
    expect(parseLearningDraft({ warmupSamples: " 5 ", learningSamples: "10" })).toEqual({ ok: true, value: { warmupSamples: 5, learningSamples: 10 } });
    expect(parseLearningDraft({ warmupSamples: "6", learningSamples: "1" })).toEqual({
      ok: false,
      errors: { warmupSamples: "must be from 0 to 5", learningSamples: "must be from 2 to 10" },
    });
    expect(parseLearningDraft({ warmupSamples: "2.5", learningSamples: "-3" })).toEqual({
      ok: false,
      errors: { warmupSamples: "must be a whole number from 0 to 5", learningSamples: "must be a whole number from 2 to 10" },
    });
  });
});

describe("how a monitor learns, on its rules page", () => {
  function setup(options: { learning?: LearningSettings | null; autoApply?: boolean; orgDefaults?: LearningSettings | null; role?: "member" | "viewer"; patch?: (call: Call) => Answer | undefined } = {}) {
    let settings: Settings = {
      monitorId: MON.id,
      policyRulesJson: { rules: [] },
      snapshotRetention: 100,
      autoApplySuggestions: options.autoApply ?? true,
      rejectedSuggestions: [],
      track: [],
      alert: null,
      learning: options.learning ?? null,
      updatedAt: null,
    };
    const fake = fakeClient((call) => {
      if (call.path === `/api/monitors/${MON.id}`) return { body: MON };
      if (call.path === `/api/monitors/${MON.id}/noise`) return { body: { monitorId: MON.id, samples: 1, minSamples: 3, policy: { rules: [] }, evidence: [], appliedAutomatically: false } };
      if (call.path === `/api/monitors/${MON.id}/settings` && call.method === "PATCH") {
        const refused = options.patch?.(call);
        if (refused) return refused;
        const body = call.body as { autoApplySuggestions?: boolean; learning?: LearningSettings | null };
        settings = {
          ...settings,
          ...(body.autoApplySuggestions === undefined ? {} : { autoApplySuggestions: body.autoApplySuggestions }),
          ...(body.learning === undefined ? {} : { learning: body.learning }),
          updatedAt: "2026-11-28T10:00:00.000Z",
        };
        return { body: settings };
      }
      if (call.path === `/api/monitors/${MON.id}/settings`) return { body: settings };
      if (call.path.endsWith("/settings/preview")) return { body: { monitorId: MON.id, includesSuggestions: true, diffs: [], totals: { diffs: 0, hidden: 0, shown: 0, severityChanged: 0, silenced: 0 } } };
      return undefined;
    });
    const me = meAs(options.role ?? "member");
    me.org = { ...me.org, learningDefaults: options.orgDefaults ?? null };
    renderPage(<RulesPage />, fake.client, `/monitors/${MON.id}/rules`, "/monitors/:monitorId/rules", me);
    return fake;
  }
  const patches = (calls: Call[]): unknown[] => calls.filter((c) => c.method === "PATCH").map((c) => c.body);

  it("shows the defaults a monitor without settings uses, the organization's default, and the young-monitor rules with a link to them", async () => {
    setup({ orgDefaults: { learningSamples: 5 } });
    const form = await screen.findByRole("form", { name: "How this monitor learns" });
    expect(form.textContent).toContain("This monitor uses the service’s defaults: 2 warm-up fetches, 3 learning samples (unless");
    expect(form.textContent).toContain("New monitors of Acme start with 2 warm-up fetches, 5 learning samples");
    expect(form.textContent).toContain("notified only when they remove something, change a type or hold a change rated medium or above");
    expect(within(form).getByRole("link", { name: "How young monitors learn" })).toHaveAttribute("href", expect.stringContaining("docs/signal.md#young-monitors"));
    expect(within(form).getByRole("checkbox", { name: /Learn this monitor’s noise/ })).toBeChecked();
    expect(within(form).getByRole("spinbutton", { name: /Warm-up fetches/ })).toHaveValue(null);
    expect(within(form).getByRole("spinbutton", { name: /Warm-up fetches/ })).toHaveAttribute("placeholder", "default: 2");
    expect(within(form).getByRole("button", { name: "Save learning settings" })).toBeDisabled();
  });

  it("refuses a value out of range at its field, then saves learning off and both numbers", async () => {
    const { calls } = setup();
    const form = await screen.findByRole("form", { name: "How this monitor learns" });
    const user = userEvent.setup();
    const warmup = within(form).getByRole("spinbutton", { name: /Warm-up fetches/ });
    await user.type(warmup, "7");
    expect(warmup).toHaveAttribute("aria-invalid", "true");
    expect(warmup).toHaveAccessibleDescription(expect.stringContaining("must be from 0 to 5"));
    const save = within(form).getByRole("button", { name: "Save learning settings" });
    expect(save).toBeDisabled();
    await user.clear(warmup);
    await user.type(warmup, "0");
    expect(warmup).toHaveAttribute("aria-invalid", "false");
    await user.type(within(form).getByRole("spinbutton", { name: /Learning samples/ }), "4");
    await user.click(within(form).getByRole("checkbox", { name: /Learn this monitor’s noise/ }));
    expect(form.textContent).toContain("While it has learned from fewer than 4 stored contents");
    await user.click(save);
    await waitFor(() => expect(patches(calls)).toEqual([{ autoApplySuggestions: false, learning: { warmupSamples: 0, learningSamples: 4 } }]));
    expect(await within(form).findByRole("status")).toHaveTextContent("Saved.");
    expect(form.textContent).toContain("This monitor has its own settings: 0 warm-up fetches, 4 learning samples.");
    expect(save).toBeDisabled();
  });

  it("sends learning null to take the defaults again, and only what changed", async () => {
    const { calls } = setup({ learning: { warmupSamples: 1, learningSamples: 6 }, orgDefaults: { warmupSamples: 3 } });
    const form = await screen.findByRole("form", { name: "How this monitor learns" });
    const user = userEvent.setup();
    expect(within(form).getByRole("spinbutton", { name: /Learning samples/ })).toHaveValue(6);
    await user.click(within(form).getByRole("button", { name: "Use the organization’s default" }));
    expect(within(form).getByRole("spinbutton", { name: /Warm-up fetches/ })).toHaveValue(3);
    expect(within(form).getByRole("spinbutton", { name: /Learning samples/ })).toHaveValue(null);
    await user.click(within(form).getByRole("button", { name: "Use the service’s defaults" }));
    await user.click(within(form).getByRole("button", { name: "Save learning settings" }));
    await waitFor(() => expect(patches(calls)).toEqual([{ learning: null }]));
  });

  it("keeps a rule being edited when the learning settings are saved", async () => {
    const { calls } = setup();
    const form = await screen.findByRole("form", { name: "How this monitor learns" });
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Add rule" }));
    const path = screen.getByRole("textbox", { name: "JSONPath" });
    await user.type(path, "served_at");
    await user.type(within(form).getByRole("spinbutton", { name: /Learning samples/ }), "2");
    await user.click(within(form).getByRole("button", { name: "Save learning settings" }));
    await waitFor(() => expect(patches(calls)).toEqual([{ learning: { learningSamples: 2 } }]));
    expect(await within(form).findByRole("status")).toHaveTextContent("Saved.");
    expect(screen.getByRole("textbox", { name: "JSONPath" })).toHaveValue("$.served_at");
  });

  it("shows the server's 422 at the field it names", async () => {
    setup({
      patch: () => ({
        status: 422,
        body: {
          type: "https://driftwatch.dev/problems/validation_failed",
          title: "Validation failed",
          status: 422,
          code: "validation_failed",
          detail: "The request body is invalid: learning.learningSamples: Too big: expected number to be <=10",
          requestId: "req_422",
          errors: [{ path: "learning.learningSamples", message: "Too big: expected number to be <=10" }],
        },
      }),
    });
    const form = await screen.findByRole("form", { name: "How this monitor learns" });
    const user = userEvent.setup();
    const samples = within(form).getByRole("spinbutton", { name: /Learning samples/ });
    await user.type(samples, "9");
    await user.click(within(form).getByRole("button", { name: "Save learning settings" }));
    await waitFor(() => expect(samples).toHaveAccessibleDescription(expect.stringContaining("Too big: expected number to be <=10")));
    expect(samples).toHaveAttribute("aria-invalid", "true");
    expect(within(form).getByRole("spinbutton", { name: /Warm-up fetches/ })).toHaveAttribute("aria-invalid", "false");
  });

  it("a viewer reads the settings but cannot change them", async () => {
    setup({ role: "viewer", learning: { learningSamples: 2 } });
    const form = await screen.findByRole("form", { name: "How this monitor learns" });
    expect(within(form).getByRole("checkbox", { name: /Learn this monitor’s noise/ })).toBeDisabled();
    expect(within(form).getByRole("spinbutton", { name: /Learning samples/ })).toBeDisabled();
    expect(within(form).queryByRole("button")).toBeNull();
  });
});

describe("what new monitors start with, on the organization page", () => {
  function setup(role: "admin" | "member", patch?: (call: Call) => Answer | undefined) {
    const fake = fakeClient((call) => {
      if (call.method === "PATCH" && call.path === "/api/orgs/org_1") {
        return patch?.(call) ?? { body: { id: "org_1", slug: "acme", name: "Acme", learnNoiseByDefault: true, learningDefaults: null, createdAt: "2026-11-01T00:00:00.000Z", ...(call.body as object) } };
      }
      return undefined;
    });
    const me = meAs(role);
    me.org = { ...me.org, learningDefaults: { warmupSamples: 1 } };
    renderPage(<OrgPage />, fake.client, "/org", "*", me);
    return fake;
  }

  it("an admin sets the learning defaults and whether new monitors learn; a value out of range is refused at its field", async () => {
    const { calls } = setup("admin");
    const form = screen.getByRole("form", { name: "New monitors" });
    expect(screen.getByText("New monitors learn", { selector: "dt" }).nextElementSibling).toHaveTextContent("yes");
    expect(screen.getByText("Their first fetches", { selector: "dt" }).nextElementSibling).toHaveTextContent("1 warm-up fetch, 3 learning samples");
    const user = userEvent.setup();
    const warmup = within(form).getByRole("spinbutton", { name: /Warm-up fetches/ });
    expect(warmup).toHaveValue(1);
    const samples = within(form).getByRole("spinbutton", { name: /Learning samples/ });
    await user.type(samples, "11");
    expect(samples).toHaveAccessibleDescription(expect.stringContaining("must be from 2 to 10"));
    expect(within(form).getByRole("button", { name: "Save defaults" })).toBeDisabled();
    await user.clear(samples);
    await user.type(samples, "5");
    await user.clear(warmup);
    await user.click(within(form).getByRole("checkbox", { name: /New monitors learn their noise/ }));
    await user.click(within(form).getByRole("button", { name: "Save defaults" }));
    await waitFor(() => expect(calls.filter((c) => c.method === "PATCH").map((c) => c.body)).toEqual([{ learnNoiseByDefault: false, learningDefaults: { learningSamples: 5 } }]));
  });

  it("shows the server's 422 at the field", async () => {
    setup("admin", () => ({
      status: 422,
      body: {
        type: "about:blank",
        title: "Validation failed",
        status: 422,
        code: "validation_failed",
        detail: "The request body is invalid",
        requestId: "req_422",
        errors: [{ path: "learningDefaults.warmupSamples", message: "Too big: expected number to be <=5" }],
      },
    }));
    const form = screen.getByRole("form", { name: "New monitors" });
    const user = userEvent.setup();
    const warmup = within(form).getByRole("spinbutton", { name: /Warm-up fetches/ });
    await user.clear(warmup);
    await user.type(warmup, "4");
    await user.click(within(form).getByRole("button", { name: "Save defaults" }));
    await waitFor(() => expect(warmup).toHaveAccessibleDescription(expect.stringContaining("Too big: expected number to be <=5")));
  });

  it("is not offered to a member", () => {
    setup("member");
    expect(screen.queryByRole("form", { name: "New monitors" })).toBeNull();
    expect(screen.getByText("New monitors learn", { selector: "dt" }).nextElementSibling).toHaveTextContent("yes");
    expect(screen.getByText("Their first fetches", { selector: "dt" }).nextElementSibling).toHaveTextContent("1 warm-up fetch, 3 learning samples");
  });
});
