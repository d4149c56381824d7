// The tenth round's payloads ("fresh4": kinds of target other than readings, to test that the
// learner generalises): saved pages of kinds the corpus had few of (a news front page, home pages
// of an organisation and a city, a blog's front page, an about page, shops' product pages, a
// question-and-answer page, an encyclopedia article, a firm's service pages, product-test listings)
// and JSON payloads of a payment API (Mollie) and a feature-flag service (Flagsmith). Taken like
// extract-fresh.mjs takes the seventh round's (run once by hand, not by the tests):
// `node extract-fresh4.mjs <mirror root>` where the mirror root holds bare clones named
// owner+name/repo. It writes the payloads and APPENDS their entries to sources.json (a file already
// listed is left as it is). Payloads are trimmed as extract.mjs trims them: arrays to 30 elements,
// pages as trimPage says (< 8 KB); a page whose trimmed text has no paragraph is skipped.
//
// No payload here is a measurement target (extract-fresh2.mjs's rule): payments, orders, refunds,
// settlements, balances, subscriptions, terminals, payment methods and feature flags are records
// and settings, not live readings.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const mirrors = process.argv[2] ?? "/work/.mirror";
const sources = JSON.parse(readFileSync(join(here, "sources.json"), "utf8"));
const listed = new Set(sources.map((s) => s.file));

function git(repo, ...args) {
  return execFileSync("git", ["--git-dir", join(mirrors, repo.replace("/", "+"), "repo"), ...args], { encoding: "utf8", maxBuffer: 64 << 20 });
}
const commitOf = (repo) => git(repo, "rev-parse", "HEAD").trim();
const show = (repo, path) => git(repo, "show", `HEAD:${path}`);

function trim(value) {
  if (Array.isArray(value)) return value.slice(0, 30).map(trim);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, trim(v)]));
  return value;
}

function save(dir, file, text, meta) {
  if (listed.has(`${dir}/${file}`)) return;
  mkdirSync(join(here, dir), { recursive: true });
  writeFileSync(join(here, dir, file), text);
  sources.push({ file: `${dir}/${file}`, ...meta });
  listed.add(`${dir}/${file}`);
}

const json = (value) => `${JSON.stringify(trim(value), null, 2)}\n`;
const meta = (repo, commit, path, license, extra = {}) => ({ repository: repo, path, ...extra, commit, license, url: `https://github.com/${repo}/blob/${commit}/${path}` });

// Whole files of SDK test fixtures: [repository, directory here, licence, [path in the repository, file name here]].
for (const [repo, dir, license, files] of [
  // Mollie's payments API (the Python client's recorded responses, BSD-2-Clause): a payment, orders,
  // payment methods, a refund, invoices, payment links, a balance, a settlement, subscriptions, terminals
  [
    "mollie/mollie-api-python",
    "mollie",
    "BSD-2-Clause",
    ["payment_single", "orders_list", "methods_list", "refund_single", "invoices_list", "payment_links_list", "balance_single", "settlement_single", "subscriptions_list", "terminals_list"].map((f) => [`tests/responses/${f}.json`, `${f}.json`]),
  ],
  // Flagsmith (the Python client's test data, BSD-3-Clause): an environment document (the
  // server-side SDK's /environment-document/), an environment's flags (/flags/), an identity's
  // traits and flags (/identities/)
  ["Flagsmith/flagsmith-python-client", "flagsmith", "BSD-3-Clause", ["environment", "flags", "identities"].map((f) => [`tests/data/${f}.json`, `${f}.json`])],
]) {
  const commit = commitOf(repo);
  for (const [path, file] of files) save(dir, file, json(JSON.parse(show(repo, path))), meta(repo, commit, path, license));
}

// Saved pages, trimmed as extract.mjs trims them.
function trimPage(raw) {
  let html = raw
    .replace(/<script\b[\s\S]*?<\/script>/gi, "")
    .replace(/<style\b[\s\S]*?<\/style>/gi, "")
    .replace(/<svg\b[\s\S]*?<\/svg>/gi, "")
    .replace(/<noscript\b[\s\S]*?<\/noscript>/gi, "")
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<(nav|form|select|iframe)\b[\s\S]*?<\/\1>/gi, "")
    .replace(/\s(?:style|srcset|sizes|data-[\w-]+|on\w+|aria-[\w-]+|role|target|rel|width|height|loading|decoding)="[^"]*"/gi, "")
    .replace(/\s*\n\s*/g, "\n");
  html = html.replace(/<head\b[\s\S]*?<\/head>/i, (head) => `<head>${/<title>[\s\S]*?<\/title>/i.exec(head)?.[0] ?? ""}</head>`);
  if (html.length > 8_000) {
    const body = /<body\b[^>]*>/i.exec(html);
    const main = /<(article|main)\b/i.exec(html);
    if (body && main && main.index > body.index) html = html.slice(0, body.index + body[0].length) + html.slice(main.index);
  }
  if (html.length > 8_000) html = `${html.slice(0, html.lastIndexOf("<", 8_000))}</body></html>\n`;
  return html;
}
const PAGE_LICENSE = (license) => `${license} (the repository; each page's content belongs to its publisher)`;
// trafilatura's saved pages (tests/cache, Apache-2.0) and newspaper's (tests/data/html, MIT):
// [repository, directory here, licence, [path in the repository, file name here]].
for (const [repo, dir, license, files] of [
  [
    "adbar/trafilatura",
    "trafilatura",
    "Apache-2.0",
    [
      ["creativecommons.org.html", "creativecommons-home.html"],
      ["stuttgart.de.html", "stuttgart-city-home.html"],
      ["blog.python.org.html", "python-blog-front.html"],
      ["fairkom.eu.about.html", "fairkom-about.html"],
      ["ebrosia.de.zinfandel.html", "ebrosia-wine-product.html"],
      ["toralin.de.schmierfett.html", "toralin-grease-product.html"],
      ["stackoverflow.com.rust.html", "stackoverflow-question.html"],
      ["en.wikipedia.org.tsne.html", "wikipedia-tsne.html"],
      ["viehbacher.com.steuerrecht.html", "viehbacher-tax-law-service.html"],
      ["rs-ingenieure.de.tragwerksplanung.html", "rs-ingenieure-service.html"],
      ["chip.de.tests.html", "chip-product-tests.html"],
      ["adac.de.kindersitze.html", "adac-child-seat-tests.html"],
      ["pluralsight.com.python.html", "pluralsight-python-guide.html"],
      ["wikimediafoundation.org.turkey.html", "wikimedia-press-release.html"],
    ].map(([f, file]) => [`tests/cache/${f}`, file]),
  ],
  ["codelucas/newspaper", "newspaper", "MIT", [["tests/data/html/cnn_main_site.html", "cnn-front-page.html"]]],
]) {
  const commit = commitOf(repo);
  for (const [path, file] of files) {
    const html = trimPage(show(repo, path));
    if (/<p[\s>]/i.test(html)) save(dir, file, html, meta(repo, commit, path, PAGE_LICENSE(license)));
    else console.log(`skipped (no paragraph once trimmed): ${repo} ${path}`);
  }
}

writeFileSync(join(here, "sources.json"), `${JSON.stringify(sources, null, 1)}\n`);
console.log(`${sources.length} payloads`);
