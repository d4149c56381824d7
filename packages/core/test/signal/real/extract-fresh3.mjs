// The ninth round's payloads ("fresh3": the two kinds of measurement target the corpus had few of,
// exchange tickers and devices' live readings), taken like extract-fresh2.mjs takes the eighth
// round's (run once by hand, not by the tests): `node extract-fresh3.mjs <mirror root>` where the
// mirror root holds bare clones named owner+name/repo. It writes the payloads and APPENDS their
// entries to sources.json (a file already listed is left as it is). Payloads are trimmed as
// extract.mjs trims them: arrays to 30 elements.
//
// `measurements: true` marks a payload by extract-fresh2.mjs's rule, decided from what the endpoint
// is, before any measurement: a live reading taken at request time by a device (meter, sensor,
// inverter, battery, weather station, a device's live status with its signal strength, uptime or
// power draw), a weather or solar model, or a market (a ticker, an order book). An endpoint that
// serves an identity, settings or a configuration is not one.
//
// The tickers (ccxt, a repository too large to clone here) were copied by hand from the files read
// in the stored index, each one's `httpResponse` as it is there; they are listed in HAND below with
// the commit they were read at.
import { commitOf, json, meta, show, sourceList } from "./extract-lib.mjs";

const { save, hand, write } = sourceList({ append: true });
const M = true; // a measurement target (the rule above)
const N = false;

const FRONIUS = "tests/test_structure/v1/solar_api/v1";
// Whole files of SDK test fixtures: [repository, directory here, licence, [[path in the repository, file name here, measurements]]].
for (const [repo, dir, license, files] of [
  // Fronius Solar API v1 (a solar inverter's data logger; MIT): an inverter's energy totals and
  // status, its three phases' currents and voltages, the site's power flow, a battery's state, the
  // meters' readings; the logger's identity and settings
  [
    "nielstron/pyfronius",
    "fronius",
    "MIT",
    [
      [`${FRONIUS}/GetInverterRealtimeData.cgi___Scope=Device&DeviceId=1&DataCollection=CommonInverterData`, "inverter-common.json", M],
      [`${FRONIUS}/GetInverterRealtimeData.cgi___Scope=Device&DeviceId=1&DataCollection=3PInverterData`, "inverter-3p.json", M],
      [`${FRONIUS}/GetPowerFlowRealtimeData.fcgi`, "powerflow.json", M],
      [`${FRONIUS}/GetStorageRealtimeData.cgi___Scope=Device&DeviceId=0`, "storage.json", M],
      [`${FRONIUS}/GetMeterRealtimeData.cgi___Scope=System`, "meter-system.json", M],
      [`${FRONIUS}/GetLoggerInfo.cgi`, "logger-info.json", N],
    ],
  ],
  // Tesla Powerwall's local API (MIT): the meters' aggregates (site, battery, load, solar), the
  // system's status (battery blocks' power, energy, voltage), the gateway's status (uptime)
  [
    "jrester/tesla_powerwall",
    "tesla-powerwall",
    "MIT",
    [
      ["tests/unit/fixtures/meters_aggregates.json", "meters-aggregates.json", M],
      ["tests/unit/fixtures/system_status.json", "system-status.json", M],
      ["tests/unit/fixtures/status.json", "status.json", M],
    ],
  ],
  // AirGradient air-quality monitors' local API (MIT): current measures (particulates, CO2,
  // temperature, humidity, Wi-Fi signal); a monitor's configuration
  [
    "airgradienthq/python-airgradient",
    "airgradient",
    "MIT",
    [
      ["tests/fixtures/current_measures.json", "current-measures.json", M],
      ["tests/fixtures/current_measures_2.json", "current-measures-2.json", M],
      ["tests/fixtures/config.json", "config.json", N],
    ],
  ],
  // Ambient Weather's REST API (MIT): a weather station's recent readings (wind, temperature,
  // rain, pressure, humidity, solar radiation) and the account's stations with their last reading
  [
    "bachya/aioambient",
    "ambient-weather",
    "MIT",
    [
      ["tests/fixtures/device_details_response.json", "device-details.json", M],
      ["tests/fixtures/devices_response.json", "devices.json", M],
    ],
  ],
  // Nettigo Air Monitor (an air-quality and weather sensor's /data.json; Apache-2.0): particulates,
  // temperatures, pressures, humidity, Wi-Fi signal, uptime
  ["bieniu/nettigo-air-monitor", "nettigo", "Apache-2.0", [["tests/fixtures/valid_data.json", "valid-data.json", M]]],
]) {
  const commit = commitOf(repo);
  for (const [path, file, measurements] of files) save(dir, file, json(JSON.parse(show(repo, path))), { ...meta(repo, commit, path, license), ...(measurements ? { measurements: true } : {}) });
}

// Copied by hand (see above): the `httpResponse` of the recorded fetchTicker call in ccxt's static
// response tests (MIT), each a market's 24 h ticker: a live reading.
const ticker = (exchange, commit) => ({
  file: `ccxt/${exchange}-ticker.json`,
  ...meta("ccxt/ccxt", commit, `ts/src/test/static/response/${exchange}.json`, "MIT", { pointer: "/methods/fetchTicker/0/httpResponse" }),
  measurements: true,
});
const HAND = [
  ticker("kraken", "0621cdc032679f13075cb28fbdb7e6c96a959552"),
  ticker("p2b", "5a4ea97364cde3790710e6401b190d5490d62e8a"),
  ticker("upbit", "2dbb152f07524882b411b02cad8d158312e1e25c"),
  ticker("whitebit", "0117dcb9f9d7ef6fdd11d7dd649c8ca200f061d7"),
  ticker("indodax", "5259c863fe9c3eb9bdbad7f7a66d6f64eea186b2"),
  ticker("luno", "17e0370116d2914fd7987932a8a02068d0629ca3"),
  ticker("zonda", "1968c0635b033288cef0775ebc5f63971c86de1f"),
  ticker("hollaex", "17e0370116d2914fd7987932a8a02068d0629ca3"),
  ticker("yobit", "4e2d780210693d861a387929a589a2989b8198bc"),
  ticker("probit", "0621cdc032679f13075cb28fbdb7e6c96a959552"),
  ticker("bitopro", "15c16345450bd995fb2e005d672770cf70cc9c0e"),
  ticker("btcalpha", "15c16345450bd995fb2e005d672770cf70cc9c0e"),
];
hand(HAND);

write();
