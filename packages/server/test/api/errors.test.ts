import { gzipSync } from "node:zlib";
import { encodeCursor } from "@driftwatch/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiMonitor, createHarness, expectProblem, json, websiteMonitor, type Harness } from "./harness.js";

let h: Harness;
let monitorId: string;
beforeAll(async () => {
  h = await createHarness();
  monitorId = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: websiteMonitor })).id;
});
afterAll(async () => {
  await h?.close();
});

/** Everything tenant A has stored, to assert refused requests change nothing. */
async function storedState(): Promise<string> {
  const org = h.a.orgId;
  const monitors = await h.store.listMonitors(org, { limit: 100 });
  const settings = await Promise.all(monitors.data.map((m) => h.store.getSettings(org, m.id)));
  const webhooks = await h.store.listWebhooks(org, { limit: 100 });
  return JSON.stringify({ monitors: monitors.data, settings, webhooks: webhooks.data });
}

async function expectUnchanged(run: () => Promise<void>): Promise<void> {
  const before = await storedState();
  await run();
  expect(await storedState()).toBe(before);
}

describe("request errors (each answers its code and stores nothing)", () => {
  it("malformed JSON is 400 invalid_json", async () => {
    await expectUnchanged(async () => {
      const res = await h.request(h.a.admin, {
        method: "POST",
        url: "/api/monitors",
        headers: { "content-type": "application/json" },
        payload: '{"url": "https://x.example.com",',
      });
      expectProblem(res, 400, "invalid_json");
      const proto = await h.request(h.a.admin, {
        method: "POST",
        url: "/api/monitors",
        headers: { "content-type": "application/json" },
        payload: '{"url":"https://x.example.com","__proto__":{"admin":true}}',
      });
      expectProblem(proto, 400, "invalid_json");
      // an empty body labelled JSON is no body: refused where a body is needed, fine where not
      const empty = await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${monitorId}`, headers: { "content-type": "application/json" }, payload: "" });
      const missing = expectProblem(empty, 422, "validation_failed");
      // says what is wrong (no body), not zod's "expected object, received null"
      expect(missing.detail).toBe("This endpoint needs a JSON request body.");
      expect(missing.errors).toEqual([{ path: "(root)", message: "is required" }]);
      for (const headers of [{ "content-type": "application/json" }, {}]) {
        const none = expectProblem(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", headers, payload: "" }), 422, "validation_failed");
        expect(none.detail).toBe("This endpoint needs a JSON request body.");
      }
      // a JSON null is a body, of the wrong type
      const nullBody = expectProblem(
        await h.request(h.a.admin, { method: "POST", url: "/api/monitors", headers: { "content-type": "application/json" }, payload: "null" }),
        422,
        "validation_failed",
      );
      expect(nullBody.errors[0].message).toMatch(/expected object, received null/);
      const run = await h.request(h.a.admin, { method: "POST", url: "/api/webhooks/worker/run", headers: { "content-type": "application/json" }, payload: "" });
      expect(run.statusCode).toBe(200);
    });
  });

  it("a body that is not JSON is 415 unsupported_media_type", async () => {
    await expectUnchanged(async () => {
      for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/xml"]) {
        const res = await h.request(h.a.admin, { method: "POST", url: "/api/monitors", headers: { "content-type": type }, payload: "url=https://x.example.com" });
        expectProblem(res, 415, "unsupported_media_type");
      }
      // a compressed body is not read as JSON: 415 with Accept-Encoding, not "malformed JSON"
      const gzipped = await h.request(h.a.admin, {
        method: "POST",
        url: "/api/monitors",
        headers: { "content-type": "application/json", "content-encoding": "gzip" },
        payload: gzipSync(JSON.stringify(apiMonitor)),
      });
      const problem = expectProblem(gzipped, 415, "unsupported_media_type");
      expect(problem.detail).toContain("Content-Encoding");
      expect(gzipped.headers["accept-encoding"]).toBe("identity");
      const identity = await h.request(h.a.admin, {
        method: "POST",
        url: "/api/webhooks/worker/run",
        headers: { "content-type": "application/json", "content-encoding": "identity" },
        payload: "{}",
      });
      expect(identity.statusCode).toBe(200);
    });
  });

  it("an oversized body is 413 payload_too_large", async () => {
    await expectUnchanged(async () => {
      const res = await h.request(h.a.admin, {
        method: "POST",
        url: "/api/monitors",
        payload: { ...apiMonitor, body: "x".repeat(70 * 1024) },
      });
      expectProblem(res, 413, "payload_too_large");
    });
  });

  it("unknown fields and wrong types are 422 validation_failed with one error per field", async () => {
    await expectUnchanged(async () => {
      const unknown = expectProblem(
        await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, colour: "red", owner: 1 } }),
        422,
        "validation_failed",
      );
      expect(unknown.errors).toEqual(
        expect.arrayContaining([
          { path: "colour", message: expect.any(String) },
          { path: "owner", message: expect.any(String) },
        ]),
      );
      const types = expectProblem(
        await h.request(h.a.admin, {
          method: "POST",
          url: "/api/monitors",
          payload: { url: 42, intervalSeconds: "often", headers: { "bad header": "x" }, type: "ftp" },
        }),
        422,
        "validation_failed",
      );
      expect(types.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(["url", "intervalSeconds", "type"]));
      const badUrl = expectProblem(
        await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${monitorId}`, payload: { url: "ftp://files.example.com/x", state: "failing" } }),
        422,
        "validation_failed",
      );
      expect(badUrl.errors.map((e: { path: string }) => e.path).sort()).toEqual(["state", "url"]);
      expectProblem(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: [apiMonitor] }), 422, "validation_failed");
      expectProblem(await h.request(h.a.admin, { method: "POST", url: "/api/monitors" }), 422, "validation_failed");
    });
  });

  it("a missing required field is named as required", async () => {
    await expectUnchanged(async () => {
      const monitor = expectProblem(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { name: "no url" } }), 422, "validation_failed");
      expect(monitor.errors).toEqual([{ path: "url", message: "is required" }]);
      expect(monitor.detail).toBe("The request body is invalid: url is required.");
      const token = expectProblem(await h.request(h.a.admin, { method: "POST", url: "/api/tokens", payload: {} }), 422, "validation_failed");
      expect(token.errors).toEqual([
        { path: "name", message: "is required" },
        { path: "scopes", message: "is required" },
      ]);
      // a value that is there but of the wrong type still says so
      const wrong = expectProblem(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { url: 42 } }), 422, "validation_failed");
      expect(wrong.errors).toEqual([{ path: "url", message: "Invalid input: expected string, received number" }]);
      const rules = expectProblem(
        await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${monitorId}/settings`, payload: { policyRules: { rules: [{ action: "ignore", path: "$.a" }, {}] } } }),
        422,
        "invalid_policy_rules",
      );
      expect(rules.errors.map((e: { path: string }) => e.path)).toContain("policyRules.rules[1]");
    });
  });

  it("malformed and unknown ids are 404 not_found", async () => {
    for (const url of [
      "/api/monitors/not-an-id",
      "/api/monitors/mon_..%2F..%2Fetc",
      "/api/monitors/dif_01HZX3K4ABCDEFGHJKMNPQRSTV",
      "/api/monitors/mon_01HZX3K4ABCDEFGHJKMNPQRSTV",
      `/api/monitors/${monitorId}/diffs/snp_01HZX3K4ABCDEFGHJKMNPQRSTV`,
      `/api/monitors/${monitorId}/snapshots/nope`,
      "/api/webhooks/mon_01HZX3K4ABCDEFGHJKMNPQRSTV",
      "/api/tokens/whk_01HZX3K4ABCDEFGHJKMNPQRSTV",
    ]) {
      expectProblem(await h.request(h.a.admin, { method: "GET", url }), 404, "not_found");
    }
    await expectUnchanged(async () => {
      expectProblem(await h.request(h.a.admin, { method: "PATCH", url: "/api/monitors/xyz", payload: { name: "n" } }), 404, "not_found");
      expectProblem(await h.request(h.a.admin, { method: "DELETE", url: "/api/monitors/mon_x" }), 404, "not_found");
    });
  });

  it("bad cursors and bad paging parameters are 400 invalid_request", async () => {
    const wellFormedButForeign = encodeCursor("../etc/passwd");
    for (const query of ["cursor=garbage!!", `cursor=${wellFormedButForeign}`, "limit=0", "limit=101", "limit=ten", "page=2"]) {
      const res = await h.request(h.a.admin, { method: "GET", url: `/api/monitors?${query}` });
      expectProblem(res, 400, "invalid_request");
    }
    const severity = expectProblem(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitorId}/diffs?minSeverity=huge` }), 400, "invalid_request");
    expect(severity.detail).toMatch(/^The query string is invalid: minSeverity /);
    expectProblem(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitorId}/diffs?since=yesterday` }), 400, "invalid_request");
    expectProblem(
      await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitorId}/diffs?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z` }),
      400,
      "invalid_request",
    );
    expectProblem(await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitorId}/snapshots?cursor=%00` }), 400, "invalid_request");
  });

  it("bad browserOptions are 422 invalid_browser_options with one error per offending field", async () => {
    await expectUnchanged(async () => {
      const res = expectProblem(
        await h.request(h.a.admin, {
          method: "POST",
          url: "/api/monitors",
          payload: { ...websiteMonitor, browserOptions: { waitStrategy: "never", timeoutMs: 5, colour: "red", viewport: { width: 10, height: 800 } } },
        }),
        422,
        "invalid_browser_options",
      );
      expect(res.errors.map((e: { path: string }) => e.path).sort()).toEqual([
        "browserOptions.colour",
        "browserOptions.timeoutMs",
        "browserOptions.viewport.width",
        "browserOptions.waitStrategy",
      ]);
      const patch = expectProblem(
        await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${monitorId}`, payload: { browserOptions: { blockResources: ["scripts"], extraWaitMs: -1 } } }),
        422,
        "invalid_browser_options",
      );
      expect(patch.errors.map((e: { path: string }) => e.path).sort()).toEqual(["browserOptions.blockResources[0]", "browserOptions.extraWaitMs"]);
      expectProblem(
        await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${monitorId}`, payload: { browserOptions: "networkidle" } }),
        422,
        "invalid_browser_options",
      );
      // a value of the wrong type is one entry (its type), not also a length check of the wrong type
      const wrongTypes = expectProblem(
        await h.request(h.a.admin, {
          method: "PATCH",
          url: `/api/monitors/${monitorId}`,
          payload: { browserOptions: { waitForSelector: [], userAgent: [], viewport: { width: [], height: 800 } } },
        }),
        422,
        "invalid_browser_options",
      );
      expect(wrongTypes.errors).toEqual([
        { path: "browserOptions.waitForSelector", message: "Invalid input: expected string, received array" },
        { path: "browserOptions.viewport.width", message: "Invalid input: expected number, received array" },
        { path: "browserOptions.userAgent", message: "Invalid input: expected string, received array" },
      ]);
      const body = expectProblem(
        await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, name: [], selector: [] } }),
        422,
        "validation_failed",
      );
      expect(body.errors.map((e: { path: string }) => e.path)).toEqual(["name", "selector"]);
    });
  });

  it("browserOptions a browser cannot use are 422 invalid_browser_options, not accepted and failing every render", async () => {
    await expectUnchanged(async () => {
      for (const [browserOptions, path] of [
        [{ userAgent: "Bot €" }, "browserOptions.userAgent"],
        [{ userAgent: "Bot\r\nX-Injected: 1" }, "browserOptions.userAgent"],
        [{ locale: "not a locale!!" }, "browserOptions.locale"],
        [{ locale: "en_US" }, "browserOptions.locale"],
      ] as const) {
        const created = expectProblem(
          await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...websiteMonitor, browserOptions } }),
          422,
          "invalid_browser_options",
        );
        expect(created.errors.map((e: { path: string }) => e.path)).toEqual([path]);
        expectProblem(await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${monitorId}`, payload: { browserOptions } }), 422, "invalid_browser_options");
      }
    });
    const ok = await h.request(h.a.admin, {
      method: "POST",
      url: "/api/monitors",
      payload: { ...websiteMonitor, browserOptions: { userAgent: "Mozilla/5.0 (X11; Linux x86_64) Zoë/1.0", locale: "de-DE" } },
    });
    expect(ok.statusCode).toBe(201);
    expect(json(ok).browserOptionsJson).toMatchObject({ userAgent: "Mozilla/5.0 (X11; Linux x86_64) Zoë/1.0", locale: "de-DE" });
    for (const locale of ["en", "zh-Hant-TW", "pt-BR"]) {
      expect((await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${monitorId}`, payload: { browserOptions: { locale } } })).statusCode, locale).toBe(200);
    }
  });

  it("a website monitor's selector must be valid CSS (422 validation_failed), as must a rule's selector (422 invalid_policy_rules)", async () => {
    await expectUnchanged(async () => {
      for (const selector of ["###", "div[", "p:bogus-pseudo"]) {
        const created = expectProblem(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...websiteMonitor, selector } }), 422, "validation_failed");
        expect(created.errors).toEqual([{ path: "selector", message: `not a valid CSS selector: ${JSON.stringify(selector)}` }]);
        expectProblem(await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${monitorId}`, payload: { selector } }), 422, "validation_failed");
        const rules = expectProblem(
          await h.request(h.a.admin, {
            method: "PATCH",
            url: `/api/monitors/${monitorId}/settings`,
            payload: { policyRules: { rules: [{ selector: ".ad", action: "ignore" }, { selector, action: "ignore" }] } },
          }),
          422,
          "invalid_policy_rules",
        );
        expect(rules.errors.map((e: { path: string }) => e.path)).toEqual(["policyRules.rules[1].selector"]);
      }
    });
    const ok = await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${monitorId}`, payload: { selector: "main > .price:nth-of-type(2), #a[data-x='1']" } });
    expect(ok.statusCode).toBe(200);
    expect((await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${monitorId}`, payload: { selector: null } })).statusCode).toBe(200);
  });

  it("a policy's volatile and visual mask selectors must be valid CSS (422 invalid_policy_rules naming the entry)", async () => {
    await expectUnchanged(async () => {
      for (const [policyRules, path] of [
        [{ volatile: [{ selector: "time" }, { selector: "[[[" }] }, "policyRules.volatile[1].selector"],
        [{ visual: { minChangedPercent: 1, mask: [".ad", "[[["] } }, "policyRules.visual.mask[1]"],
      ] as const) {
        const problem = expectProblem(
          await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${monitorId}/settings`, payload: { policyRules } }),
          422,
          "invalid_policy_rules",
        );
        expect(problem.errors.map((e: { path: string }) => e.path)).toEqual([path]);
      }
    });
    const ok = await h.request(h.a.admin, {
      method: "PATCH",
      url: `/api/monitors/${monitorId}/settings`,
      payload: { policyRules: { volatile: [{ selector: "time" }], visual: { mask: [".ad-slot", "#clock", "div.carousel > li:nth-of-type(2)"] } } },
    });
    expect(ok.statusCode).toBe(200);
  });

  it("browserOptions on an api monitor is 422 invalid_browser_options", async () => {
    const api = json(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: apiMonitor }));
    await expectUnchanged(async () => {
      const created = expectProblem(
        await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, browserOptions: { waitStrategy: "load" } } }),
        422,
        "invalid_browser_options",
      );
      expect(created.errors).toEqual([{ path: "browserOptions", message: expect.any(String) }]);
      expectProblem(
        await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${api.id}`, payload: { browserOptions: {} } }),
        422,
        "invalid_browser_options",
      );
    });
  });

  it("bad policy rules are 422 invalid_policy_rules naming the rule index", async () => {
    await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${monitorId}/settings`, payload: { policyRules: { rules: [{ path: "$.a", action: "ignore" }] } } });
    await expectUnchanged(async () => {
      const shape = expectProblem(
        await h.request(h.a.admin, {
          method: "PATCH",
          url: `/api/monitors/${monitorId}/settings`,
          payload: { policyRules: { rules: [{ path: "$.a", action: "ignore" }, { path: "$.b", action: "explode" }] } },
        }),
        422,
        "invalid_policy_rules",
      );
      expect(shape.errors.map((e: { path: string }) => e.path)).toEqual(["policyRules.rules[1].action"]);
      const meaning = expectProblem(
        await h.request(h.a.admin, {
          method: "PATCH",
          url: `/api/monitors/${monitorId}/settings`,
          payload: { policyRules: { rules: [{ path: "$.ok", severity: "high" }, { path: "$.a", action: "set" }, { path: "$[?(", action: "ignore" }] } },
        }),
        422,
        "invalid_policy_rules",
      );
      const paths = meaning.errors.map((e: { path: string }) => e.path);
      expect(paths).toEqual(expect.arrayContaining(["policyRules.rules[1].severity", "policyRules.rules[2].path"]));
      expect(paths.some((p: string) => p.startsWith("policyRules.rules[0]"))).toBe(false);
    });
  });

  it("unsafe URLs are 422 unsafe_url (monitors and webhooks, create and update)", async () => {
    const hook = json(await h.request(h.a.admin, { method: "POST", url: "/api/webhooks", payload: { url: "https://hooks.example.com/in" } }));
    await expectUnchanged(async () => {
      for (const url of ["http://127.0.0.1:8080/admin", "http://169.254.169.254/latest/meta-data/", "http://10.0.0.5/"]) {
        const created = expectProblem(await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, url } }), 422, "unsafe_url");
        expect(created.errors).toEqual([{ path: "url", message: expect.any(String) }]);
        expectProblem(await h.request(h.a.admin, { method: "PATCH", url: `/api/monitors/${monitorId}`, payload: { url } }), 422, "unsafe_url");
        expectProblem(await h.request(h.a.admin, { method: "POST", url: "/api/webhooks", payload: { url } }), 422, "unsafe_url");
        expectProblem(await h.request(h.a.admin, { method: "PATCH", url: `/api/webhooks/${hook.id}`, payload: { url } }), 422, "unsafe_url");
      }
    });
  });

  it("a malformed URL is 400 invalid_request with a request id", async () => {
    const res = await h.request(h.a.admin, { method: "GET", url: "/api/monitors/%E0%A4%A" });
    expectProblem(res, 400, "invalid_request");
  });

  it("a URL with surrounding whitespace or control characters is 422 validation_failed, not stored as sent", async () => {
    await expectUnchanged(async () => {
      for (const url of [" https://x.example.com/", "https://x.example.com/ ", "https://x.exa\nmple.com/", "https://x.example.com/\t", "https://x.example.com/\u0000"]) {
        for (const [method, path] of [
          ["POST", "/api/monitors"],
          ["POST", "/api/webhooks"],
          ["PATCH", `/api/monitors/${monitorId}`],
        ] as const) {
          const res = expectProblem(await h.request(h.a.admin, { method, url: path, payload: { url } }), 422, "validation_failed");
          expect(res.errors).toEqual([{ path: "url", message: "must not contain control characters or surrounding whitespace" }]);
        }
      }
    });
    // percent-encoded is fine
    const encoded = await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { url: "https://x.example.com/a%20b" } });
    expect(encoded.statusCode).toBe(201);
    expect(json(encoded).url).toBe("https://x.example.com/a%20b");
  });

  it("a host that does not resolve now is accepted (the fetch-time guard checks again); an unusable one is 422", async () => {
    const created = await h.request(h.a.admin, { method: "POST", url: "/api/monitors", payload: { ...apiMonitor, url: "https://not-yet.invalid/x" } });
    expect(created.statusCode).toBe(201);
    await expectUnchanged(async () => {
      const bad = expectProblem(await h.request(h.a.admin, { method: "POST", url: "/api/webhooks", payload: { url: "https://weird.example.com/" } }), 422, "validation_failed");
      expect(bad.errors).toEqual([{ path: "url", message: expect.any(String) }]);
    });
  });

  it("an unknown route is 404 not_found with a request id", async () => {
    const res = await h.request(null, { method: "GET", url: "/api/nothing-here" });
    expectProblem(res, 404, "not_found");
    expect(res.headers["driftwatch-version"]).toBeDefined();
    expectProblem(await h.request(h.a.admin, { method: "PUT", url: `/api/monitors/${monitorId}`, payload: {} }), 404, "not_found");
  });

  it("an unexpected failure is 500 internal_error without internals", async () => {
    h.checks.next.push(new TypeError("Cannot read properties of undefined (reading 'secretThing') at /srv/app.js:12"));
    const res = await h.request(h.a.admin, { method: "POST", url: `/api/monitors/${monitorId}/check` });
    const problem = expectProblem(res, 500, "internal_error");
    expect(res.body).not.toContain("secretThing");
    expect(res.body).not.toContain("/srv/app.js");
    expect(problem).not.toHaveProperty("stack");
    // the log has it, with the request id
    const logged = h.logLines.find((l) => l.requestId === problem.requestId && l.level === 50);
    expect(JSON.stringify(logged)).toContain("secretThing");
  });

  it("every log line of a request carries its request id", async () => {
    const res = await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitorId}` });
    const id = res.headers["x-request-id"];
    const lines = h.logLines.filter((l) => l.requestId === id);
    expect(lines.length).toBeGreaterThanOrEqual(1); // request completed ("incoming request" is at debug)
    const withReq = h.logLines.filter((l) => l.req !== undefined || l.res !== undefined);
    expect(withReq.every((l) => typeof l.requestId === "string" && String(l.requestId).startsWith("req_"))).toBe(true);
  });
});

describe("access log", () => {
  it("logs one line per request at info, with the request, the status and the response time", async () => {
    const res = await h.request(h.a.admin, { method: "GET", url: `/api/monitors/${monitorId}?x=1` });
    const lines = h.logLines.filter((l) => l.requestId === res.headers["x-request-id"]);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        msg: "request completed",
        req: expect.objectContaining({ method: "GET", url: `/api/monitors/${monitorId}?x=1` }),
        res: { statusCode: 200 },
        responseTime: expect.any(Number),
      }),
    ]);
  });

  it("logs a refused request once as completed, with its status", async () => {
    const res = await h.request(null, { method: "GET", url: "/api/monitors" });
    const lines = h.logLines.filter((l) => l.requestId === res.headers["x-request-id"]);
    expect(lines.filter((l) => l.msg === "request completed")).toEqual([
      expect.objectContaining({ req: expect.objectContaining({ method: "GET", url: "/api/monitors" }), res: { statusCode: 401 } }),
    ]);
  });
});

describe("versioning", () => {
  it("answers with driftwatch-version and accepts a pinned supported version", async () => {
    const plain = await h.request(h.a.admin, { method: "GET", url: "/api/monitors" });
    const version = plain.headers["driftwatch-version"];
    expect(version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const pinned = await h.request(h.a.admin, { method: "GET", url: "/api/monitors", headers: { "driftwatch-version": String(version) } });
    expect(pinned.statusCode).toBe(200);
    expect(pinned.headers["driftwatch-version"]).toBe(version);
  });
  it("refuses an unknown version with 400 invalid_request", async () => {
    const res = await h.request(h.a.admin, { method: "GET", url: "/api/monitors", headers: { "driftwatch-version": "1999-01-01" } });
    const problem = expectProblem(res, 400, "invalid_request");
    expect(problem.errors[0].path).toBe("driftwatch-version");
  });
});

describe("unavailable store", () => {
  it("/readyz and API routes answer 503 unavailable when the store is closed; /healthz stays up", async () => {
    const dead = await createHarness();
    try {
      expect((await dead.request(null, { method: "GET", url: "/readyz" })).statusCode).toBe(200);
      await dead.store.close();
      expectProblem(await dead.request(null, { method: "GET", url: "/readyz" }), 503, "unavailable");
      expectProblem(await dead.request(dead.a.admin, { method: "GET", url: "/api/monitors" }), 503, "unavailable");
      const live = await dead.request(null, { method: "GET", url: "/healthz" });
      expect(live.statusCode).toBe(200);
      expect(json(live)).toEqual({ status: "ok" });
    } finally {
      await dead.close().catch(() => undefined);
    }
  });
});
