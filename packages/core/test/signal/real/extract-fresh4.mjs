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
import { saveFixtures, savePages, sourceList } from "./extract-lib.mjs";

const { save, write } = sourceList({ append: true });

// Whole files of SDK test fixtures: [repository, directory here, licence, [path in the repository, file name here]].
saveFixtures(save, [
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
]);

// Saved pages, trimmed as extract.mjs trims them: trafilatura's (tests/cache, Apache-2.0) and
// newspaper's (tests/data/html, MIT):
// [repository, directory here, licence, [path in the repository, file name here]].
savePages(save, [
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
]);

write();
