// What a learning monitor silenced, in the timeline; the diff viewer with and without the learned
// policy; pinning and rejecting learned entries on the rules page.
import type { Diff, NoiseProfile, Settings, Snapshot } from "@driftwatch/client";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { fakeClient, meAs, monitor, renderPage } from "../../test-support";
import { DiffViewer } from "../diffs/DiffPage";
import { MonitorDetailPage } from "../monitors/MonitorDetailPage";
import { RulesPage } from "./RulesPage";

const MON = monitor(1);
const learnedDiff: Diff = {
  id: "dif_1",
  monitorId: MON.id,
  snapshotId: "snp_2",
  previousSnapshotId: "snp_1",
  diffFingerprint: `sha256:${"a".repeat(64)}`,
  topSeverity: "info",
  classification: "value_change",
  schemaChanges: 0,
  valueChanges: 1,
  requestId: "req_1",
  status: 200,
  latencyMs: 5,
  createdAt: "2026-11-25T09:01:00.000Z",
  learning: true,
  changes: [{ path: "$.served_at", category: "value", op: "replace", severity: "info", before: "a", after: "b" }],
};
const silencedSnapshot: Snapshot = {
  id: "snp_3",
  monitorId: MON.id,
  fetchedAt: "2026-11-25T09:02:00.000Z",
  status: 200,
  latencyMs: 4,
  contentType: "application/json",
  contentHash: `sha256:${"b".repeat(64)}`,
  size: 120,
  browserRender: false,
  silenced: {
    previousSnapshotId: "snp_2",
    count: 2,
    learnedCount: 1,
    changes: [
      { path: "$.request_id", outcome: "volatile", rule: "volatile[0]", learned: { kind: "volatile", index: 0, path: "$.request_id" } },
      { path: "$.served_at", outcome: "ignored", rule: "rules[0]" },
    ],
  },
};
const plainSnapshot: Snapshot = { ...silencedSnapshot, id: "snp_2", fetchedAt: "2026-11-25T09:01:00.000Z", silenced: undefined };
const compared = {
  monitorId: MON.id,
  fromSnapshotId: "snp_2",
  toSnapshotId: "snp_3",
  policy: "user",
  includesLearned: false,
  diff: { classification: "value_change", topSeverity: "info", changes: [{ path: "$.request_id", category: "value", op: "replace", severity: "info", before: "r1", after: "r2" }] },
  hidden: { count: 1, learnedCount: 0, changes: [{ path: "$.served_at", outcome: "ignored", rule: "rules[0]" }] },
};

describe("the monitor timeline of a learning monitor", () => {
  it("marks the learning diff and says what each silenced check hid, by which entry; the diff without learned noise on demand", async () => {
    const { client, calls } = fakeClient((call) => {
      if (call.path === `/api/monitors/${MON.id}`) return { body: MON };
      if (call.path.startsWith(`/api/monitors/${MON.id}/diffs`)) return { body: { data: [learnedDiff], nextCursor: null } };
      if (call.path.startsWith(`/api/monitors/${MON.id}/snapshots`)) return { body: { data: [silencedSnapshot, plainSnapshot], nextCursor: null } };
      if (call.path.startsWith(`/api/monitors/${MON.id}/compare`)) return { body: compared };
      return undefined;
    });
    renderPage(<MonitorDetailPage />, client, `/monitors/${MON.id}`, "/monitors/:monitorId", meAs("member"));
    const timeline = await screen.findByRole("list", { name: "Checks and changes, newest first" });
    const [silencedItem, diffItem] = within(timeline).getAllByRole("listitem").filter((li) => li.parentElement === timeline);
    expect(within(diffItem!).getByText("learning")).toBeInTheDocument();
    expect(silencedItem!.textContent).toContain("2 changes hidden (1 by learned noise), no diff recorded");
    const user = userEvent.setup();
    await user.click(within(silencedItem!).getByText("What was silenced"));
    const hidden = within(silencedItem!).getAllByRole("listitem");
    expect(hidden[0]!.textContent).toContain("$.request_id");
    expect(hidden[0]!.textContent).toContain("by learned volatile[0] $.request_id");
    expect(hidden[1]!.textContent).toContain("by your rule rules[0]");
    await user.click(within(silencedItem!).getByRole("button", { name: "Show the diff without learned noise" }));
    const list = await within(silencedItem!).findByRole("list", { name: "Changes without the learned policy" });
    expect(list.textContent).toContain("$.request_id");
    expect(calls.some((c) => c.path === `/api/monitors/${MON.id}/compare?from=snp_2&to=snp_3&policy=user`)).toBe(true);
  });

  it("the diff viewer shows a learning diff as such and the same pair with the user's rules only", async () => {
    const { client, calls } = fakeClient((call) => (call.path.startsWith(`/api/monitors/${MON.id}/compare`) ? { body: { ...compared, fromSnapshotId: "snp_1", toSnapshotId: "snp_2" } } : undefined));
    renderPage(<DiffViewer diff={learnedDiff} monitorName="Prices" />, client);
    expect(screen.getByText(/Recorded while the monitor was still learning/)).toBeInTheDocument();
    expect(calls.some((c) => c.path.includes("/compare"))).toBe(false);
    await userEvent.setup().click(screen.getByRole("checkbox", { name: /without the learned policy/ }));
    const list = await screen.findByRole("list", { name: "Changes without the learned policy" });
    expect(list.textContent).toContain("$.request_id");
    expect(calls.find((c) => c.path.includes("/compare"))?.path).toBe(`/api/monitors/${MON.id}/compare?from=snp_1&to=snp_2&policy=user`);
  });
});

describe("learned entries on the rules page", () => {
  const noise: NoiseProfile = {
    monitorId: MON.id,
    samples: 5,
    minSamples: 3,
    policy: { rules: [], volatile: [{ path: "$.request_id" }, { path: "$.items[*].updated_at" }] },
    evidence: [
      { kind: "volatile", rule: "volatile[0]", path: "$.request_id", changed: 4, pairs: 4, shape: "uuid", reason: "changed in 4 of 4 fetches, always a UUID" },
      { kind: "volatile", rule: "volatile[1]", path: "$.items[*].updated_at", changed: 4, pairs: 4, reason: "changed in 4 of 4 fetches" },
      { kind: "kept", path: "$.status", changed: 1, pairs: 4, reason: "changed once: still reported" },
    ],
    appliedAutomatically: true,
  };

  function setup(initialRejected: Settings["rejectedSuggestions"], policyRulesJson: Settings["policyRulesJson"] = { rules: [] }, learned: NoiseProfile = noise) {
    let settings: Settings = { monitorId: MON.id, policyRulesJson, snapshotRetention: 100, autoApplySuggestions: true, rejectedSuggestions: initialRejected, track: [], alert: null, learning: null, updatedAt: null };
    const fake = fakeClient((call) => {
      if (call.path === `/api/monitors/${MON.id}`) return { body: MON };
      if (call.path === `/api/monitors/${MON.id}/noise`) return { body: learned };
      if (call.path === `/api/monitors/${MON.id}/settings` && call.method === "PATCH") {
        const body = call.body as { rejectedSuggestions?: Settings["rejectedSuggestions"]; policyRules?: Settings["policyRulesJson"] };
        settings = {
          ...settings,
          ...(body.rejectedSuggestions ? { rejectedSuggestions: body.rejectedSuggestions } : {}),
          ...(body.policyRules ? { policyRulesJson: body.policyRules } : {}),
          updatedAt: "2026-11-25T10:00:00.000Z",
        };
        return { body: settings };
      }
      if (call.path === `/api/monitors/${MON.id}/settings`) return { body: settings };
      if (call.path.endsWith("/settings/preview")) return { body: { monitorId: MON.id, includesSuggestions: true, diffs: [], totals: { diffs: 0, hidden: 0, shown: 0, severityChanged: 0, silenced: 0 } } };
      return undefined;
    });
    renderPage(<RulesPage />, fake.client, `/monitors/${MON.id}/rules`, "/monitors/:monitorId/rules", meAs("member"));
    return fake;
  }

  it("shows each learned entry with its evidence; Reject stores it in rejectedSuggestions, Apply again takes it out", async () => {
    const { calls } = setup([]);
    const section = await screen.findByRole("region", { name: "Learned noise" });
    const entry = (await within(section).findByText("$.items[*].updated_at")).closest("li")!;
    expect(entry.textContent).toContain("changed in 4 of 4 fetches (4 of 4 pairs)");
    const user = userEvent.setup();
    await user.click(within(entry).getByRole("button", { name: "Reject volatile $.items[*].updated_at" }));
    await waitFor(() => expect(calls.filter((c) => c.method === "PATCH").at(-1)?.body).toEqual({ rejectedSuggestions: [{ kind: "volatile", path: "$.items[*].updated_at" }] }));
    // saving the settings re-renders the page: look the entry up again
    await waitFor(() => expect(screen.getByText("rejected: not applied").closest("li")!.textContent).toContain("$.items[*].updated_at"));
    await user.click(screen.getByRole("button", { name: "Apply again volatile $.items[*].updated_at" }));
    await waitFor(() => expect(calls.filter((c) => c.method === "PATCH").at(-1)?.body).toEqual({ rejectedSuggestions: [] }));
    // a kept field can be neither pinned nor rejected
    const kept = screen.getByText("$.status").closest("li")!;
    expect(within(kept).queryByRole("button")).toBeNull();
  });

  it("lists rejected entries the learner does not find now, to take them back", async () => {
    const { calls } = setup([{ kind: "volatile", selector: ".promo" }]);
    const list = await screen.findByRole("list", { name: "Rejected entries not learned now" });
    expect(list.textContent).toContain(".promo");
    await userEvent.setup().click(within(list).getByRole("button", { name: "Apply again volatile .promo" }));
    await waitFor(() => expect(calls.filter((c) => c.method === "PATCH").at(-1)?.body).toEqual({ rejectedSuggestions: [] }));
  });

  it("an entry of another noise kind at a rejected path shows as rejected; Apply again takes out the rejection that blocks it", async () => {
    const tolerance: NoiseProfile = {
      ...noise,
      policy: { rules: [], tolerance: [{ path: "$.pos", relative: 0.00001 }], arrayKeys: { "$.items": "id" } },
      evidence: [
        { kind: "tolerance", rule: "tolerance[0]", path: "$.pos", changed: 4, pairs: 4, reason: "a jittering float" },
        { kind: "arrayKey", rule: "arrayKeys['$.items']", path: "$.items", changed: 0, pairs: 4, reason: "id is unique" },
      ],
    };
    // volatile $.pos was rejected; a noise rejection at $.items does not block its array key
    const { calls } = setup([{ kind: "volatile", path: "$.pos" }, { kind: "unordered", path: "$.items" }], { rules: [] }, tolerance);
    const section = await screen.findByRole("region", { name: "Learned noise" });
    const entry = (await within(section).findByText("$.pos")).closest("li")!;
    expect(within(entry).getByText("rejected as volatile at this path: not applied")).toBeInTheDocument();
    const key = within(section).getByRole("button", { name: "Reject arrayKey $.items" }).closest("li")!;
    expect(key.textContent).not.toContain("rejected");
    // the volatile rejection blocks an entry shown above: it is not listed again; the unordered one blocks nothing shown
    const unseen = screen.getByRole("list", { name: "Rejected entries not learned now" });
    expect(unseen.textContent).not.toContain("$.pos");
    expect(unseen.textContent).toContain("$.items");
    await userEvent.setup().click(within(entry).getByRole("button", { name: "Apply again tolerance $.pos" }));
    await waitFor(() => expect(calls.filter((c) => c.method === "PATCH").at(-1)?.body).toEqual({ rejectedSuggestions: [{ kind: "unordered", path: "$.items" }] }));
  });

  it("a pinned entry says so, and Edit takes the user to its copy in the rules; Edit on an entry not pinned yet pins it first", async () => {
    const { calls } = setup([], { rules: [], volatile: [{ path: "$.request_id", parts: true }] });
    const section = await screen.findByRole("region", { name: "Learned noise" });
    const pinned = (await within(section).findByText("$.request_id")).closest("li")!;
    expect(pinned.textContent).toContain("pinned: your copy in the rules applies");
    expect(within(pinned).queryByRole("button", { name: /^Pin/ })).toBeNull();
    const user = userEvent.setup();
    await user.click(within(pinned).getByRole("button", { name: "Edit volatile $.request_id" }));
    expect(document.activeElement).toBe(screen.getByLabelText(/Other settings of the policy/));
    expect(calls.filter((c) => c.method === "PATCH")).toEqual([]);

    const other = within(section).getByText("$.items[*].updated_at").closest("li")!;
    expect(other.textContent).not.toContain("pinned");
    await user.click(within(other).getByRole("button", { name: "Edit volatile $.items[*].updated_at" }));
    await waitFor(() =>
      expect(calls.filter((c) => c.method === "PATCH").at(-1)?.body).toEqual({ policyRules: { rules: [], volatile: [{ path: "$.request_id", parts: true }, { path: "$.items[*].updated_at" }] } }),
    );
    await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText(/Other settings of the policy/)));
    expect((screen.getByLabelText(/Other settings of the policy/) as HTMLTextAreaElement).value).toContain("$.items[*].updated_at");
  });

  it("Pin copies the learned entry into the stored policy", async () => {
    const { calls } = setup([{ kind: "volatile", path: "$.request_id" }]);
    const section = await screen.findByRole("region", { name: "Learned noise" });
    const rejected = (await within(section).findByText("$.request_id")).closest("li")!;
    expect(within(rejected).getByText("rejected: not applied")).toBeInTheDocument();
    await userEvent.setup().click(within(section).getByRole("button", { name: "Pin volatile $.items[*].updated_at" }));
    await waitFor(() => expect(calls.filter((c) => c.method === "PATCH").at(-1)?.body).toEqual({ policyRules: { rules: [], volatile: [{ path: "$.items[*].updated_at" }] } }));
  });
});
