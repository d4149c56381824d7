// HTML histories modelled on public pages: a news front page, a status page, a product page, a
// blog post, a job board, a documentation page and a pricing page. Noise: relative times,
// counters, server times, build stamps, rotating promos, CSRF tokens and cache-busting asset URLs.
import { base64url, fetchTime, hex, historiesOf, type History, int, type Rng, type Template } from "./corpus.js";

const page = (title: string, body: string, rng: Rng, t: number): string =>
  `<!doctype html><html><head><title>${title}</title>` +
  `<link rel="stylesheet" href="/assets/app.css?v=${1732000000 + t * 300}">` +
  `<meta name="csrf-token" content="${base64url(rng, 43)}">` +
  `<script src="/assets/app.js?${hex(rng, 10)}"></script></head>` +
  `<body><form action="/search"><input type="hidden" name="authenticity_token" value="${base64url(rng, 43)}"></form>${body}</body></html>`;

const ago = (minutes: number): string => (minutes < 60 ? `${minutes} minutes ago` : `${Math.floor(minutes / 60)} hours ago`);
const clock = (ms: number): string => new Date(ms).toISOString().slice(11, 19);

interface Front {
  stories: { title: string; site: string; points: number; age: number; comments: number }[];
}

const newsFront: Template<Front> = {
  name: "news front page",
  kind: "html",
  init: (rng) => ({
    stories: ["A tiny diff engine in 500 lines", "Why SQLite is enough", "The state of WebAssembly in 2026", "Postgres 18 released", "A history of cron"].map((title, i) => ({
      title,
      site: ["github.com", "sqlite.org", "wasm.dev", "postgresql.org", "lwn.net"][i]!,
      points: int(rng, 50, 300),
      age: 20 + i * 7,
      comments: int(rng, 5, 90),
    })),
  }),
  render: (s, t, rng) => {
    for (const st of s.stories) {
      st.points += int(rng, 1, 20);
      st.age += 5;
      st.comments += int(rng, 1, 5);
    }
    const items = s.stories
      .map((st) => `<li class="story"><h3><a href="https://${st.site}/">${st.title}</a> <span class="site">(${st.site})</span></h3><p class="meta">${st.points} points by someone ${ago(st.age)} | ${st.comments} comments</p></li>`)
      .join("");
    return page("Front page", `<header><h1>News</h1></header><ol id="stories">${items}</ol><footer><p>Page generated at ${clock(fetchTime(t) + int(rng, 0, 999))} UTC</p></footer>`, rng, t);
  },
  mutations: [
    { what: "story added", minSeverity: "info", where: "Ask: who is hiring", apply: (s) => void s.stories.unshift({ title: "Ask: who is hiring", site: "news.example", points: 5, age: 1, comments: 0 }) },
    { what: "headline changed", minSeverity: "info", where: "Postgres 18.1 released", apply: (s) => void (s.stories[3]!.title = "Postgres 18.1 released") },
    { what: "story removed", minSeverity: "info", where: "A history of cron", apply: (s) => void s.stories.pop() },
  ],
};

interface Status {
  components: { name: string; status: string }[];
  banner: string | undefined;
}

const statusPage: Template<Status> = {
  name: "status page",
  kind: "html",
  selector: "main",
  init: () => ({ components: ["API", "Dashboard", "Webhooks", "Background jobs"].map((name) => ({ name, status: "Operational" })), banner: undefined }),
  render: (s, t, rng) => {
    const rows = s.components.map((c) => `<li class="component"><h4>${c.name}</h4><p class="state">${c.status}</p></li>`).join("");
    const banner = s.banner ? `<section class="incident"><h2>${s.banner}</h2></section>` : "";
    return page(
      "Acme Status",
      `<nav><a href="/">Acme</a> <a href="/history">History</a></nav><main>${banner}<h1>All systems status</h1><ul>${rows}</ul>` +
        `<p id="updated">Last updated ${int(rng, 1, 59)} seconds ago</p><p id="latency">API response time ${int(rng, 80, 140)} ms</p></main>` +
        `<footer><p>Server time ${clock(fetchTime(t))}</p></footer>`,
      rng,
      t,
    );
  },
  mutations: [
    { what: "component degraded", minSeverity: "info", where: "Degraded performance", apply: (s) => void (s.components[2]!.status = "Degraded performance") },
    { what: "incident posted", minSeverity: "info", where: "Elevated error rates", apply: (s) => void (s.banner = "Elevated error rates on the API") },
    { what: "component removed", minSeverity: "info", where: "Background jobs", apply: (s) => void s.components.pop() },
  ],
};

interface ProductPage {
  title: string;
  price: string;
  button: string;
  viewers: number;
  promo: number;
}

const PROMOS = ["Free shipping on orders over $50 today", "Join our newsletter and get 10 % off", "New arrivals every week in our summer collection"];

const productPage: Template<ProductPage> = {
  name: "e-commerce product page",
  kind: "html",
  init: (rng) => ({ title: "Classic Organic Tee", price: "$24.90", button: "Add to cart", viewers: int(rng, 10, 40), promo: int(rng, 0, 2) }),
  render: (s, t, rng) => {
    s.promo = (s.promo + 1) % PROMOS.length;
    return page(
      s.title,
      `<div class="promo-bar">${PROMOS[s.promo]}</div><main><h1>${s.title}</h1><p class="price">${s.price}</p>` +
        `<p class="viewers">${int(rng, 5, 60)} people are viewing this right now</p><p>Soft, breathable organic cotton. Machine washable.</p>` +
        `<button>${s.button}</button><p class="stock">Only ${90 - t * 2 - int(rng, 0, 1)} left in stock</p>` +
        `<img src="/img/tee.jpg?v=${fetchTime(t)}" alt="tee"></main>`,
      rng,
      t,
    );
  },
  mutations: [
    { what: "price changed", minSeverity: "info", where: "$29.90", apply: (s) => void (s.price = "$29.90") },
    { what: "sold out", minSeverity: "info", where: "Sold out", apply: (s) => void (s.button = "Sold out") },
    { what: "product renamed", minSeverity: "info", where: "Classic Organic Tee v2", apply: (s) => void (s.title = "Classic Organic Tee v2") },
  ],
};

interface Post {
  paragraphs: string[];
  tags: string;
  trending: number;
}

const TRENDING = ["How we cut our cloud bill in half", "Ten years of writing Rust at work", "What I learned building a search engine", "A gentle guide to CRDTs"];

const blogPost: Template<Post> = {
  name: "blog post",
  kind: "html",
  selector: "#content",
  init: () => ({
    paragraphs: ["We moved our monitoring to a diff-based approach last spring.", "The biggest win was silence: no more alerts for timestamps.", "Here is how the rules are learned from a handful of fetches."],
    tags: "Tags: monitoring, ops",
    trending: 0,
  }),
  render: (s, t, rng) => {
    s.trending = (s.trending + 1) % TRENDING.length;
    return page(
      "Silence is a feature",
      `<div id="content"><article><h1>Silence is a feature</h1><p class="byline">Posted ${ago(120 + t * 5)} by Dana</p>` +
        s.paragraphs.map((p) => `<p>${p}</p>`).join("") +
        `<p class="tags">${s.tags}</p><p class="comments">${14 + t * 2 + int(rng, 0, 1)} comments</p></article>` +
        `<aside><h2>Trending</h2><p class="trending">${TRENDING[s.trending]}</p></aside></div>` +
        `<footer><p>Rendered in ${(rng() * 0.3).toFixed(3)} s</p></footer>`,
      rng,
      t,
    );
  },
  mutations: [
    { what: "paragraph edited", minSeverity: "info", where: "from five fetches", apply: (s) => void (s.paragraphs[2] = "Here is how the rules are learned from five fetches.") },
    { what: "paragraph added", minSeverity: "info", where: "Update: we open-sourced it", apply: (s) => void s.paragraphs.push("Update: we open-sourced it.") },
    { what: "tags changed", minSeverity: "info", where: "Tags: monitoring, ops, sre", apply: (s) => void (s.tags = "Tags: monitoring, ops, sre") },
  ],
};

interface Jobs {
  jobs: { title: string; place: string }[];
}

const jobBoard: Template<Jobs> = {
  name: "job board",
  kind: "html",
  init: () => ({ jobs: [{ title: "Senior Backend Engineer", place: "Berlin" }, { title: "Site Reliability Engineer", place: "Remote" }, { title: "Frontend Engineer", place: "Lisbon" }] }),
  render: (s, t, rng) =>
    page(
      "Jobs at Acme",
      `<main><h1>Join Acme</h1><p id="count">${1200 + t * 3 + int(rng, 0, 2)} people applied this month</p><div id="jobs">` +
        s.jobs.map((j) => `<div class="job"><h2>${j.title}</h2><p>${j.place}</p></div>`).join("") +
        `</div><p id="refreshed">Refreshed ${int(rng, 2, 50)} minutes ago</p></main>`,
      rng,
      t,
    ),
  mutations: [
    { what: "job added", minSeverity: "info", where: "Staff Data Engineer", apply: (s) => void s.jobs.push({ title: "Staff Data Engineer", place: "Remote" }) },
    { what: "job closed", minSeverity: "info", where: "Frontend Engineer", apply: (s) => void (s.jobs = s.jobs.filter((j) => j.title !== "Frontend Engineer")) },
    { what: "job moved", minSeverity: "info", where: "Hamburg", apply: (s) => void (s.jobs[0]!.place = "Hamburg") },
  ],
};

interface Docs {
  notice: string | undefined;
  example: string;
  sections: string[];
}

const docsPage: Template<Docs> = {
  name: "documentation page",
  kind: "html",
  selector: "article",
  init: () => ({ notice: undefined, example: "client.monitors.create({ url })", sections: ["Installation", "Quick start", "Configuration", "Webhooks"] }),
  render: (s, t, rng) =>
    page(
      "Docs",
      `<nav><p>v2.3</p></nav><article>${s.notice ? `<div class="admonition"><p>${s.notice}</p></div>` : ""}<h1>Getting started</h1>` +
        s.sections.map((x) => `<h2>${x}</h2><p>About ${x.toLowerCase()}.</p>`).join("") +
        `<pre><code>${s.example}</code></pre><p class="build">Built ${new Date(fetchTime(t) - int(rng, 0, 59_000)).toISOString()} from ${hex(rng, 7)}</p></article>`,
      rng,
      t,
    ),
  mutations: [
    { what: "deprecation notice added", minSeverity: "info", where: "deprecated", apply: (s) => void (s.notice = "This API is deprecated and will be removed in v3.") },
    { what: "code example changed", minSeverity: "info", where: "client.monitors.create({ url, interval })", apply: (s) => void (s.example = "client.monitors.create({ url, interval })") },
    { what: "section removed", minSeverity: "info", where: "Webhooks", apply: (s) => void s.sections.pop() },
  ],
};

interface Pricing {
  plans: { name: string; price: string; seats: string }[];
}

const pricingPage: Template<Pricing> = {
  name: "pricing page",
  kind: "html",
  init: () => ({
    plans: [
      { name: "Hobby", price: "$0 / month", seats: "1 seat" },
      { name: "Team", price: "$29 / month", seats: "10 seats" },
      { name: "Business", price: "$99 / month", seats: "Unlimited seats" },
    ],
  }),
  render: (s, t, rng) =>
    page(
      "Pricing",
      `<main><h1>Pricing</h1><p id="online">${int(rng, 300, 900)} teams online now</p><table><tbody>` +
        s.plans.map((p) => `<tr><th>${p.name}</th><td>${p.price}</td><td>${p.seats}</td></tr>`).join("") +
        `</tbody></table><p class="servertime">Prices as of ${clock(fetchTime(t))} UTC</p></main>`,
      rng,
      t,
    ),
  mutations: [
    { what: "plan price raised", minSeverity: "info", where: "$39 / month", apply: (s) => void (s.plans[1]!.price = "$39 / month") },
    { what: "plan removed", minSeverity: "info", where: "Business", apply: (s) => void s.plans.pop() },
    { what: "seats changed", minSeverity: "info", where: "5 seats", apply: (s) => void (s.plans[1]!.seats = "5 seats") },
  ],
};

/** The templates, for corpora that replay them over other schedules (world-corpus.ts). */
export const HTML_TEMPLATES = [newsFront, statusPage, productPage, blogPost, jobBoard, docsPage, pricingPage] as Template<unknown>[];

/** 21 HTML histories: three scenarios per template. */
export function htmlHistories(): History[] {
  return HTML_TEMPLATES.flatMap((template) => historiesOf(template, 3));
}
