// How the payloads under real/ were taken from public repositories (run once by hand, not by the
// tests): `node extract.mjs <mirror root>` where the mirror root holds bare clones named
// owner+name/repo (git show is used, no work tree is needed). It writes the payloads and
// sources.json. Payloads are trimmed: arrays to 30 elements, pages as trimPage says (< 8 KB); the helpers are extract-lib.mjs's.
import { commitOf, git, hasParagraph, json, meta, pageLicense, show, sourceList, trimPage } from "./extract-lib.mjs";

const { save, write } = sourceList({ append: false });

// Stripe's OpenAPI fixtures: one example object per API resource (MIT).
{
  const repo = "stripe/openapi";
  const commit = commitOf(repo);
  const path = "openapi/fixtures3.json";
  const { resources } = JSON.parse(show(repo, path));
  const names = Object.keys(resources).filter((n) => !n.startsWith("deleted_") && Object.keys(resources[n]).length >= 10);
  for (const name of names.slice(0, 60)) {
    save("stripe", `${name.replaceAll(".", "_")}.json`, json(resources[name]), meta(repo, commit, path, "MIT", { pointer: `/resources/${name}` }));
  }
}

// Octokit's recorded GitHub API fixtures (nock recordings of real api.github.com responses, MIT).
{
  const repo = "octokit/fixtures";
  const commit = commitOf(repo);
  const files = git(repo, "ls-tree", "-r", "--name-only", "HEAD").split("\n").filter((f) => f.endsWith("/raw-fixture.json"));
  const seen = new Set();
  for (const path of files) {
    const scenario = path.split("/")[2];
    JSON.parse(show(repo, path)).forEach((rec, i) => {
      if (![200, 201].includes(rec.status) || rec.response === null || typeof rec.response !== "object") return;
      const text = JSON.stringify(rec.response);
      if (text.length < 400 || seen.has(text)) return;
      seen.add(text);
      save("octokit", `${scenario}-${i}.json`, json(rec.response), meta(repo, commit, path, "MIT", { pointer: `/${i}/response`, request: `${rec.method.toUpperCase()} ${rec.path}` }));
    });
  }
}

// Mozilla Readability's saved pages (real pages of news sites, blogs and docs; Apache-2.0).
{
  const repo = "mozilla/readability";
  const commit = commitOf(repo);
  const pages = git(repo, "ls-tree", "-r", "-l", "HEAD", "test/test-pages")
    .split("\n")
    .map((line) => line.split(/\s+/))
    .filter((p) => p[4]?.endsWith("/source.html") && Number(p[3]) >= 9000)
    .map((p) => p[4])
    .sort();
  let taken = 0;
  // every other page (sorted by path), 18 at most, to keep the corpus small
  for (const path of pages.filter((_, i) => i % 2 === 0)) {
    const html = trimPage(show(repo, path));
    if (!hasParagraph(html) || taken >= 18) continue;
    taken++;
    save("readability", `${path.split("/")[2]}.html`, html, meta(repo, commit, path, pageLicense("Apache-2.0")));
  }
}

// Postlight Parser's saved pages (fixtures/<site>.html, real pages of ~150 sites; MIT OR Apache-2.0).
{
  const repo = "postlight/parser";
  const commit = commitOf(repo);
  const pages = git(repo, "ls-tree", "-r", "--name-only", "HEAD", "fixtures").split("\n").filter((p) => /^fixtures\/[^/]+\.html$/.test(p)).sort();
  let taken = 0;
  for (const path of pages.filter((_, i) => i % 5 === 1)) {
    const html = trimPage(show(repo, path));
    if (!hasParagraph(html) || taken >= 18) continue;
    taken++;
    save("postlight", path.slice("fixtures/".length), html, meta(repo, commit, path, pageLicense("MIT OR Apache-2.0")));
  }
}

// Octokit's webhook payload examples (real GitHub deliveries, MIT): the event's subject object
// (the pull request, the check run, the release...), as GET of that resource returns it.
{
  const repo = "octokit/webhooks";
  const commit = commitOf(repo);
  const files = git(repo, "ls-tree", "-r", "--name-only", "HEAD", "payload-examples/api.github.com").split("\n").filter((p) => p.endsWith(".payload.json")).sort();
  const subjects = new Set();
  const ENVELOPE = new Set(["repository", "sender", "organization", "installation", "enterprise", "changes"]);
  for (const path of files) {
    if (subjects.size >= 40) break;
    const payload = JSON.parse(show(repo, path));
    const [key, value] = Object.entries(payload)
      .filter(([k, v]) => !ENVELOPE.has(k) && v !== null && typeof v === "object" && !Array.isArray(v))
      .sort((a, b) => JSON.stringify(b[1]).length - JSON.stringify(a[1]).length)[0] ?? [];
    if (key === undefined || subjects.has(key) || JSON.stringify(value).length < 600) continue;
    subjects.add(key);
    const event = path.split("/")[2];
    save("octokit-webhooks", `${event}-${key}.json`, json(value), meta(repo, commit, path, "MIT", { pointer: `/${key}` }));
  }
}

// SDK test fixtures of small API clients (frenck's Tailscale and AdGuard Home clients, MIT):
// responses of the Tailscale API and of an AdGuard Home server.
for (const [repo, dir, files] of [
  ["frenck/python-tailscale", "tailscale", ["devices.json", "device.json", "keys.json", "users.json", "user.json", "tailnet_settings.json"]],
  ["frenck/python-adguardhome", "adguardhome", ["clients.json", "stats.json", "update_available.json"]],
]) {
  const commit = commitOf(repo);
  for (const file of files) {
    const path = `tests/fixtures/${file}`;
    save(dir, file, json(JSON.parse(show(repo, path))), meta(repo, commit, path, "MIT"));
  }
}

write();
