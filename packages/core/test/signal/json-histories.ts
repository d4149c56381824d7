// JSON histories modelled on public APIs: GitHub repos and releases, the npm registry and its
// search, Stripe-like events and customers, Open-Meteo and exchange-rate APIs, Statuspage
// summaries, Algolia news search, Shopify products, Elasticsearch, Spring Boot health, feature flags.
import { base64url, fetchTime, hex, historiesOf, type History, int, pick, type Rng, type Template, uuid } from "./corpus.js";

const iso = (ms: number): string => new Date(ms).toISOString();
const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

interface Repo {
  stars: number;
  forks: number;
  archived: boolean;
  license: { key: string; name: string; spdx_id: string } | undefined;
  defaultBranch: string;
  topics: string[];
  description: string;
  homepage: string | null;
}

const githubRepo: Template<Repo> = {
  name: "GitHub GET /repos/{owner}/{repo}",
  kind: "json",
  init: (rng) => ({
    stars: int(rng, 1000, 50000),
    forks: int(rng, 100, 900),
    archived: false,
    license: { key: "mit", name: "MIT License", spdx_id: "MIT" },
    defaultBranch: "main",
    topics: ["monitoring", "diff", "typescript"],
    description: "Watch APIs and pages for changes that matter",
    homepage: "https://driftwatch.dev",
  }),
  render: (s, t, rng) => {
    s.stars += int(rng, 1, 9);
    const now = fetchTime(t);
    return {
      id: 612345678,
      node_id: "R_kgDOJH0xNg",
      name: "driftwatch",
      full_name: "acme/driftwatch",
      private: false,
      owner: { login: "acme", id: 9919, type: "Organization", site_admin: false },
      description: s.description,
      fork: false,
      homepage: s.homepage,
      created_at: "2021-03-04T10:11:12Z",
      updated_at: isoSeconds(now - int(rng, 0, 60) * 1000),
      pushed_at: isoSeconds(now - int(rng, 60, 600) * 1000),
      size: 20431,
      stargazers_count: s.stars,
      watchers_count: s.stars,
      language: "TypeScript",
      forks_count: s.forks,
      archived: s.archived,
      disabled: false,
      open_issues_count: 42,
      ...(s.license ? { license: s.license } : {}),
      topics: s.topics,
      visibility: "public",
      default_branch: s.defaultBranch,
    };
  },
  mutations: [
    { what: "repository archived", minSeverity: "medium", where: "$.archived", apply: (s) => void (s.archived = true) },
    { what: "license removed", minSeverity: "medium", where: "$.license", apply: (s) => void (s.license = undefined) },
    { what: "default branch renamed", minSeverity: "medium", where: "$.default_branch", apply: (s) => void (s.defaultBranch = "trunk") },
    { what: "topic added", minSeverity: "info", where: "$.topics", apply: (s) => void s.topics.push("webhooks") },
    { what: "homepage became null", minSeverity: "medium", where: "$.homepage", apply: (s) => void (s.homepage = null) },
  ],
};

interface Releases {
  releases: { id: number; tag: string; prerelease: boolean; assets: { id: number; name: string; downloads: number }[] }[];
}

const githubReleases: Template<Releases> = {
  name: "GitHub GET /repos/{owner}/{repo}/releases",
  kind: "json",
  init: (rng) => ({
    releases: ["v2.3.0", "v2.2.1", "v2.2.0"].map((tag, i) => ({
      id: 150000000 - i * 1000,
      tag,
      prerelease: false,
      assets: ["linux-x64.tar.gz", "darwin-arm64.tar.gz", "win-x64.zip"].map((n, j) => ({ id: 9000000 + i * 10 + j, name: `driftwatch-${tag}-${n}`, downloads: int(rng, 100, 5000) })),
    })),
  }),
  render: (s, t, rng) =>
    s.releases.map((r) => ({
      url: `https://api.github.com/repos/acme/driftwatch/releases/${r.id}`,
      id: r.id,
      tag_name: r.tag,
      name: `driftwatch ${r.tag}`,
      draft: false,
      prerelease: r.prerelease,
      created_at: "2026-10-01T12:00:00Z",
      published_at: "2026-10-01T12:30:00Z",
      assets: r.assets.map((a) => {
        a.downloads += int(rng, 1, 40);
        return { id: a.id, name: a.name, content_type: "application/octet-stream", state: "uploaded", size: 4_200_000, download_count: a.downloads, updated_at: "2026-10-01T12:29:00Z" };
      }),
      body: "Bug fixes and performance improvements.",
    })),
  mutations: [
    {
      what: "new release published",
      minSeverity: "info",
      where: "$",
      apply: (s) => void s.releases.unshift({ id: 150001000, tag: "v2.4.0", prerelease: false, assets: [{ id: 9100000, name: "driftwatch-v2.4.0-linux-x64.tar.gz", downloads: 0 }] }),
    },
    { what: "asset deleted", minSeverity: "medium", where: "$[*].assets", apply: (s) => void s.releases[1]!.assets.pop() },
    { what: "release marked prerelease", minSeverity: "medium", where: "$[*].prerelease", apply: (s) => void (s.releases[0]!.prerelease = true) },
  ],
};

interface NpmPackage {
  latest: string;
  deprecated: string | undefined;
  versions: string[];
  maintainers: string[];
  license: string;
}

const npmPackument: Template<NpmPackage> = {
  name: "npm registry GET /{package}",
  kind: "json",
  init: () => ({ latest: "4.17.21", deprecated: undefined, versions: ["4.17.19", "4.17.20", "4.17.21"], maintainers: ["jdalton", "mathias"], license: "MIT" }),
  render: (s) => ({
    _id: "lodash",
    _rev: "3112-9c1fe1d6a3b7c2ee5a3d5b1c0f0d4b8e",
    name: "lodash",
    "dist-tags": { latest: s.latest },
    versions: Object.fromEntries(
      s.versions.map((v) => [
        v,
        {
          name: "lodash",
          version: v,
          license: s.license,
          ...(s.deprecated && v === s.latest ? { deprecated: s.deprecated } : {}),
          dist: { shasum: `${v.replaceAll(".", "")}f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7`, tarball: `https://registry.npmjs.org/lodash/-/lodash-${v}.tgz` },
        },
      ]),
    ),
    time: Object.fromEntries(s.versions.map((v, i) => [v, `2021-02-${String(10 + i).padStart(2, "0")}T10:00:00.000Z`])),
    maintainers: s.maintainers.map((name) => ({ name, email: `${name}@example.com` })),
    license: s.license,
  }),
  mutations: [
    {
      what: "new version published",
      minSeverity: "medium",
      where: "$['dist-tags'].latest",
      apply: (s) => {
        s.versions.push("4.18.0");
        s.latest = "4.18.0";
      },
    },
    { what: "maintainer removed", minSeverity: "medium", where: "$.maintainers", apply: (s) => void s.maintainers.pop() },
    { what: "license changed", minSeverity: "medium", where: "$.license", apply: (s) => void (s.license = "BUSL-1.1") },
    { what: "latest deprecated", minSeverity: "info", where: "$.versions", apply: (s) => void (s.deprecated = "use lodash-es") },
  ],
};

interface NpmSearch {
  packages: { name: string; version: string; description: string; final: number }[];
}

const npmSearch: Template<NpmSearch> = {
  name: "npm registry GET /-/v1/search",
  kind: "json",
  init: (rng) => ({
    packages: ["zod", "valibot", "yup", "joi", "ajv"].map((name, i) => ({ name, version: `${3 - (i % 2)}.${i}.${int(rng, 0, 9)}`, description: `${name} schema validation`, final: 0.9 - i * 0.05 })),
  }),
  render: (s, t, rng) => ({
    objects: s.packages.map((p) => ({
      package: { name: p.name, scope: "unscoped", version: p.version, description: p.description, keywords: ["schema", "validation"], date: "2026-09-01T10:00:00.000Z", links: { npm: `https://www.npmjs.com/package/${p.name}` } },
      score: { final: p.final * (1 + (rng() - 0.5) * 2e-9), detail: { quality: 0.95 * (1 + (rng() - 0.5) * 2e-9), popularity: 0.8, maintenance: 0.99 } },
      searchScore: 1000 + p.final * (1 + (rng() - 0.5) * 1e-9),
    })),
    total: 5,
    time: new Date(fetchTime(t)).toString().replace(/GMT.*$/, "GMT+0000 (Coordinated Universal Time)"),
  }),
  mutations: [
    { what: "a package's version bumped", minSeverity: "medium", where: "$.objects[*].package.version", apply: (s) => void (s.packages[2]!.version = "5.0.0") },
    { what: "a package dropped out of the results", minSeverity: "medium", where: "$.objects", apply: (s) => void s.packages.splice(3, 1) },
    { what: "a description changed", minSeverity: "info", where: "$.objects[*].package.description", apply: (s) => void (s.packages[0]!.description = "TypeScript-first schema declaration and validation") },
  ],
};

interface StripeEvent {
  type: string;
  amount: number;
  currency: string;
  status: string;
  livemode: boolean;
}

const stripeEvent: Template<StripeEvent> = {
  name: "Stripe-like GET /v1/events/latest",
  kind: "json",
  init: () => ({ type: "invoice.paid", amount: 4900, currency: "usd", status: "paid", livemode: true }),
  render: (s, t, rng) => ({
    id: `evt_${base64url(rng, 24).replace(/[-_]/g, "x")}`,
    object: "event",
    api_version: "2024-06-20",
    created: Math.floor(fetchTime(t) / 1000) - int(rng, 0, 30),
    livemode: s.livemode,
    pending_webhooks: 0,
    request: { id: `req_${base64url(rng, 14).replace(/[-_]/g, "Q")}`, idempotency_key: uuid(rng) },
    type: s.type,
    data: { object: { id: "in_1PQrStUvWxYz0123", object: "invoice", amount_paid: s.amount, currency: s.currency, status: s.status, customer: "cus_QwErTy123456" } },
  }),
  mutations: [
    { what: "amount changed", minSeverity: "medium", where: "$.data.object.amount_paid", apply: (s) => void (s.amount = 5900) },
    { what: "status changed", minSeverity: "medium", where: "$.data.object.status", apply: (s) => void (s.status = "void") },
    { what: "event type changed", minSeverity: "medium", where: "$.type", apply: (s) => void (s.type = "invoice.payment_failed") },
    { what: "switched to test mode", minSeverity: "medium", where: "$.livemode", apply: (s) => void (s.livemode = false) },
  ],
};

interface StripeCustomers {
  customers: { id: string; email: string; delinquent: boolean; balance: number }[];
  hasMore: boolean;
}

const stripeCustomers: Template<StripeCustomers> = {
  name: "Stripe-like GET /v1/customers",
  kind: "json",
  init: (rng) => ({
    customers: ["ada", "grace", "linus", "barbara"].map((n) => ({ id: `cus_${base64url(rng, 14).replace(/[-_]/g, "z")}`, email: `${n}@example.com`, delinquent: false, balance: 0 })),
    hasMore: false,
  }),
  render: (s, t, rng) => ({
    object: "list",
    url: "/v1/customers",
    has_more: s.hasMore,
    data: s.customers.map((c, i) => ({ id: c.id, object: "customer", email: c.email, created: 1700000000 + i * 86400, currency: "eur", delinquent: c.delinquent, balance: c.balance, livemode: true })),
    request_id: `req_${base64url(rng, 14).replace(/[-_]/g, "k")}`,
    fetched_at: iso(fetchTime(t) + int(rng, 0, 999)),
  }),
  mutations: [
    { what: "customer became delinquent", minSeverity: "medium", where: "$.data[*].delinquent", apply: (s) => void (s.customers[1]!.delinquent = true) },
    { what: "customer balance changed", minSeverity: "medium", where: "$.data[*].balance", apply: (s) => void (s.customers[0]!.balance = -2500) },
    { what: "customer added", minSeverity: "info", where: "$.data", apply: (s, rng) => void s.customers.push({ id: `cus_${base64url(rng, 14).replace(/[-_]/g, "z")}`, email: "ken@example.com", delinquent: false, balance: 0 }) },
    { what: "customer deleted", minSeverity: "medium", where: "$.data", apply: (s) => void s.customers.splice(2, 1) },
  ],
};

interface Weather {
  timezone: string;
  unit: string;
  hourly: number[];
  extraHour: boolean;
}

const openMeteo: Template<Weather> = {
  name: "Open-Meteo GET /v1/forecast",
  kind: "json",
  init: (rng) => ({ timezone: "Europe/Berlin", unit: "°C", hourly: Array.from({ length: 6 }, () => Math.round((2 + rng() * 10) * 10) / 10 + 0.05), extraHour: false }),
  render: (s, t, rng) => {
    const jitter = (v: number): number => v * (1 + (rng() - 0.5) * 2e-7);
    return {
      latitude: jitter(52.52),
      longitude: jitter(13.419998),
      generationtime_ms: Math.round(rng() * 100) / 1000 + 0.01,
      utc_offset_seconds: 3600,
      timezone: s.timezone,
      timezone_abbreviation: "CET",
      elevation: 38,
      current_units: { time: "iso8601", interval: "seconds", temperature_2m: s.unit },
      current: { time: iso(fetchTime(t, 15)).slice(0, 16), interval: 900, temperature_2m: jitter(s.hourly[0]!) },
      hourly_units: { temperature_2m: s.unit },
      hourly: { temperature_2m: s.hourly.map(jitter).concat(s.extraHour ? [jitter(4.45)] : []) },
    };
  },
  mutations: [
    { what: "unit switched to Fahrenheit", minSeverity: "medium", where: "$.current_units.temperature_2m", apply: (s) => void (s.unit = "°F") },
    { what: "timezone changed", minSeverity: "medium", where: "$.timezone", apply: (s) => void (s.timezone = "UTC") },
    { what: "forecast value jumped", minSeverity: "info", where: "$.hourly.temperature_2m", apply: (s) => void (s.hourly[3] = s.hourly[3]! + 6.5) },
    { what: "forecast hour added", minSeverity: "info", where: "$.hourly.temperature_2m", apply: (s) => void (s.extraHour = true) },
  ],
};

interface Rates {
  base: string;
  rates: Record<string, number>;
}

const exchangeRates: Template<Rates> = {
  name: "ExchangeRate-API GET /v6/latest/{base}",
  kind: "json",
  init: () => ({ base: "EUR", rates: { EUR: 1, USD: 1.0512, GBP: 0.8321, JPY: 162.31, CHF: 0.9311 } }),
  render: (s, t) => ({
    result: "success",
    documentation: "https://www.exchangerate-api.com/docs",
    time_last_update_unix: Math.floor(fetchTime(t, 60) / 1000),
    time_last_update_utc: new Date(fetchTime(t, 60)).toUTCString(),
    time_next_update_utc: new Date(fetchTime(t + 1, 60)).toUTCString(),
    base_code: s.base,
    conversion_rates: s.rates,
  }),
  mutations: [
    { what: "currency dropped", minSeverity: "medium", where: "$.conversion_rates.CHF", apply: (s) => void delete s.rates["CHF"] },
    { what: "base changed", minSeverity: "medium", where: "$.base_code", apply: (s) => void (s.base = "USD") },
    { what: "rate moved", minSeverity: "info", where: "$.conversion_rates.USD", apply: (s) => void (s.rates["USD"] = 1.0721) },
  ],
};

interface StatusSummary {
  components: { id: string; name: string; status: string }[];
  indicator: string;
  description: string;
  incidents: { id: string; name: string; status: string }[];
}

const statuspage: Template<StatusSummary> = {
  name: "Statuspage GET /api/v2/summary.json",
  kind: "json",
  init: (rng) => ({
    components: ["API", "Dashboard", "Webhooks", "Git Operations"].map((name) => ({ id: hex(rng, 12), name, status: "operational" })),
    indicator: "none",
    description: "All Systems Operational",
    incidents: [],
  }),
  render: (s, t, rng) => ({
    page: { id: "kctbh9vrtdwd", name: "Acme", url: "https://www.acmestatus.com", time_zone: "Etc/UTC", updated_at: iso(fetchTime(t) - int(rng, 0, 5000)) },
    components: s.components.map((c, i) => ({ id: c.id, name: c.name, status: c.status, created_at: "2017-01-31T20:05:05.370Z", position: i + 1, showcase: true, only_show_if_degraded: false })),
    incidents: s.incidents,
    scheduled_maintenances: [],
    status: { indicator: s.indicator, description: s.description },
  }),
  mutations: [
    { what: "component degraded", minSeverity: "medium", where: "$.components[*].status", apply: (s) => void (s.components[2]!.status = "degraded_performance") },
    { what: "overall indicator changed", minSeverity: "medium", where: "$.status.indicator", apply: (s) => void ((s.indicator = "minor"), (s.description = "Minor Service Outage")) },
    { what: "incident opened", minSeverity: "info", where: "$.incidents", apply: (s) => void s.incidents.push({ id: "p31zjtct2jer", name: "Elevated error rates", status: "investigating" }) },
    { what: "component removed", minSeverity: "medium", where: "$.components", apply: (s) => void s.components.pop() },
  ],
};

interface News {
  hits: { id: string; title: string; author: string | undefined; points: number; comments: number; createdMinutes: number }[];
}

const algoliaNews: Template<News> = {
  name: "HN Algolia GET /api/v1/search?tags=front_page",
  kind: "json",
  init: (rng) => ({
    hits: ["Show HN: A tiny diff engine", "Why SQLite is enough", "The state of WebAssembly", "Postgres 18 released", "A history of cron"].map((title, i) => ({
      id: String(41000000 + i * 37),
      title,
      author: pick(rng, ["pg", "dang", "tptacek", "jgrahamc", "patio11"]),
      points: int(rng, 50, 400),
      comments: int(rng, 5, 200),
      createdMinutes: 30 + i * 40,
    })),
  }),
  render: (s, t, rng) => {
    for (const h of s.hits) {
      h.points += int(rng, 1, 25);
      h.comments += int(rng, 1, 6);
    }
    const ranked = [...s.hits].sort((a, b) => b.points / (a.createdMinutes + 60) - a.points / (b.createdMinutes + 60) || (rng() < 0.5 ? -1 : 1));
    return {
      hits: ranked.map((h) => ({
        objectID: h.id,
        title: h.title,
        url: `https://example.com/${h.id}`,
        ...(h.author === undefined ? {} : { author: h.author }),
        points: h.points,
        num_comments: h.comments,
        created_at: iso(Date.UTC(2026, 10, 20, 6, 0) - h.createdMinutes * 60_000),
        story_id: Number(h.id),
      })),
      nbHits: s.hits.length,
      page: 0,
      hitsPerPage: 30,
      exhaustiveNbHits: true,
      query: "",
      params: "tags=front_page",
      processingTimeMS: int(rng, 1, 30),
      serverTimeMS: int(rng, 2, 40),
    };
  },
  mutations: [
    { what: "story added", minSeverity: "info", where: "$.hits", apply: (s) => void s.hits.push({ id: "41009999", title: "Ask HN: Who is hiring?", author: "whoishiring", points: 10, comments: 1, createdMinutes: 5 }) },
    { what: "story retitled", minSeverity: "info", where: "$.hits[*].title", apply: (s) => void (s.hits[1]!.title = "Why SQLite is enough (2026)") },
    { what: "story author field dropped", minSeverity: "medium", where: "$.hits[*].author", apply: (s) => void s.hits.forEach((h) => void (h.author = undefined)) },
  ],
};

interface Product {
  title: string;
  variants: { id: number; title: string; price: string; stock: number; available: boolean }[];
  tags: string;
}

const shopifyProduct: Template<Product> = {
  name: "Shopify GET /products/{handle}.json",
  kind: "json",
  init: (rng) => ({
    title: "Classic Organic Tee",
    variants: ["S", "M", "L", "XL"].map((size, i) => ({ id: 44000000000 + i, title: size, price: "24.90", stock: int(rng, 200, 500), available: true })),
    tags: "cotton, organic, unisex",
  }),
  render: (s, t, rng) => ({
    product: {
      id: 8123456789,
      title: s.title,
      handle: "classic-organic-tee",
      vendor: "Acme Apparel",
      product_type: "T-Shirt",
      created_at: "2025-03-01T09:00:00-05:00",
      updated_at: new Date(fetchTime(t) - int(rng, 0, 90) * 1000 - 5 * 3600_000).toISOString().replace(/\.\d{3}Z$/, "-05:00"),
      published_at: "2025-03-01T09:05:00-05:00",
      tags: s.tags,
      variants: s.variants.map((v, i) => {
        v.stock -= int(rng, 1, 4);
        return { id: v.id, product_id: 8123456789, title: v.title, price: v.price, sku: `TEE-${v.title}`, position: i + 1, inventory_quantity: v.stock, available: v.available, updated_at: "2025-11-01T10:00:00-05:00" };
      }),
      images: [{ id: 3500000001, src: "https://cdn.shopify.com/s/files/1/tee.jpg", width: 2048, height: 2048 }],
    },
  }),
  mutations: [
    { what: "price raised", minSeverity: "medium", where: "$.product.variants[*].price", apply: (s) => s.variants.forEach((v) => void (v.price = "29.90")) },
    { what: "variant sold out", minSeverity: "medium", where: "$.product.variants[*].available", apply: (s) => void (s.variants[3]!.available = false) },
    { what: "variant removed", minSeverity: "medium", where: "$.product.variants", apply: (s) => void s.variants.splice(0, 1) },
    { what: "variant added", minSeverity: "info", where: "$.product.variants", apply: (s) => void s.variants.push({ id: 44000000009, title: "XXL", price: "26.90", stock: 50, available: true }) },
  ],
};

interface Search {
  timedOut: boolean;
  relation: string;
  docs: { id: string; title: string; year: number; rating?: number }[];
}

const elasticsearch: Template<Search> = {
  name: "Elasticsearch POST /{index}/_search",
  kind: "json",
  init: () => ({
    timedOut: false,
    relation: "eq",
    docs: [
      { id: "tt0111161", title: "The Shawshank Redemption", year: 1994, rating: 9.3 },
      { id: "tt0068646", title: "The Godfather", year: 1972, rating: 9.2 },
      { id: "tt0468569", title: "The Dark Knight", year: 2008, rating: 9 },
    ],
  }),
  render: (s, t, rng) => ({
    took: int(rng, 2, 40),
    timed_out: s.timedOut,
    _shards: { total: 5, successful: 5, skipped: 0, failed: 0 },
    hits: {
      total: { value: s.docs.length, relation: s.relation },
      max_score: 1.2876821,
      hits: s.docs.map((d, i) => ({ _index: "movies", _id: d.id, _score: 1.2876821 - i * 0.1, _source: { title: d.title, year: d.year, ...(d.rating === undefined ? {} : { rating: d.rating }) } })),
    },
  }),
  mutations: [
    { what: "search timed out", minSeverity: "medium", where: "$.timed_out", apply: (s) => void (s.timedOut = true) },
    { what: "hit count relation changed", minSeverity: "medium", where: "$.hits.total.relation", apply: (s) => void (s.relation = "gte") },
    { what: "field removed from a document", minSeverity: "medium", where: "$.hits.hits[*]._source.rating", apply: (s) => void delete s.docs[1]!.rating },
    { what: "year turned into a string", minSeverity: "medium", where: "$.hits.hits[*]._source.year", apply: (s) => void ((s.docs[0] as { year: unknown }).year = "1994") },
  ],
};

interface Health {
  db: string;
  disk: string;
  redis: boolean;
  version: string;
}

const actuatorHealth: Template<Health> = {
  name: "Spring Boot GET /actuator/health",
  kind: "json",
  init: () => ({ db: "UP", disk: "UP", redis: true, version: "3.4.1" }),
  render: (s, t, rng) => ({
    status: s.db === "UP" && s.disk === "UP" ? "UP" : "DOWN",
    components: {
      db: { status: s.db, details: { database: "PostgreSQL", validationQuery: "isValid()" } },
      diskSpace: { status: s.disk, details: { total: 499963174912, free: 210000000000 - t * 500000 - int(rng, 0, 1000), threshold: 10485760, exists: true } },
      ping: { status: "UP" },
      ...(s.redis ? { redis: { status: "UP", details: { version: "7.2.4" } } } : {}),
    },
    build: { version: s.version, artifact: "orders-service" },
    uptime_seconds: 86400 + t * 300 + int(rng, 0, 3),
    timestamp: fetchTime(t) + int(rng, 0, 999),
    requestId: uuid(rng),
  }),
  mutations: [
    { what: "database down", minSeverity: "medium", where: "$.components.db.status", apply: (s) => void (s.db = "DOWN") },
    { what: "redis component gone", minSeverity: "medium", where: "$.components.redis", apply: (s) => void (s.redis = false) },
    { what: "new build deployed", minSeverity: "medium", where: "$.build.version", apply: (s) => void (s.version = "3.5.0") },
  ],
};

interface Flags {
  flags: Record<string, { on: boolean; variation: number; version: number }>;
}

const featureFlags: Template<Flags> = {
  name: "LaunchDarkly-like GET /sdk/latest-flags",
  kind: "json",
  init: () => ({
    flags: {
      "new-checkout": { on: true, variation: 1, version: 42 },
      "dark-mode": { on: false, variation: 0, version: 7 },
      "beta-search": { on: true, variation: 2, version: 19 },
    },
  }),
  render: (s, t, rng) => ({
    flags: s.flags,
    _meta: { fetched_at: iso(fetchTime(t, 1) + int(rng, 0, 999)), etag: `W/"${hex(rng, 16)}"`, request_id: uuid(rng), csrf_token: base64url(rng, 32) },
  }),
  mutations: [
    { what: "flag turned off", minSeverity: "medium", where: "$.flags['new-checkout'].on", apply: (s) => void ((s.flags["new-checkout"] = { on: false, variation: 1, version: 43 })) },
    { what: "flag deleted", minSeverity: "medium", where: "$.flags['dark-mode']", apply: (s) => void delete s.flags["dark-mode"] },
    { what: "flag added", minSeverity: "info", where: "$.flags['one-click']", apply: (s) => void (s.flags["one-click"] = { on: false, variation: 0, version: 1 }) },
  ],
};

interface Builds {
  runs: { id: number; name: string; conclusion: string; sha: string }[];
  total: number;
}

const githubRuns: Template<Builds> = {
  name: "GitHub GET /repos/{owner}/{repo}/actions/runs?branch=main&per_page=3",
  kind: "json",
  init: (rng) => ({ runs: [3, 2, 1].map((n) => ({ id: 9100000000 + n, name: "CI", conclusion: "success", sha: hex(rng, 40) })), total: 3 }),
  render: (s, t, rng: Rng) => ({
    total_count: s.total,
    workflow_runs: s.runs.map((r) => ({
      id: r.id,
      name: r.name,
      head_branch: "main",
      head_sha: r.sha,
      status: "completed",
      conclusion: r.conclusion,
      run_number: r.id - 9100000000,
      event: "push",
      created_at: "2026-11-19T10:00:00Z",
      run_started_at: "2026-11-19T10:00:05Z",
      cache_hit_ratio: 0.875 * (1 + (rng() - 0.5) * 1e-9),
    })),
    rate_limit_remaining: 5000 - t * 3 - int(rng, 0, 2),
    x_github_request_id: `${hex(rng, 4).toUpperCase()}:${hex(rng, 6).toUpperCase()}:${hex(rng, 7).toUpperCase()}:${hex(rng, 8).toUpperCase()}:${hex(rng, 8).toUpperCase()}`,
  }),
  mutations: [
    { what: "latest run failed", minSeverity: "medium", where: "$.workflow_runs[*].conclusion", apply: (s) => void (s.runs[0]!.conclusion = "failure") },
    { what: "new run appeared", minSeverity: "info", where: "$.workflow_runs", apply: (s, rng) => void (s.runs.unshift({ id: 9100000004, name: "CI", conclusion: "success", sha: hex(rng, 40) }), (s.total = 4)) },
    { what: "a run was deleted", minSeverity: "medium", where: "$.workflow_runs", apply: (s) => void (s.runs.pop(), (s.total = 2)) },
  ],
};

// Fields that change while the learner watches but mean something: a check status that flapped
// and a fare that moved are kept, so their later changes are still reported.
interface Check {
  status: string;
  paused: boolean;
  tags: string[];
}

const uptimeCheck: Template<Check> = {
  name: "Uptime-monitor-like GET /api/v1/checks/{id}",
  kind: "json",
  init: () => ({ status: "up", paused: false, tags: ["prod", "api"] }),
  render: (s, t, rng) => ({
    id: 401,
    name: "api.example.com",
    // It was down once while the learner watched.
    status: t === 2 ? "down" : s.status,
    paused: s.paused,
    tags: s.tags,
    last_ping_at: iso(fetchTime(t, 1) - int(rng, 0, 30_000)),
    last_response_time_ms: int(rng, 80, 400),
    checks_total: 52000 + t * 12,
  }),
  mutations: [
    { what: "check went down", minSeverity: "info", where: "$.status", apply: (s) => void (s.status = "down") },
    { what: "check paused", minSeverity: "medium", where: "$.paused", apply: (s) => void (s.paused = true) },
    { what: "tag added", minSeverity: "info", where: "$.tags", apply: (s) => void s.tags.push("eu") },
  ],
};

interface Fare {
  fare: string;
  currency: string;
  refundable: boolean;
  seats: number;
}

const flightFare: Template<Fare> = {
  name: "airline-like GET /v2/offers/{id}",
  kind: "json",
  init: () => ({ fare: "189.00", currency: "EUR", refundable: true, seats: 9 }),
  render: (s, t, rng) => ({
    id: "off_0000AbCdEfGh",
    // Dynamic pricing: the fare moved twice while the learner watched.
    total_amount: t === 1 ? "199.00" : t === 4 ? "179.00" : s.fare,
    total_currency: s.currency,
    conditions: { refund_before_departure: { allowed: s.refundable } },
    available_seats: s.seats,
    expires_at: iso(fetchTime(t, 10) + 1_800_000),
    request_id: `req_${hex(rng, 20)}`,
  }),
  mutations: [
    { what: "fare changed", minSeverity: "info", where: "$.total_amount", apply: (s) => void (s.fare = "249.00") },
    { what: "currency changed", minSeverity: "medium", where: "$.total_currency", apply: (s) => void (s.currency = "USD") },
    { what: "no longer refundable", minSeverity: "medium", where: "$.conditions.refund_before_departure.allowed", apply: (s) => void (s.refundable = false) },
  ],
};

/** The templates, for corpora that replay them over other schedules (world-corpus.ts). */
export const JSON_TEMPLATES = [
  githubRepo,
  githubReleases,
  npmPackument,
  npmSearch,
  stripeEvent,
  stripeCustomers,
  openMeteo,
  exchangeRates,
  statuspage,
  algoliaNews,
  shopifyProduct,
  elasticsearch,
  actuatorHealth,
  featureFlags,
  githubRuns,
  uptimeCheck,
  flightFare,
] as Template<unknown>[];

/** 51 JSON histories: three scenarios per template. */
export function jsonHistories(): History[] {
  return JSON_TEMPLATES.flatMap((template) => historiesOf(template, 3));
}
