export { runStoreContract } from "./contract.js";
export {
  rejectionCode,
  type Capability,
  type OpenStoreOptions,
  type StoreContractCapabilities,
  type StoreContractHarness,
  type StoreContractOptions,
} from "./harness.js";
export {
  apiMonitor,
  changedCheck,
  recordChanges,
  seedOrganization,
  unchangedCheck,
  webhookInput,
  type CheckOptions,
  type SeededOrganization,
} from "./fixtures.js";
export {
  crashCheckRecorders,
  runCrashScenario,
  type CrashScenario,
  expectEveryCheckWhole,
  expectStoreWorksAfterCrash,
  recordChecksUntilKilled,
  startCheckRecorder,
  type CheckRecorder,
  type CheckRecorderCommand,
  type CrashRoundsOptions,
  type PrintedCheck,
  type StoredChecks,
} from "./crash.js";
export {
  bareCheckStatements,
  numberPlaceholders,
  prepareClaimRound,
  seedDueMonitors,
  type BareCheckOptions,
  type BareStatement,
  type ClaimRoundOptions,
} from "./bench.js";
export { runNodeScript, type NodeScript } from "./processes.js";
export {
  FIRST_VERSION_SETTINGS,
  expectFirstVersionSettingsMigrated,
  expectVersion2UpgradeKeepsData,
  type Version2UpgradeHarness,
} from "./migrations.js";
