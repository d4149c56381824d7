// The twelfth round's payloads ("fresh6": kinds of target a monitoring user watches that the
// corpus lacked): an error tracker's API (Sentry: issues, releases, projects, cron monitors), a DNS
// filtering service's analytics and settings (NextDNS), a social server's API (Mastodon: the
// instance, its weekly activity, an account, a home timeline, storage dimensions), a media
// server's companions (Radarr's system status and root folders, Tautulli's live activity), an
// uptime monitor's API (UptimeRobot v2: monitors with their logs), a flight tracker (OpenSky
// Network: aircraft states), a video platform's API (YouTube Data API: videos with their
// statistics, a channel) and saved pages of kinds the corpus had few of (a security advisory, a
// help centre's index, terms of use and of service, a corporate licensing page, recipe pages with
// ratings, prices and nutrition). Taken like extract-fresh5.mjs takes the eleventh round's (run
// once by hand, not by the tests): `node extract-fresh6.mjs <mirror root>` where the mirror root
// holds bare clones named owner+name/repo. It writes the payloads and APPENDS their entries to
// sources.json (a file already listed is left as it is). Payloads are trimmed as extract.mjs trims
// them: arrays to 30 elements, pages as trimPage says (< 8 KB); a page whose trimmed text has no
// paragraph is skipped.
//
// Measurement targets by extract-fresh2.mjs's rule, decided from what the endpoint is and before
// any measurement: aircraft states (positions, altitudes, speeds reported live) and a media
// server's live activity (bandwidth, streams) are; analytics counters (NextDNS, Mastodon's weekly
// activity, YouTube's statistics), issues, releases, monitors' settings and logs, accounts,
// timelines, system status and pages are not.
//
// Provenance: sentry-cli's fixtures are taken at the last commit before its licence became the
// Functional Source License (6fb317fa, BSD-3-Clause then); pyuptimerobot's getMonitors.json at
// the commit that added it (4b8f781, a recorded v2 response; the file now holds placeholders).
// Mastodon.py's fixtures are vcrpy cassettes (YAML) recorded against a local Mastodon server: the
// payload is one interaction's response body (its pointer and request are listed). The `yaml`
// package parses them (hoisted in the workspace: a dependency of @driftwatch/openapi).
// Sentry's and the *arr / Tautulli / UptimeRobot fixtures are SDK test data in the services' shapes
// (some values invented by their authors); the others are recorded responses.
import YAML from "yaml";
import { saveFixtures, savePages, sourceList } from "./extract-lib.mjs";

const { save, write } = sourceList({ append: true });
const M = true; // a measurement target (the rule above)
const N = false;

/** One interaction's response body of a vcrpy cassette, with its pointer and request. */
const cassette = (index) => (text) => {
  const interaction = YAML.parse(text).interactions[index];
  const uri = new URL(interaction.request.uri);
  return {
    value: JSON.parse(interaction.response.body.string),
    extra: { pointer: `/interactions/${index}/response/body/string`, request: `${interaction.request.method} ${uri.pathname}${uri.search}` },
  };
};

saveFixtures(save, [
  // Sentry's API (sentry-cli's integration-test responses, BSD-3-Clause at that commit)
  [
    "getsentry/sentry-cli",
    "sentry",
    "BSD-3-Clause",
    [
      ["issues/get-issues.json", "issues.json"],
      ["releases/get-releases.json", "releases.json"],
      ["projects/get-projects.json", "projects.json"],
      ["monitors/get-monitors.json", "monitors.json"],
    ].map(([f, file]) => [`tests/integration/_responses/${f}`, file, N]),
    "6fb317fa78df52b3a54cda111222a7e8ce4a7a67",
  ],
  // NextDNS's API (the Python client's fixtures, Apache-2.0): a profile's analytics by status and
  // by protocol, a profile's settings
  ["bieniu/nextdns", "nextdns", "Apache-2.0", ["status", "protocols", "profile"].map((f) => [`tests/fixtures/${f}.json`, `${f}.json`, N])],
  // Mastodon's API (Mastodon.py's cassettes, MIT)
  [
    "halcy/Mastodon.py",
    "mastodon",
    "MIT",
    [
      ["test_instance.yaml", "instance.json", 0],
      ["test_instance_activity.yaml", "instance-activity.json", 0],
      ["test_account.yaml", "account.json", 1],
      ["test_home_tl.yaml", "home-timeline.json", 1],
      ["test_admin_stats.yaml", "admin-dimensions.json", 1],
    ].map(([f, file, i]) => [`tests/cassettes/${f}`, file, N, cassette(i)]),
  ],
  // Radarr's API (aiopyarr's fixtures, MIT): the system status, the root folders with free space
  [
    "tkdrob/aiopyarr",
    "radarr",
    "MIT",
    [
      ["common/system-status.json", "system-status.json"],
      ["common/rootfolder.json", "rootfolder.json"],
    ].map(([f, file]) => [`tests/fixtures/${f}`, file, N]),
  ],
  // Tautulli's API (pytautulli's fixtures, MIT): a Plex server's live activity
  ["ludeeus/pytautulli", "tautulli", "MIT", [["tests/fixtures/get_activity.json", "activity.json", M]]],
  // UptimeRobot's v2 API (pyuptimerobot's fixture as first added, MIT): monitors with their logs
  ["ludeeus/pyuptimerobot", "uptimerobot", "MIT", [["tests/fixtures/getMonitors.json", "monitors.json", N]], "4b8f781b6f7df17290f05b2893f2b11675bcd828"],
  // OpenSky Network's API (python-opensky's fixture, MIT): aircraft states
  ["joostlek/python-opensky", "opensky", "MIT", [["tests/fixtures/states.json", "states.json", M]]],
  // YouTube Data API (python-youtube's fixtures, MIT): two video lists with statistics, a channel
  [
    "joostlek/python-youtube",
    "youtube",
    "MIT",
    [
      ["video_response_1.json", "videos.json"],
      ["video_response_2.json", "video.json"],
      ["channel_response_snippet.json", "channel.json"],
    ].map(([f, file]) => [`tests/fixtures/${f}`, file, N]),
  ],
]);

// Saved pages, trimmed as extract.mjs trims them: htmldate's (tests/cache/, Apache-2.0; none of
// them the trafilatura pages the corpus has) and recipe-scrapers' (tests/test_data/, MIT):
// [repository, directory here, licence, [path in the repository, file name here]].
savePages(save, [
  [
    "adbar/htmldate",
    "htmldate",
    "Apache-2.0",
    [
      ["mozilla.org.mfsa2024-17.html", "mozilla-security-advisory.html"],
      ["support.wordpress.com.html", "wordpress-support-index.html"],
      ["intel.com.tos.html", "intel-terms-of-use.html"],
      ["pixabay.com.tos.html", "pixabay-terms-of-service.html"],
      ["rosneft.com.licensing.html", "rosneft-licensing.html"],
    ].map(([f, file]) => [`tests/cache/${f}`, file]),
  ],
  [
    "hhursev/recipe-scrapers",
    "recipes",
    "MIT",
    [
      ["budgetbytes.com/budgetbytes.testhtml", "budgetbytes-recipe.html"],
      ["bbcgoodfood.com/bbcgoodfood_1.testhtml", "bbcgoodfood-recipe.html"],
      ["kingarthurbaking.com/kingarthur.testhtml", "kingarthur-recipe.html"],
      ["ah.nl/albertheijn.testhtml", "albertheijn-recipe.html"],
    ].map(([f, file]) => [`tests/test_data/${f}`, file]),
  ],
]);

write();
