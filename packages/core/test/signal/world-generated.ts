// Payloads written here (origin `generated`) for shapes the real sources lack: a Kubernetes pod
// list (nested identities `metadata.name`, resource versions as digit strings), an exchange's
// tickers (prices and volumes as decimal strings), a weather station's observations (sensor
// readings), a feature-flag set. The same rule-driven noise as the real payloads is applied to
// them (world-json.ts); three variants each (the name seeds the noise and the changes).
const pod = (name: string, i: number) => ({
  metadata: {
    name,
    namespace: "default",
    uid: `${["d8aa9a47", "9be2b7d5", "11768037", "326f8493", "22a5a8be"][i % 5]}-ad0f-4bbe-bc12-ab31605d32${10 + i}`,
    resourceVersion: String(550088 + i * 17),
    creationTimestamp: "2026-11-19T09:36:45Z",
    labels: { app: name.split("-")[0]!, "pod-template-hash": "9456bbbf9" },
  },
  spec: { nodeName: `node-${i % 3}`, containers: [{ name: name.split("-")[0]!, image: "nginx:1.27.2", imagePullPolicy: "IfNotPresent" }], restartPolicy: "Always" },
  status: {
    phase: "Running",
    podIP: `10.244.0.${12 + i}`,
    startTime: "2026-11-19T09:36:47Z",
    conditions: [
      { type: "Ready", status: "True", lastProbeTime: null },
      { type: "ContainersReady", status: "True", lastProbeTime: null },
    ],
    containerStatuses: [{ name: name.split("-")[0]!, ready: true, restartCount: 0, image: "nginx:1.27.2" }],
  },
});

const PAYLOADS: Record<string, unknown> = {
  "Kubernetes GET /api/v1/namespaces/default/pods": {
    kind: "PodList",
    apiVersion: "v1",
    metadata: { resourceVersion: "550311" },
    items: ["web-7c9f5-abcde", "web-7c9f5-fghij", "api-5d8b6-klmno", "worker-6f7d9-pqrst", "cache-0"].map(pod),
  },
  "exchange GET /api/v3/ticker/24hr": ["BTCUSDT", "ETHUSDT", "SOLUSDT", "ADAUSDT"].map((symbol, i) => ({
    symbol,
    lastPrice: ["43250.12000000", "2291.55000000", "98.43000000", "0.59120000"][i],
    bidPrice: ["43250.11000000", "2291.54000000", "98.42000000", "0.59110000"][i],
    askPrice: ["43250.12000000", "2291.56000000", "98.44000000", "0.59120000"][i],
    volume: ["18234.55100000", "402113.10200000", "2214532.10000000", "98123321.00000000"][i],
    quoteVolume: ["788654321.12", "921543210.55", "217987654.32", "58012345.67"][i],
    status: "TRADING",
    baseAsset: symbol.slice(0, -4),
    quoteAsset: "USDT",
    tickSize: "0.01000000",
  })),
  "weather station GET /v1/stations/{id}/observations/latest": {
    station: { id: "KSEA", name: "Seattle-Tacoma International Airport", latitude: 47.4447, longitude: -122.3144, elevation_m: 131 },
    observation: { time: "2026-11-20T07:53:00+00:00", temperature: 7.3, dewpoint: 4.1, humidity: 81, wind_speed: 3.4, wind_direction: 190, pressure: 1012.6, visibility_km: 16.09, condition: "cloudy", units: "metric" },
    alerts: [],
  },
  "feature flags GET /sdk/flags": {
    flags: [
      { key: "new-checkout", on: true, variation: "treatment", version: 42, rollout: { percent: 25, bucketBy: "userId" }, salt: "a1b2c3d4e5f60718" },
      { key: "dark-mode", on: true, variation: "enabled", version: 7, rollout: { percent: 100, bucketBy: "userId" }, salt: "0f1e2d3c4b5a6978" },
      { key: "beta-search", on: false, variation: "off", version: 3, rollout: { percent: 0, bucketBy: "orgId" }, salt: "9a8b7c6d5e4f3021" },
    ],
    segments: [{ key: "beta-users", version: 12, included: ["u_91", "u_144"] }],
  },
};

export function generatedPayloads(): { name: string; payload: unknown }[] {
  return Object.entries(PAYLOADS).flatMap(([name, payload]) => [1, 2, 3].map((n) => ({ name: `generated:${name} #${n}`, payload })));
}
