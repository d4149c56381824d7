// A safety review of the live-document rule (live-document.test.ts): documents shaped on public
// APIs where a rate, a setting or a discount that was edited once while the monitor learned sits
// beside numbers that move. The rule must never take such a figure for a reading on a slower clock:
// its next edit is a change the user wants to hear about. Each case was reported before the rule
// (dfe6abb^), hidden by it as first committed (dfe6abb), and is reported again. Each learns from
// the fetches with suggestPolicy and diffs the next one with what was learned, as the service does.
import { describe, expect, it } from "vitest";
import { learnThenDiff } from "./learn-then-diff.js";

describe("the live-document rule does not hide an edited figure", () => {
  it("a savings bank's rates cut on two days (no live document: every move one way, none a reading's small move)", () => {
    const bank = (easy: number, fixed: number, isa: number) => ({
      updated: "2026-11-01",
      products: {
        easy_access: {
          name: "Easy Access Saver",
          aer: easy,
          gross: easy,
          min_deposit: 1,
        },
        fixed_1yr: {
          name: "1 Year Fixed",
          aer: fixed,
          gross: fixed,
          min_deposit: 500,
        },
        cash_isa: { name: "Cash ISA", aer: isa, gross: isa, min_deposit: 1 },
      },
    });
    expect(
      learnThenDiff([
        bank(4.75, 4.4, 4.3),
        bank(4.6, 4.4, 4.3),
        bank(4.6, 4.4, 4.3),
        bank(4.6, 4.25, 4.15),
        bank(4.6, 4.25, 4.15),
        bank(4.35, 4.25, 4.15),
      ])
    ).toEqual(["$.products.easy_access.aer", "$.products.easy_access.gross"]);
  });

  it("a central bank's key rates beside its exchange rates (the exchange rates are live; a cut of 0.25 points is an edit)", () => {
    const ecb = (fx: number[], mro: number, dfr: number, mlf: number) => ({
      date: "2026-11-01",
      rates: { USD: fx[0], GBP: fx[1], JPY: fx[2], CHF: fx[3] },
      key_rates: {
        main_refinancing: mro,
        deposit_facility: dfr,
        marginal_lending: mlf,
      },
    });
    expect(
      learnThenDiff([
        ecb([1.0823, 0.8571, 162.31, 0.9412], 4.5, 4.0, 4.75),
        ecb([1.0831, 0.8566, 162.02, 0.9409], 4.5, 4.0, 4.75),
        ecb([1.0817, 0.8579, 162.55, 0.9421], 4.25, 3.75, 4.5),
        ecb([1.0842, 0.8571, 162.9, 0.9433], 4.25, 3.75, 4.5),
        ecb([1.0839, 0.8569, 162.71, 0.943], 4.25, 3.75, 4.5),
        ecb([1.0851, 0.8575, 162.6, 0.9428], 4.0, 3.5, 4.25),
      ])
    ).toEqual([
      "$.key_rates.deposit_facility",
      "$.key_rates.main_refinancing",
      "$.key_rates.marginal_lending",
    ]);
  });

  it("a service's tracing sample rate in its config object beside its metrics", () => {
    const saas = (m: number[], sample: number) => ({
      service: "api",
      metrics: { cpu_usage: m[0], mem_usage: m[1], error_rate: m[2] },
      config: {
        traces_sample_rate: sample,
        rollout_fraction: 0.3,
        replicas: 3,
      },
    });
    expect(
      learnThenDiff([
        saas([23.4, 61.2, 0.012], 0.25),
        saas([23.4, 61.2, 0.012], 0.25),
        saas([24.1, 61.5, 0.012], 0.2),
        saas([24.1, 61.5, 0.011], 0.2),
        saas([24.1, 61.5, 0.011], 0.15),
      ])
    ).toEqual(["$.config.traces_sample_rate"]);
  });

  it("a home energy hub's tariff beside its live readings", () => {
    const hub = (
      p: number,
      v: number,
      f: number,
      unit: number,
      standing: number
    ) => ({
      live: { power_w: p, voltage: v, frequency: f },
      tariff: { unit_rate: unit, standing_charge: standing, export_rate: 15.0 },
    });
    expect(
      learnThenDiff([
        hub(412.3, 231.2, 50.01, 24.5, 53.35),
        hub(398.1, 230.8, 49.98, 24.5, 53.35),
        hub(398.1, 230.8, 49.98, 22.36, 60.1),
        hub(421.7, 231.9, 50.02, 22.36, 60.1),
        hub(421.7, 231.9, 50.02, 24.86, 60.1),
      ])
    ).toEqual(["$.tariff.unit_rate"]);
  });

  it("a tariff table edited on two fetches (no live document: no move is a reading's small one)", () => {
    const tariff = (day: number, night: number, feedIn: number) => ({
      plan: "Flex",
      rates: {
        day_rate: day,
        night_rate: night,
        feed_in_rate: feedIn,
        standing_charge: 0.42,
      },
    });
    expect(
      learnThenDiff([
        tariff(0.2841, 0.1932, 0.0713),
        tariff(0.2903, 0.1977, 0.0713),
        tariff(0.2903, 0.1977, 0.0713),
        tariff(0.2903, 0.1977, 0.0702),
        tariff(0.2987, 0.1977, 0.0702),
      ])
    ).toEqual(["$.rates.day_rate"]);
  });

  it("an exchange's maker fee rate beside its 24-hour statistics", () => {
    const exchange = (
      volume: number,
      quoteVolume: number,
      count: number,
      maker: number,
      taker: number
    ) => ({
      symbol: "BTCUSDT",
      stats: { volume, quoteVolume, count },
      fees: { makerRate: maker, takerRate: taker },
      risk: { maintenanceMarginRatio: 0.004, maxLeverage: 125 },
    });
    expect(
      learnThenDiff([
        exchange(18234.12, 1200000000.5, 1203344, 0.001, 0.0012),
        exchange(18112.4, 1190000000.25, 1201311, 0.0009, 0.0012),
        exchange(18300.7, 1210000000.75, 1204001, 0.0009, 0.0012),
        exchange(18301.9, 1215000000.5, 1203999, 0.0009, 0.0011),
        exchange(18299.1, 1214000000.5, 1204111, 0.0008, 0.0011),
      ])
    ).toEqual(["$.fees.makerRate"]);
  });

  it("a thermostat's heating curve beside its named readings (readings named by their quantity do not vouch for an unnamed member)", () => {
    const thermostat = (
      t: number,
      h: number,
      battery: number,
      curve: number
    ) => ({
      temperature: t,
      humidity: h,
      battery,
      hysteresis: 0.5,
      heating_curve: curve,
      mode: "heat",
    });
    expect(
      learnThenDiff([
        thermostat(21.3, 45.2, 3.01, 1.4),
        thermostat(21.4, 45.0, 3.01, 1.4),
        thermostat(21.4, 45.0, 3.0, 1.3),
        thermostat(21.2, 45.3, 3.0, 1.3),
        thermostat(21.2, 45.3, 3.0, 1.2),
      ])
    ).toEqual(["$.heating_curve"]);
  });

  it("a product's discount beside its rating and stock, whether or not the rating moved on the fetch of the edit", () => {
    const product = (
      rating: number,
      popularity: number,
      stock: number,
      discount: number
    ) => ({
      sku: "A1",
      price: 49.99,
      rating,
      popularity,
      stock,
      discount,
    });
    expect(
      learnThenDiff([
        product(4.61, 0.731, 37, 0.15),
        product(4.62, 0.735, 35, 0.15),
        product(4.62, 0.735, 38, 0.12),
        product(4.62, 0.741, 38, 0.12),
        product(4.62, 0.741, 38, 0.1),
      ])
    ).toEqual(["$.discount"]);
    // the rating moved by 0.2 % as the discount went from 0.15 to 0.12: a 20 % move is an edit
    expect(
      learnThenDiff([
        product(4.61, 0.731, 37, 0.15),
        product(4.62, 0.735, 35, 0.15),
        product(4.63, 0.735, 38, 0.12),
        product(4.63, 0.741, 38, 0.12),
        product(4.63, 0.741, 38, 0.1),
      ])
    ).toEqual(["$.discount"]);
  });

  it("a host's sampling ratio edited as its CPU moved (flat: an unnamed reading moved with it, but by a fifth is an edit)", () => {
    const host = (
      cpu: number,
      mem: number,
      load: number,
      sampling: number
    ) => ({
      host: "a",
      cpu_usage: cpu,
      mem_usage: mem,
      load1: load,
      sampling_ratio: sampling,
    });
    expect(
      learnThenDiff([
        host(23.41, 61.22, 1.52, 0.25),
        host(23.41, 61.22, 1.49, 0.25),
        host(23.38, 61.3, 1.49, 0.2),
        host(23.38, 61.3, 1.55, 0.2),
        host(23.38, 61.3, 1.55, 0.15),
      ])
    ).toEqual(["$.sampling_ratio"]);
  });

  it("a brokerage account's interest rate cut as its accrued interest grew (a running total vouches for no neighbour)", () => {
    const account = (
      accrued: number,
      ytd: number,
      rate: number,
      margin: number
    ) => ({
      account: {
        id: "U123",
        currency: "USD",
        accrued_interest: accrued,
        interest_ytd: ytd,
        interest_rate: rate,
        margin_rate: margin,
      },
    });
    expect(
      learnThenDiff([
        account(12.3412, 140.11, 4.5, 7.25),
        account(12.9581, 140.73, 4.5, 7.25),
        account(13.5749, 141.35, 4.25, 7.0),
        account(14.1574, 141.93, 4.25, 7.0),
        account(14.7399, 142.51, 4.0, 7.0),
      ])
    ).toEqual(["$.account.interest_rate"]);
  });

  it("a weather service's alert ratio beside its current observations", () => {
    const weather = (
      temp: number,
      humidity: number,
      pressure: number,
      frost: number
    ) => ({
      current: { temp, humidity, pressure },
      alerts: { heat_index_trigger_c: 32.5, frost_risk_ratio: frost },
    });
    expect(
      learnThenDiff([
        weather(21.3, 45, 1012.1, 0.3),
        weather(21.5, 44, 1012.3, 0.3),
        weather(21.7, 44, 1012.2, 0.28),
        weather(21.6, 46, 1012.0, 0.28),
        weather(21.6, 46, 1012.0, 0.22),
      ])
    ).toEqual(["$.alerts.frost_risk_ratio"]);
  });

  it("an autoscaler's scale-up tolerance in its behaviour object beside a node's status figures", () => {
    const scaler = (cores: number, memory: number, tolerance: number) => ({
      status: {
        cpuCores: cores,
        memoryRatio: memory,
        podsDensity: 0.7312 + cores / 1000,
      },
      behavior: { scaleUpTolerance: tolerance, stabilizationRatio: 0.5 },
    });
    expect(
      learnThenDiff([
        scaler(3.412, 0.6121, 0.1),
        scaler(3.398, 0.6118, 0.1),
        scaler(3.398, 0.6118, 0.11),
        scaler(3.42, 0.6125, 0.11),
        scaler(3.42, 0.6125, 0.12),
      ])
    ).toEqual(["$.behavior.scaleUpTolerance"]);
  });

  it("a meter's running totals that only go up are no live document: the tariff beside them is kept", () => {
    const meter = (
      imported: number,
      exported: number,
      gas: number,
      rate: number
    ) => ({
      meter: { import_total: imported, export_total: exported, gas_total: gas },
      tariff: { unit_rate: rate },
    });
    expect(
      learnThenDiff([
        meter(12345.61, 3456.1, 8765.43, 24.5),
        meter(12346.02, 3456.1, 8765.43, 22.36),
        meter(12346.02, 3457.3, 8765.9, 22.36),
        meter(12346.5, 3457.3, 8765.9, 22.36),
        meter(12346.5, 3457.3, 8765.9, 24.86),
      ])
    ).toEqual(["$.tariff.unit_rate"]);
  });

  // A figure edited by a few per cent (1.5 %, then 2.6 %) is no reading's step, whatever a GC rate's
  // 131.88 -> 133.9 looks like: the rule keeps it (reported before dfe6abb, hidden on 9116d9e).
  it("a tariff's unit rate edited by 1.5 %, then by 2.6 %, beside live readings", () => {
    const hub = (p: number, v: number, f: number, unit: number) => ({
      live: { power_w: p, voltage: v, frequency: f },
      tariff: { unit_rate: unit, standing_charge: 53.35 },
    });
    expect(
      learnThenDiff([
        hub(412.3, 231.2, 50.01, 24.5),
        hub(398.1, 230.8, 49.98, 24.5),
        hub(398.1, 230.8, 49.98, 24.86),
        hub(421.7, 231.9, 50.02, 24.86),
        hub(421.7, 231.9, 50.02, 25.5),
      ])
    ).toEqual(["$.tariff.unit_rate"]);
  });

  // Known gap, left open: in an object whose unnamed members move by less than 1 % together (a
  // server's CPU figures), a figure edited by up to 10 % on a fetch where they moved is taken for
  // one of them (as MachineIoWait 2.69 -> 2.83 is). (Reported before dfe6abb.)
  it.fails(
    "a device's calibration factor edited as its unnamed statistics moved (open: hidden beside them)",
    () => {
      const device = (
        load: number,
        fragmentation: number,
        lag: number,
        calibration: number
      ) => ({
        stats: {
          cpu_load_avg: load,
          heap_frag: fragmentation,
          loop_lag: lag,
          calibration_factor: calibration,
        },
      });
      expect(
        learnThenDiff([
          device(0.4312, 12.31, 3.412, 1.02),
          device(0.4301, 12.31, 3.401, 1.02),
          device(0.4301, 12.36, 3.401, 1.07),
          device(0.4322, 12.36, 3.43, 1.07),
          device(0.4322, 12.36, 3.43, 1.12),
        ])
      ).toEqual(["$.stats.calibration_factor"]);
    }
  );
});
