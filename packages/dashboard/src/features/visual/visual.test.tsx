// Screenshots and visual diffs in the diff viewer, the screenshot timeline and a failed step on the
// monitor page, the point-and-click selector and the browser steps editor on the monitor form.
import type { Diff } from "@driftwatch/client";
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fakeClient, meAs, monitor, renderPage, type Call } from "../../test-support";
import { DiffViewer } from "../diffs/DiffPage";
import { MonitorDetailPage } from "../monitors/MonitorDetailPage";
import { MonitorFormPage } from "../monitors/MonitorFormPage";
import { dataUrlOf, monitorStepFailure, stepFailureOf } from "./api";

const PNG = (n: number): Uint8Array => new Uint8Array([0x89, 0x50, 0x4e, 0x47, n]);
afterEach(() => vi.restoreAllMocks());

const WEB = monitor(7, { type: "website", url: "https://shop.example.com/", browserOptionsJson: { waitStrategy: "networkidle", timeoutMs: 30000, screenshot: "viewport" } });

const visualDiff = {
  id: "dif_v",
  monitorId: WEB.id,
  snapshotId: "snp_after",
  previousSnapshotId: "snp_before",
  diffFingerprint: `sha256:${"c".repeat(64)}`,
  topSeverity: "medium",
  classification: "content_change",
  summary: { additions: 0, removals: 0, modifications: 1 },
  changedTargets: [],
  browserRender: true,
  waitStrategy: "networkidle",
  selector: null,
  requestId: "req_v",
  status: 200,
  latencyMs: 800,
  createdAt: "2026-11-25T09:01:00.000Z",
  changes: [{ path: "main > div:nth-of-type(2)", category: "visual", op: "replace", severity: "medium", before: "", after: "" }],
  visual: { changedPercent: 3.5, regions: [{ x: 100, y: 50, width: 200, height: 100 }] },
} as unknown as Diff;

/** The bytes an image shows: its `src` is a data URL (the CSP allows no `blob:` images). */
async function bytesOf(img: HTMLElement): Promise<number[]> {
  const src = img.getAttribute("src")!;
  expect(src.startsWith("data:image/png;base64,")).toBe(true);
  return [...atob(src.slice("data:image/png;base64,".length))].map((c) => c.charCodeAt(0));
}

describe("screenshots as data URLs", () => {
  it("encodes every byte of a large image, with its type", async () => {
    const bytes = new Uint8Array(100_000).map((_, i) => (i * 7) % 256);
    const url = dataUrlOf({ type: "image/webp", data: bytes });
    expect(url.startsWith("data:image/webp;base64,")).toBe(true);
    const back = Uint8Array.from(atob(url.slice("data:image/webp;base64,".length)), (c) => c.charCodeAt(0));
    expect(back).toEqual(bytes);
  });
});

describe("a visual diff", () => {
  it("shows before and after, fetched with the token, side by side with the changed regions outlined, and a slider", async () => {
    const { client, calls } = fakeClient((call) => {
      if (call.path === `/api/monitors/${WEB.id}/snapshots/snp_before/screenshot`) return { body: PNG(1) };
      if (call.path === `/api/monitors/${WEB.id}/snapshots/snp_after/screenshot`) return { body: PNG(2) };
      return undefined;
    });
    const { container } = renderPage(<DiffViewer diff={visualDiff} monitorName="Shop" />, client, "/", "*", meAs("viewer"));
    expect(screen.getByText("3.50 % of the page changed, in 1 region.")).toBeInTheDocument();
    const before = await screen.findByRole("img", { name: "The page before the change" });
    const after = await screen.findByRole("img", { name: "The page after the change" });
    expect(await bytesOf(before)).toEqual([0x89, 0x50, 0x4e, 0x47, 1]);
    expect(await bytesOf(after)).toEqual([0x89, 0x50, 0x4e, 0x47, 2]);
    const shots = calls.filter((c: Call) => c.path.endsWith("/screenshot"));
    expect(shots).toHaveLength(2);
    for (const c of shots) expect(c.headers.authorization).toBe("Bearer dw_test");

    // the regions are placed once the image's size is known, in percent of it
    Object.defineProperty(after, "naturalWidth", { value: 1000 });
    Object.defineProperty(after, "naturalHeight", { value: 500 });
    fireEvent.load(after);
    const region = container.querySelector<HTMLElement>(".region")!;
    expect(region.style.left).toBe("10%");
    expect(region.style.top).toBe("10%");
    expect(region.style.width).toBe("20%");
    expect(region.style.height).toBe("20%");
    const user = userEvent.setup();
    await user.click(screen.getByLabelText("Outline the changed regions"));
    expect(container.querySelector(".region")).toBeNull();
    await user.click(screen.getByLabelText("Outline the changed regions"));

    await user.click(screen.getByRole("button", { name: "Slider" }));
    const slider = screen.getByRole("slider", { name: /Before/ });
    fireEvent.change(slider, { target: { value: "30" } });
    expect(container.querySelector<HTMLElement>(".slider-before")!.style.clipPath).toBe("inset(0 70% 0 0)");
  });

  it("says so when a screenshot was not taken (404)", async () => {
    const { client } = fakeClient((call) => (call.path.endsWith("snp_after/screenshot") ? { body: PNG(2) } : undefined));
    renderPage(<DiffViewer diff={visualDiff} monitorName="Shop" />, client);
    await screen.findByRole("img", { name: "The page after the change" });
    expect(screen.getByText("No screenshot.")).toBeInTheDocument();
    expect(screen.queryByRole("alert")).toBeNull();
  });
});

describe("the monitor page of a website with screenshots", () => {
  const snapshots = ["snp_3", "snp_2", "snp_1"].map((id, i) => ({
    id,
    monitorId: WEB.id,
    fetchedAt: `2026-11-25T09:0${String(3 - i)}:00.000Z`,
    status: 200,
    latencyMs: 5,
    contentType: "text/html",
    contentHash: `sha256:${"d".repeat(64)}`,
    size: 10,
    browserRender: true,
  }));

  it("shows the screenshot timeline, newest first, and which browser step failed", async () => {
    // the structured lastFailure is read (the text says less)
    const failing = {
      ...WEB,
      state: "failing",
      lastError: "browser_step_failed: the render failed",
      lastFailure: { reason: "browser_step_failed", message: "Timeout 10000ms exceeded.", step: { index: 2, action: "click", selector: "#accept-all" } },
    };
    const { client } = fakeClient((call) => {
      if (call.path === `/api/monitors/${WEB.id}`) return { body: failing };
      if (call.path.endsWith("snp_1/screenshot")) return { status: 404, body: { type: "about:blank", title: "Not found", status: 404, code: "not_found" } };
      if (call.path.endsWith("/screenshot")) return { body: PNG(Number(call.path.split("/")[5]!.slice(4))) };
      if (call.path.startsWith(`/api/monitors/${WEB.id}/snapshots`)) return { body: { data: snapshots, nextCursor: null } };
      if (call.path.startsWith(`/api/monitors/${WEB.id}/diffs`)) return { body: { data: [], nextCursor: null } };
      if (call.path.startsWith("/api/channels")) return { body: { data: [], nextCursor: null } };
      return undefined;
    });
    renderPage(<MonitorDetailPage />, client, `/monitors/${WEB.id}`, "/monitors/:monitorId", meAs("viewer"));
    const failure = await screen.findByText(/Step 3 \(click\) failed/);
    expect(failure.closest("[role=alert]")!.textContent).toContain("on #accept-all: Timeout 10000ms exceeded.");
    const strip = await screen.findByRole("list", { name: "Screenshots, newest first" });
    // thumbnails are decorative (alt ""): the button names the check
    await waitFor(() => expect(strip.querySelectorAll("img")).toHaveLength(2));
    const items = within(strip).getAllByRole("listitem");
    expect(within(items[2]!).getByText("no screenshot")).toBeInTheDocument();
    // the newest is shown large; another on click
    const large = screen.getByRole("img", { name: "The page at the selected check" });
    expect(await bytesOf(large)).toEqual([0x89, 0x50, 0x4e, 0x47, 3]);
    await userEvent.setup().click(within(items[1]!).getByRole("button"));
    await waitFor(async () => expect(await bytesOf(screen.getByRole("img", { name: "The page at the selected check" }))).toEqual([0x89, 0x50, 0x4e, 0x47, 2]));
  });

  it("reads the structured lastFailure first, the lastError text of an older server else", () => {
    const structured = { reason: "browser_step_failed", message: "Timeout 10000ms exceeded.", step: { index: 2, action: "click", selector: "#accept-all" } };
    expect(monitorStepFailure({ lastError: "browser_step_failed: Browser step 9 (fill on #x) failed: no", lastFailure: structured })).toEqual(structured);
    expect(monitorStepFailure({ lastError: "timeout: slow", lastFailure: { reason: "timeout", message: "slow", step: null } })).toBeNull();
    expect(monitorStepFailure({ lastError: "Browser step 1 (acceptCookies) failed: no banner", lastFailure: null })?.step.index).toBe(1);
    expect(monitorStepFailure({ lastError: "Browser step 1 (acceptCookies) failed: no banner" })?.step.action).toBe("acceptCookies");
  });

  it("reads a step failure from lastError's forms", () => {
    expect(stepFailureOf({ reason: "browser_step_failed", step: { index: 0, action: "fill", selector: "#user" } })?.step.selector).toBe("#user");
    expect(stepFailureOf(JSON.stringify({ reason: "browser_step_failed", step: { index: 4, action: "goto", selector: null } }))?.step.index).toBe(4);
    expect(stepFailureOf("Browser step 1 (acceptCookies) failed: no banner")).toEqual({ reason: "browser_step_failed", message: "no banner", step: { index: 1, action: "acceptCookies", selector: null } });
    expect(stepFailureOf("browser_step_failed: Browser step 3 (fill on form > input[name='q']) failed: timeout")).toEqual({
      reason: "browser_step_failed",
      message: "timeout",
      step: { index: 3, action: "fill", selector: "form > input[name='q']" },
    });
    expect(stepFailureOf("HTTP 500")).toBeNull();
    expect(stepFailureOf({ reason: "timeout" })).toBeNull();
  });
});

describe("the monitor form of a web page", () => {
  const inspected = {
    screenshot: "data:image/png;base64,iVBORw0KGgo=",
    width: 400,
    height: 800,
    elements: [
      { selector: "main", box: { x: 0, y: 0, width: 400, height: 800 }, text: "Everything" },
      { selector: "#price", box: { x: 20, y: 100, width: 100, height: 40 }, text: "€ 199,00" },
    ],
  };

  async function startWebsiteForm(handler: Parameters<typeof fakeClient>[0]) {
    const faked = fakeClient(handler);
    renderPage(<MonitorFormPage />, faked.client, "/monitors/new", "/monitors/new", meAs("member"));
    const user = userEvent.setup();
    await user.click(screen.getByLabelText("A web page"));
    await user.type(screen.getByLabelText("URL"), "https://shop.example.com/p/1");
    return { ...faked, user };
  }

  it("picks the selector on the rendered page, previews its text and saves it", async () => {
    const { calls, user } = await startWebsiteForm((call) => {
      if (call.path === "/api/monitors/inspect") return { body: inspected };
      if (call.method === "POST" && call.path === "/api/monitors") return { status: 201, body: monitor(9, { type: "website" }) };
      return undefined;
    });
    await user.click(screen.getByRole("button", { name: "Pick on the page" }));
    const page = await screen.findByRole("img", { name: "The rendered page" });
    expect(page.getAttribute("src")).toBe(inspected.screenshot);
    expect(calls.find((c) => c.path === "/api/monitors/inspect")!.body).toEqual({ url: "https://shop.example.com/p/1", browserOptions: { waitStrategy: "networkidle", timeoutMs: 30000 } });
    // the boxes are pointer targets (hidden from assistive technology, which uses the list)
    const price = page.parentElement!.querySelector<HTMLElement>('[data-selector="#price"]')!;
    // boxes in percent of the page, so they follow the image at any width (360 px too)
    expect(price.style.left).toBe("5%");
    expect(price.style.top).toBe("12.5%");
    expect(price.style.width).toBe("25%");
    await user.selectOptions(screen.getByLabelText("Block to watch"), "main");
    expect(screen.getByText("Everything")).toBeInTheDocument();
    await user.click(price);
    expect(screen.getByText("€ 199,00")).toBeInTheDocument();
    expect(screen.getByLabelText<HTMLSelectElement>("Block to watch").value).toBe("#price");
    await user.click(screen.getByRole("button", { name: "Use this selector" }));
    expect(screen.getByLabelText<HTMLInputElement>("Only this part of the page (CSS selector)").value).toBe("#price");
    await user.click(screen.getByRole("button", { name: "Create monitor" }));
    await waitFor(() => expect(calls.some((c) => c.method === "POST" && c.path === "/api/monitors")).toBe(true));
    expect(calls.find((c) => c.method === "POST" && c.path === "/api/monitors")!.body).toMatchObject({ selector: "#price" });
  });

  it("edits steps (a secret from the list, reordered, one removed), dry-runs them and saves them with the screenshot mode", async () => {
    const { calls, user } = await startWebsiteForm((call) => {
      if (call.path === "/api/secrets") return { body: { data: [{ id: "sec_1", name: "shop-password", createdAt: "2026-11-20T00:00:00.000Z" }] } };
      if (call.path === "/api/monitors/steps/run")
        return {
          body: {
            steps: [
              { index: 0, action: "acceptCookies", ok: true, ms: 120 },
              { index: 1, action: "fill", ok: false, ms: 10000, error: "waiting for locator('#pass') timed out" },
            ],
            screenshot: "data:image/png;base64,AAAA",
          },
        };
      if (call.method === "POST" && call.path === "/api/monitors") return { status: 201, body: monitor(9, { type: "website" }) };
      return undefined;
    });
    await user.click(screen.getByLabelText(/Render in a browser/));
    await user.selectOptions(screen.getByLabelText("Screenshot on each check"), "fullPage");
    await user.click(screen.getByRole("button", { name: "Add step" }));
    await user.selectOptions(screen.getByLabelText("Step 1"), "fill");
    await user.type(screen.getByLabelText("Selector"), "#pass");
    await waitFor(() => expect(screen.getByRole("option", { name: "secret shop-password" })).toBeInTheDocument());
    await user.selectOptions(screen.getByLabelText("Value from"), "secret:shop-password");
    expect(screen.queryByLabelText("Value")).toBeNull();
    await user.click(screen.getByRole("button", { name: "Add step" }));
    await user.selectOptions(screen.getByLabelText("Step 2"), "acceptCookies");
    await user.click(screen.getByRole("button", { name: "Add step" }));
    await user.selectOptions(screen.getByLabelText("Step 3"), "waitForTimeout");
    await user.type(screen.getByLabelText("Wait (ms)"), "500");
    await user.click(screen.getByRole("button", { name: "Up step 2" }));
    await user.click(screen.getByRole("button", { name: "Remove step 3" }));

    await user.click(screen.getByRole("button", { name: "Dry run" }));
    const results = await screen.findByRole("list", { name: "Dry run results" });
    const expectedSteps = [{ action: "acceptCookies" }, { action: "fill", selector: "#pass", secret: "shop-password" }];
    expect(calls.find((c) => c.path === "/api/monitors/steps/run")!.body).toEqual({
      url: "https://shop.example.com/p/1",
      browserOptions: { waitStrategy: "networkidle", timeoutMs: 30000, screenshot: "fullPage", steps: expectedSteps },
    });
    const [first, second] = within(results).getAllByRole("listitem");
    expect(first!.textContent).toBe("ok Step 1 acceptCookies in 120 ms");
    expect(second!.textContent).toBe("failed Step 2 fill in 10000 ms: waiting for locator('#pass') timed out");
    expect(screen.getByRole("img", { name: "The page after the steps" })).toHaveAttribute("src", "data:image/png;base64,AAAA");

    await user.click(screen.getByRole("button", { name: "Create monitor" }));
    await waitFor(() => expect(calls.some((c) => c.method === "POST" && c.path === "/api/monitors")).toBe(true));
    expect(calls.find((c) => c.method === "POST" && c.path === "/api/monitors")!.body).toMatchObject({ browserOptions: { screenshot: "fullPage", steps: expectedSteps } });
  });
});
