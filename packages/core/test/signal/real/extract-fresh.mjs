// The seventh round's payloads ("fresh": kinds of target the corpus lacked), taken like extract.mjs
// takes the first ones (run once by hand, not by the tests): `node extract-fresh.mjs <mirror root>`
// where the mirror root holds bare clones named owner+name/repo. It writes the payloads and APPENDS
// their entries to sources.json (a file already listed is left as it is). Payloads are trimmed as
// extract.mjs trims them: arrays to 30 elements, pages as trimPage says (< 8 KB).
//
// Three payloads were copied by hand from files read in the stored index (their repositories are
// too large to clone here); they are listed in HAND below with the commit they were read at.
import { commitOf, git, hasParagraph, json, meta, pageLicense, show, sourceList, trimPage } from "./extract-lib.mjs";

const { save, hand, write } = sourceList({ append: true });

// Whole files of SDK test fixtures: [repository, directory here, licence, [path in the repository, file name here]].
for (const [repo, dir, license, files] of [
  // Shopify Admin REST API responses (the Python client's fixtures, MIT)
  ["Shopify/shopify_python_api", "shopify", "MIT", ["products", "orders", "customer", "shipping_zones", "price_rules", "inventory_levels"].map((f) => [`test/fixtures/${f}.json`, `${f}.json`])],
  // GitLab API responses (the Go client's testdata, Apache-2.0)
  ["xanzy/go-gitlab", "gitlab", "Apache-2.0", ["get_merge_requests", "list_branches", "list_project_feature_flags", "list_todos", "get_user_admin", "get_pipeline_testreport"].map((f) => [`testdata/${f}.json`, `${f}.json`])],
  // Kubernetes API objects as kubectl -o json shows them (k9s's render testdata, Apache-2.0)
  ["derailed/k9s", "kubernetes", "Apache-2.0", ["po", "dp", "no", "sts", "svc"].map((f) => [`internal/render/testdata/${f}.json`, `${f}.json`])],
  // Atlassian Statuspage v2 API responses of public status pages (check-statuspage's testdata, MIT)
  [
    "atc0005/check-statuspage",
    "statuspage",
    "MIT",
    [
      ...["github", "dropbox", "digitalocean", "intercom", "reddit"].map((f) => [`testdata/components/${f}-components.json`, `${f}-components.json`]),
      ["testdata/summary/instructure-summary.json", "instructure-summary.json"],
    ],
  ],
]) {
  const commit = commitOf(repo);
  for (const [path, file] of files) save(dir, file, json(JSON.parse(show(repo, path))), meta(repo, commit, path, license));
}

// Unleash's client specification (Apache-2.0): each specification's `state` is a /api/client/features response.
{
  const repo = "Unleash/client-specification";
  const commit = commitOf(repo);
  for (const name of ["08-variants", "09-strategy-constraints", "12-custom-stickiness", "16-strategy-variants"]) {
    const path = `specifications/${name}.json`;
    save("unleash", `${name}.json`, json(JSON.parse(show(repo, path)).state), meta(repo, commit, path, "Apache-2.0", { pointer: "/state" }));
  }
}

// npm registry documents recorded from registry.npmjs.org by npm/types's fixture test (tap snapshot, MIT):
// packuments, an abbreviated ("corgi") packument and a version document.
{
  const repo = "npm/types";
  const commit = commitOf(repo);
  const path = "tap-snapshots/test/fixtures.ts.test.cjs";
  const text = show(repo, path);
  for (const [snapshot, file] of [
    ["not-licensed.ts", "not-licensed-packument.json"],
    ["tiny-tarball.ts", "tiny-tarball-packument.json"],
    ["tiny-tarball.manifest.ts", "tiny-tarball-corgi.json"],
    ["uuid@1.4.1.ts", "uuid-1.4.1.json"],
  ]) {
    const at = text.indexOf(`> ${snapshot} 1\`] = \``);
    // the snapshot is a template literal: its escapes (\\ \` \$) undone
    const body = text.slice(text.indexOf("{", at), text.indexOf("\n}\n", at) + 2).replace(/\\([\\`$])/g, "$1");
    save("npm", file, json(JSON.parse(body)), meta(repo, commit, path, "MIT", { pointer: `exports["test/fixtures.ts > TAP > fixtures > snapshots > ${snapshot} 1"]` }));
  }
}

// Saved pages as extract.mjs trims them (extruct's test samples: product pages of two shops and two
// concert listings; BSD-3-Clause, each page's content belongs to its publisher).
{
  const repo = "scrapinghub/extruct";
  const commit = commitOf(repo);
  for (const [path, file] of [
    ["tests/samples/websites/microdata-with-description.html", "pet-shop-product.html"],
    ["tests/samples/misc/opengraph_ns_product_test.html", "fye-product.html"],
    ["tests/samples/songkick/tovestyrke.html", "songkick-event.html"],
    ["tests/samples/songkick/elysianfields.html", "songkick-artist.html"],
  ]) {
    // as extract.mjs: a page whose trimmed text has no paragraph is skipped (the FYE and Songkick
    // pages keep only their headers and menus in 8 KB)
    const html = trimPage(show(repo, path));
    if (hasParagraph(html)) save("extruct", file, html, meta(repo, commit, path, pageLicense("BSD-3-Clause")));
  }
}
// html-to-markdown's real-world test pages (MIT; each page's content belongs to its publisher): the
// Go home page, a Go blog article on documentation, a rowing club's home page. The files were removed
// from the repository in 4bf2cb2, so they are taken from its parent.
{
  const repo = "JohannesKaufmann/html-to-markdown";
  const commit = git(repo, "rev-parse", "4bf2cb26f77b083be600c36b251a4e5ec1a8c310^").trim();
  for (const [site, file] of [
    ["golang.org", "golang-home.html"],
    ["blog.golang.org", "go-blog-godoc.html"],
    ["bonnerruderverein.de", "rowing-club-home.html"],
  ]) {
    const path = `testdata/TestRealWorld/${site}/input.html`;
    const html = trimPage(git(repo, "show", `${commit}:${path}`));
    if (hasParagraph(html)) save("html-to-markdown", file, html, meta(repo, commit, path, pageLicense("MIT")));
  }
}

// Copied by hand (see above): the `httpResponse` of a recorded fetchTicker in ccxt's static
// response tests (MIT), and Verdaccio's recorded /-/v1/search response (MIT).
const HAND = [
  { file: "ccxt/bitstamp-ticker.json", ...meta("ccxt/ccxt", "04162df38c0403709547b9568c3be180019c78b5", "ts/src/test/static/response/bitstamp.json", "MIT", { pointer: "/methods/fetchTicker/0/httpResponse" }), measurements: true },
  { file: "ccxt/gemini-ticker.json", ...meta("ccxt/ccxt", "058471012169086ef73c651c4f259cfe0cd6dd97", "ts/src/test/static/response/gemini.json", "MIT", { pointer: "/methods/fetchTicker/0/httpResponse" }), measurements: true },
  { file: "npm/verdaccio-search.json", ...meta("verdaccio/verdaccio", "6df04e1ce18c6147f4509fd8ca7e905a720dbb9b", "test/unit/modules/api/partials/search-v1.json", "MIT") },
];
hand(HAND);

write();
