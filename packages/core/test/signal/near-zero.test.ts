// Readings near zero and across it: an outdoor temperature in °C in winter, a dew point, a wind
// chill, a grid power that flips sign (import positive, export negative), a battery's current and
// power (charging negative), a grid-services power that sits at 0 and moves a little. A relative
// tolerance (a move of up to x % of the larger value) means nothing where zero is not a natural
// origin: -0.4 -> 0.1 °C is a move of 125 %. Each case learns from 9 fetches with suggestPolicy
// and diffs the next one with what was learned, as the service does; noise is quiet, and what
// must still be reported is.
import type { PolicyRules } from "@driftwatch/schema";
import { describe, expect, it } from "vitest";
import { diffJson, suggestPolicy } from "../../src/index.js";

function learnThenDiff(fetches: unknown[]): { policy: PolicyRules; next: ReturnType<typeof diffJson> | null } {
  const history = fetches.slice(0, -1);
  const { policy } = suggestPolicy(history, { kind: "json" });
  return { policy, next: diffJson(history[history.length - 1], fetches[fetches.length - 1], { policy }) };
}

const paths = (next: ReturnType<typeof diffJson> | null): string[] => (next?.changes.map((c) => c.path) ?? []).sort();

const base = Date.parse("2026-01-12T06:00:00Z");
const iso = (minutes: number): string => new Date(base + minutes * 60_000).toISOString();

// A Weather Underground PWS observation (`/v2/pws/observations/current`, units=m): the station
// uploads every 10 to 15 minutes, the monitor fetches every 5, so a reading moves on some fetches
// only. Temperature, dew point and wind chill in °C around 0 on a winter morning.
interface Metric {
  temp: number;
  dewpt: number;
  windChill: number;
  pressure?: number;
}
const pws = (i: number, metric: Metric, extra: Record<string, unknown> = {}) => ({
  observations: [
    {
      stationID: "IUTRECH123",
      obsTimeUtc: iso(Math.floor(i / 2) * 10),
      epoch: Math.floor((base + Math.floor(i / 2) * 600_000) / 1000),
      neighborhood: "Utrecht Oost",
      softwareType: "EasyWeatherV1.6.4",
      country: "NL",
      realtimeFrequency: null,
      qcStatus: 1,
      metric: { windSpeed: 7, windGust: 11, pressure: metric.pressure ?? 1021.34, precipRate: 0, precipTotal: 0, elev: 3, ...metric, ...extra },
    },
  ],
});
// (the values at fetches 0..8: four moves, up and down, across 0)
const temps = [-0.8, -0.8, -0.3, -0.3, -0.3, 0.2, 0.2, -0.4, -0.4];
const dewpts = [-2.9, -2.9, -2.4, -2.4, -2.4, -1.8, -1.8, -2.3, -2.3];
const chills = [-3.6, -3.6, -2.1, -2.1, -2.1, 0.3, 0.3, -1.7, -1.7];
const winter = temps.map((temp, i) => pws(i, { temp, dewpt: dewpts[i]!, windChill: chills[i]! }));
const nextPws = (metric: Metric, extra: Record<string, unknown> = {}) => pws(9, metric, extra);

// Fronius Solar API `GetPowerFlowRealtimeData`: the site's grid power flips sign (export
// negative, import positive); the load is negative (consumed). The inverter's own clock is
// slower than the fetches.
const fronius = (i: number, grid: number, load: number, pv: number, extra: Record<string, unknown> = {}) => ({
  Body: {
    Data: {
      Inverters: { "1": { Battery_Mode: "normal", DT: 1, P: pv, SOC: 54.2 } },
      Site: { BatteryStandby: false, E_Day: null, E_Total: 18_731_002.5, E_Year: null, Meter_Location: "grid", Mode: "bidirectional", P_Akku: null, P_Grid: grid, P_Load: load, P_PV: pv, rel_Autonomy: 100, rel_SelfConsumption: 41.3, ...extra },
      Version: "12",
    },
  },
  Head: { RequestArguments: {}, Status: { Code: 0, Reason: "", UserMessage: "" }, Timestamp: iso(Math.floor(i / 2) * 10) },
});
const grids = [-412.3, -412.3, -130.8, -130.8, 215.6, 215.6, -88.1, -88.1, 120.4];
const loads = [-611.2, -611.2, -702.5, -702.5, -655.9, -655.9, -690.1, -690.1, -640.7];
const pvs = [1023.5, 1023.5, 833.3, 833.3, 440.3, 440.3, 778.2, 778.2, 520.3];
const solar = grids.map((g, i) => fronius(i, g, loads[i]!, pvs[i]!));

// A Tesla Powerwall's `/api/system_status`: a battery block's current and power (negative while
// charging) cross zero; the grid-services power sits at 0 and moves a little; the rated figures
// (`nominal_energy`, `max_charge_power`) never move.
const powerwall = (i: number, iOut: number, pOut: number, gridServices: number, extra: Record<string, unknown> = {}) => ({
  command_source: "Configuration",
  battery_target_power: 0,
  nominal_full_pack_energy: 14_012,
  nominal_energy_remaining: 9_331,
  max_charge_power: 5_000,
  max_discharge_power: 5_000,
  grid_services_power: gridServices,
  battery_blocks: [
    { PackagePartNumber: "3012170-10-B", PackageSerialNumber: "TG121345000ABC", pinv_state: "PINV_GridFollowing", nominal_energy_remaining: 9_331, nominal_full_pack_energy: 14_012, p_out: pOut, q_out: 10, v_out: 232.6, f_out: 50.01, i_out: iOut, energy_charged: 4_207_330, energy_discharged: 3_805_180, ...extra },
  ],
  last_toggle_timestamp: "2026-01-12T05:12:43.000Z",
  updated: iso(Math.floor(i / 2) * 10),
});
const currents = [-1.2, -1.2, 0.4, 0.4, 0.4, -0.7, -0.7, 0.3, 0.3];
const powers = [-280, -280, 90, 90, 90, -160, -160, 70, 70];
const services = [0, 0, 0, 0.5, 0.5, 0, 0, -0.3, -0.3];
const battery = currents.map((c, i) => powerwall(i, c, powers[i]!, services[i]!));

describe("readings near zero and across it", () => {
  it("a winter weather station's temperature, dew point and wind chill in °C that moved across 0: small moves across 0 are quiet", () => {
    const { policy, next } = learnThenDiff([...winter, nextPws({ temp: 0.1, dewpt: -1.9, windChill: 0.6 })]);
    expect(paths(next), JSON.stringify(policy.tolerance)).toEqual([]);
    // each still has a tolerance (a rule the user can read), not a volatile entry
    for (const name of ["temp", "windChill"]) expect(policy.tolerance?.some((t) => t.path === `$.observations[*].metric.${name}`), name).toBe(true);
    expect(policy.volatile?.some((v) => v.path?.endsWith(".temp") === true) ?? false).toBe(false);
  });

  it("a winter weather station: a temperature that jumps far beyond what it did, a reading gone null, removed or turned into a string are reported", () => {
    expect(paths(learnThenDiff([...winter, nextPws({ temp: 45, dewpt: -1.9, windChill: 0.6 })]).next)).toEqual(["$.observations[0].metric.temp"]);
    expect(paths(learnThenDiff([...winter, nextPws({ temp: -0.4, dewpt: -2.3, windChill: -14.2 })]).next)).toEqual(["$.observations[0].metric.windChill"]);
    expect(paths(learnThenDiff([...winter, nextPws({ temp: -0.4, dewpt: -2.3, windChill: -1.7 }, { temp: null })]).next)).toEqual(["$.observations[0].metric.temp"]);
    const removed = nextPws({ temp: -0.4, dewpt: -2.3, windChill: -1.7 }) as { observations: { metric: Record<string, unknown> }[] };
    delete removed.observations[0]!.metric["temp"];
    expect(paths(learnThenDiff([...winter, removed]).next)).toEqual(["$.observations[0].metric.temp"]);
    // a type change is reported
    expect(paths(learnThenDiff([...winter, nextPws({ temp: -0.4, dewpt: -2.3, windChill: -1.7 }, { temp: "-0.4" })]).next)).toEqual(["$.observations[0].metric.temp"]);
  });

  it("a grid power that flips sign (export, import) is quiet while it moves as it did; a jump far beyond it is reported", () => {
    const { policy, next } = learnThenDiff([...solar, fronius(9, -260.2, -702.3, 962.5)]);
    expect(paths(next), JSON.stringify(policy.tolerance)).toEqual([]);
    expect(paths(learnThenDiff([...solar, fronius(9, 5000, -640.7, 520.3)]).next)).toEqual(["$.Body.Data.Site.P_Grid"]);
    expect(paths(learnThenDiff([...solar, fronius(9, -260.2, -702.3, 962.5, { P_Grid: null })]).next)).toEqual(["$.Body.Data.Site.P_Grid"]);
  });

  it("a battery's current and power that cross 0 while it charges and discharges, and a grid-services power that sits at 0 and moves a little, are quiet; far beyond is reported", () => {
    const { policy, next } = learnThenDiff([...battery, powerwall(9, -0.5, -120, 0.2)]);
    expect(paths(next), JSON.stringify(policy.tolerance)).toEqual([]);
    expect(paths(learnThenDiff([...battery, powerwall(9, 48.5, 11_200, 0.2)]).next)).toEqual(["$.battery_blocks[0].i_out", "$.battery_blocks[0].p_out"]);
    expect(paths(learnThenDiff([...battery, powerwall(9, 0.3, 70, 3_500)]).next)).toEqual(["$.grid_services_power"]);
  });

  it("a setting or rated figure that never moved (`max_charge_power`, `nominal_full_pack_energy`, a target power at 0) gets no tolerance and its change is reported", () => {
    const { policy } = learnThenDiff([...battery, battery[8]!]);
    for (const name of ["max_charge_power", "max_discharge_power", "nominal_full_pack_energy", "battery_target_power"]) {
      expect(policy.tolerance?.some((t) => t.path === `$.${name}`) ?? false, name).toBe(false);
      const changed = { ...(battery[8] as Record<string, unknown>), [name]: name === "battery_target_power" ? 0.4 : 4_800 };
      expect(paths(learnThenDiff([...battery, changed]).next), name).toEqual([`$.${name}`]);
    }
  });

  // KNOWN GAP, not fixed here: the station's `heatIndex` (a temperature: it equals `temp` in the
  // cold) is named like an index (isSettingOrCodeName), so it is kept, and each of its moves across
  // 0 is reported; so is a `uv_index`'s (listed as a quantity, but taken for a code first).
  it.fails("a winter weather station's heat index that follows its temperature across 0 is quiet", () => {
    const station = winter.map((w, i) => {
      const metric = (w as { observations: { metric: Record<string, unknown> }[] }).observations[0]!.metric;
      return pws(i, { temp: metric["temp"] as number, dewpt: metric["dewpt"] as number, windChill: metric["windChill"] as number }, { heatIndex: metric["temp"] });
    });
    expect(paths(learnThenDiff([...station, nextPws({ temp: 0.1, dewpt: -1.9, windChill: 0.6 }, { heatIndex: 0.1 })]).next)).toEqual([]);
  });

  it("a code or a count that went 0, 1, 0, 2 (integers: a fault code, a number of alerts) is no reading near zero: its next change is reported", () => {
    const device = (i: number, faults: number) => ({ name: "inverter", fault_count_active: faults, updated: iso(i * 5) });
    const values = [0, 0, 1, 1, 0, 0, 2, 2, 0];
    const history = values.map((v, i) => device(i, v));
    expect(paths(learnThenDiff([...history, device(9, 1)]).next)).toEqual(["$.fault_count_active"]);
    // 0, 1, 2, 0, 1 (steps of varying relative size): 1 -> 4 is reported
    const stepped = [0, 0, 1, 1, 2, 2, 0, 0, 1].map((v, i) => device(i, v));
    expect(paths(learnThenDiff([...stepped, device(9, 4)]).next)).toEqual(["$.fault_count_active"]);
  });

  it("the absolute part of a tolerance never hides a move larger than the largest one seen times its margin: a reading far from zero keeps its relative tolerance", () => {
    // rssi in dBm, moved up and down by 3 to 8: -67 -> -71 is quiet, as before; -67 -> -20 is reported
    const radio = (i: number, rssi: number) => ({ wifi: { ssid: "home", rssi, channel: 6 }, uptime: 1000 + i * 300 });
    const values = [-66, -66, -58, -58, -69, -69, -61, -61, -67];
    const history = values.map((v, i) => radio(i, v));
    expect(learnThenDiff([...history, radio(9, -71)]).next).toBeNull();
    expect(paths(learnThenDiff([...history, radio(9, -20)]).next)).toEqual(["$.wifi.rssi"]);
    // the grid power moved by at most 347 W: a move of 2000 W (from 120 to -1900) is reported
    expect(paths(learnThenDiff([...solar, fronius(9, -1900, -640.7, 520.3)]).next)).toEqual(["$.Body.Data.Site.P_Grid"]);
    const { policy } = learnThenDiff([...solar, solar[8]!]);
    const grid = policy.tolerance?.find((t) => t.path === "$.Body.Data.Site.P_Grid");
    expect(grid?.absolute).toBeDefined();
    expect(grid!.absolute!).toBeLessThanOrEqual(347 * 4);
  });
});
