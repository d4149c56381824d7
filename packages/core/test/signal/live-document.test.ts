// Live documents: a server's statistics (`/admin/stats`), a broker's node metrics, a beat's
// monitoring endpoint. Their numbers move on clocks of their own, every fetch or every few
// fetches, so early in a monitor's life most of them moved once at most: a tolerance fitted to
// that one move (CPU usage 6.35 -> 6.36) is far too tight for the next (6.36 -> 6.17). In a
// document whose numbers move on fetches of their own, a non-integer that moved by a small amount
// is a reading on a slower clock of its own. Each case learns from the fetches with suggestPolicy
// and diffs the next one with what was learned, as the service does.
import { describe, expect, it } from "vitest";
import { learnThenDiff } from "./learn-then-diff.js";

interface Stats {
  process: number;
  machine: number;
  ioWait: number;
  requests: number;
  extra?: Record<string, unknown>;
}

// A database server's statistics: CPU in per cent, a throughput, an average duration; figures of
// the server (its cores, a licence's ratio, a version) beside them. The monitor fetches every
// minute, the server updates its CPU figures every two minutes and its throughput every three.
const server = (s: Stats) => ({
  Cpu: {
    ProcessUsage: s.process,
    MachineUsage: s.machine,
    MachineIoWait: s.ioWait,
    AssignedProcessorCount: 8,
  },
  Statistics: { RequestsPerSec: s.requests, RequestAverageDurationInMs: 0.57 },
  License: { UtilizedCpuCores: 4, Ratio: 0.75 },
  ServerVersion: "6.0.105",
  ...s.extra,
});
const history = [
  server({ process: 6.35, machine: 41.39, ioWait: 2.69, requests: 20.71 }),
  server({ process: 6.35, machine: 41.39, ioWait: 2.69, requests: 20.71 }),
  server({ process: 6.36, machine: 41.26, ioWait: 2.83, requests: 20.71 }),
  server({ process: 6.36, machine: 41.26, ioWait: 2.83, requests: 20.74 }),
];
/** The last fetch learned from, again: nothing moved. */
const settled = () =>
  server({ process: 6.36, machine: 41.26, ioWait: 2.83, requests: 20.74 });

describe("a live document's readings that moved once", () => {
  it("are quiet when they move again by a few per cent", () => {
    expect(
      learnThenDiff([
        ...history,
        server({
          process: 6.17,
          machine: 42.96,
          ioWait: 2.78,
          requests: 20.74,
        }),
      ])
    ).toEqual([]);
  });

  it("still report a jump beyond the tolerance, a figure's first move, an integer, a removal and a type change", () => {
    // CPU usage from 6 % to 60 %
    expect(
      learnThenDiff([
        ...history,
        server({
          process: 60.1,
          machine: 41.26,
          ioWait: 2.83,
          requests: 20.74,
        }),
      ])
    ).toEqual(["$.Cpu.ProcessUsage"]);
    // a figure that never moved: its first move is reported
    expect(
      learnThenDiff([
        ...history,
        {
          ...settled(),
          License: { UtilizedCpuCores: 4, Ratio: 0.8 },
        },
      ])
    ).toEqual(["$.License.Ratio"]);
    // an integer figure
    expect(
      learnThenDiff([
        ...history,
        {
          ...settled(),
          License: { UtilizedCpuCores: 3, Ratio: 0.75 },
        },
      ])
    ).toEqual(["$.License.UtilizedCpuCores"]);
    const removed = settled() as { Cpu: Record<string, unknown> };
    delete removed.Cpu["ProcessUsage"];
    expect(learnThenDiff([...history, removed])).toEqual([
      "$.Cpu.ProcessUsage",
    ]);
    expect(
      learnThenDiff([
        ...history,
        server({
          process: null as unknown as number,
          machine: 41.26,
          ioWait: 2.83,
          requests: 20.74,
        }),
      ])
    ).toEqual(["$.Cpu.ProcessUsage"]);
  });

  it("is no live document when several figures were edited at once (one fetch): their next edit is reported", () => {
    // a tariff table: three rates edited together once, nothing else moves
    const tariff = (day: number, night: number, feedIn: number) => ({
      plan: "Flex",
      updated: "2026-01-10",
      rates: {
        day_rate: day,
        night_rate: night,
        feed_in_rate: feedIn,
        standing_charge: 0.42,
      },
    });
    const edited = [
      tariff(0.2841, 0.1932, 0.0713),
      tariff(0.2841, 0.1932, 0.0713),
      tariff(0.2903, 0.1977, 0.0702),
      tariff(0.2903, 0.1977, 0.0702),
    ];
    expect(learnThenDiff([...edited, tariff(0.2987, 0.1977, 0.0702)])).toEqual([
      "$.rates.day_rate",
    ]);
  });

  it("does not take in money: a price that moved once beside moving readings is kept", () => {
    const withPrice = history.map((h, i) => ({
      ...h,
      plan: { price: i < 2 ? 19.9 : 21.9 },
    }));
    expect(
      learnThenDiff([
        ...withPrice,
        {
          ...settled(),
          plan: { price: 22.9 },
        },
      ])
    ).toEqual(["$.plan.price"]);
  });
});
