// The eighth round's payloads ("fresh2": measurement targets first, the kind that caused most of the
// false alarms left), taken like extract-fresh.mjs takes the seventh round's (run once by hand, not by
// the tests): `node extract-fresh2.mjs <mirror root>` where the mirror root holds bare clones named
// owner+name/repo. It writes the payloads and APPENDS their entries to sources.json (a file already
// listed is left as it is). Payloads are trimmed as extract.mjs trims them: arrays to 30 elements.
//
// `measurements: true` marks a payload by one rule, decided from what the endpoint is, before any
// measurement: the response is a live reading taken at request time by a device (meter, sensor,
// inverter, battery, a device's live status with its signal strength, uptime or power draw), a
// weather or solar model (a forecast), or a market (a ticker, an order book). An endpoint that
// serves an identity, settings, a configuration, a catalogue, a rate-limit error or a tariff
// schedule published in advance (day-ahead energy prices) is not one.
//
// Payloads copied by hand from files read in the stored index (repositories too large to clone
// here) are listed in HAND below with the commit they were read at.
import { commitOf, json, meta, show, sourceList } from "./extract-lib.mjs";

const { save, hand, write } = sourceList({ append: true });
const M = true; // a measurement target (the rule above)
const N = false;

// Whole files of SDK test fixtures: [repository, directory here, licence, [[path in the repository, file name here, measurements]]].
for (const [repo, dir, license, files] of [
  // WLED LED controllers' JSON API (/json: state, info with uptime, Wi-Fi signal, power draw; MIT)
  ["frenck/python-wled", "wled", "MIT", [["tests/fixtures/wled.json", "wled.json", M], ["tests/fixtures/rgbw.json", "rgbw.json", M], ["tests/fixtures/presets.json", "presets.json", N]]],
  // Elgato lights' API (MIT per pyproject.toml): a battery's live reading, a light's identity and settings
  ["frenck/python-elgato", "elgato", "MIT", [["tests/fixtures/battery-info.json", "battery-info.json", M], ["tests/fixtures/info-key-light.json", "info-key-light.json", N], ["tests/fixtures/settings-keylight.json", "settings-keylight.json", N]]],
  // Forecast.Solar API (MIT): a solar production forecast; a rate-limit error response
  ["home-assistant-libs/forecast_solar", "forecast-solar", "MIT", [["tests/fixtures/forecast.json", "forecast.json", M], ["tests/fixtures/ratelimit.json", "ratelimit.json", N]]],
  // EnergyZero (MIT): day-ahead energy prices (a tariff schedule, not a live reading)
  ["klaasnicolaas/python-energyzero", "energyzero", "MIT", [["tests/fixtures/graphql/energy.json", "energy-graphql.json", N], ["tests/fixtures/rest/gas_day_response.json", "gas-day.json", N]]],
  // easyEnergy (MIT): day-ahead energy prices
  ["klaasnicolaas/python-easyenergy", "easyenergy", "MIT", [["tests/fixtures/energy.json", "energy.json", N], ["tests/fixtures/gas.json", "gas.json", N]]],
  // HomeWizard Energy local API (Apache-2.0): meters' and a plug's and a battery's live readings, a device's system status, a device's identity
  [
    "homewizard/python-homewizard-energy",
    "homewizard",
    "Apache-2.0",
    [
      ["tests/v1/fixtures/HWE-P1/data.json", "v1-p1-data.json", M],
      ["tests/v1/fixtures/HWE-SKT/data.json", "v1-socket-data.json", M],
      ["tests/v1/fixtures/HWE-WTR/data.json", "v1-watermeter-data.json", M],
      ["tests/v2/fixtures/HWE-KWH3/measurement.json", "v2-kwh3-measurement.json", M],
      ["tests/v2/fixtures/HWE-BAT/measurement.json", "v2-battery-measurement.json", M],
      ["tests/v2/fixtures/HWE-P1/system.json", "v2-p1-system.json", M],
      ["tests/v1/fixtures/HWE-P1/device.json", "v1-p1-device.json", N],
    ],
  ],
  // Autarco solar inverters' API (MIT): live power, energy statistics, a battery site's KPIs; a site's and an account's description
  [
    "klaasnicolaas/python-autarco",
    "autarco",
    "MIT",
    [
      ["tests/fixtures/power.json", "power.json", M],
      ["tests/fixtures/kpis_power.json", "kpis-power.json", M],
      ["tests/fixtures/battery/kpis_power.json", "battery-kpis-power.json", M],
      ["tests/fixtures/energy.json", "energy.json", M],
      ["tests/fixtures/site.json", "site.json", N],
      ["tests/fixtures/account.json", "account.json", N],
    ],
  ],
  // Not taken: klaasnicolaas/python-odp-amsterdam's GeoJSON (garages' free spaces, parking spaces).
  // world-json.ts's rules take the unnamed numbers of `geometry.coordinates` for measurements (the
  // lat/lon rule sees member names only), and its trap "a volatile field disappears" then deletes
  // an array element, leaving a hole the diff rejects ("undefined is not JSON"); both are rules of
  // the corpus this round does not change.
]) {
  const commit = commitOf(repo);
  for (const [path, file, measurements] of files) save(dir, file, json(JSON.parse(show(repo, path))), { ...meta(repo, commit, path, license), ...(measurements ? { measurements: true } : {}) });
}

// Copied by hand (see above): the `httpResponse` of recorded calls in ccxt's static response tests (MIT).
// A ticker is a market's live reading; an exchange's status is not one.
const HAND = [
  { file: "ccxt/coinbaseexchange-ticker.json", ...meta("ccxt/ccxt", "17e0370116d2914fd7987932a8a02068d0629ca3", "ts/src/test/static/response/coinbaseexchange.json", "MIT", { pointer: "/methods/fetchTicker/0/httpResponse" }), measurements: true },
  { file: "ccxt/bitso-ticker.json", ...meta("ccxt/ccxt", "4e2d780210693d861a387929a589a2989b8198bc", "ts/src/test/static/response/bitso.json", "MIT", { pointer: "/methods/fetchTicker/0/httpResponse" }), measurements: true },
  { file: "ccxt/btcturk-ticker.json", ...meta("ccxt/ccxt", "00d9e97cfc221ae9147ffb3bd15a8a60bb4674b3", "ts/src/test/static/response/btcturk.json", "MIT", { pointer: "/methods/fetchTicker/0/httpResponse" }), measurements: true },
  { file: "ccxt/coincheck-status.json", ...meta("ccxt/ccxt", "937fd9705ed632314dacc844f7c3848b6c1b2de9", "ts/src/test/static/response/coincheck.json", "MIT", { pointer: "/methods/fetchStatus/0/httpResponse" }) },
];
hand(HAND);

write();
