// The thirteenth round's payloads ("fresh7": kinds of target an operator watches that the corpus
// lacked): a message broker's management API (RabbitMQ: the overview, its nodes, its queues), a
// Kafka consumer-lag monitor (Burrow), a container engine's API (Docker: the engine's info, a
// container's stats, swarm services), an HPC scheduler's REST API (Slurm: jobs, nodes,
// partitions), a document database's server and database statistics (RavenDB), a disk's health
// report (smartctl's JSON of an NVMe drive), a PHP-FPM pool's status, a log database's query API
// (Loki: an instant vector), the metrics endpoints of a scheduler and a service mesh (Nomad,
// Consul), a log shipper's stats (Filebeat), a document database cluster's pool (Couchbase) and
// saved pages of kinds the corpus had few of (an install guide, a repository page, a job listing,
// a publisher's product page, a download page, an about page, a game wiki's article, a product
// test, an imprint). Taken like extract-fresh6.mjs takes the twelfth round's (run once by hand,
// not by the tests): `node extract-fresh7.mjs <mirror root>` where the mirror root holds bare
// clones named owner+name/repo. It writes the payloads and APPENDS their entries to sources.json
// (a file already listed is left as it is). Payloads are trimmed as extract.mjs trims them: arrays
// to 30 elements, pages as trimPage says (< 8 KB); a page whose trimmed text has no paragraph is
// skipped.
//
// Measurement targets by extract-fresh2.mjs's rule, decided from what the endpoint is and before
// any measurement: live statistics are (a broker's overview, nodes and queues with their depths
// and rates, consumer lag, a container's stats, a scheduler's nodes with their load and free
// memory, a database server's and its databases' statistics, a disk's SMART report, a PHP-FPM
// pool's status, a log query's rates, metrics endpoints, a log shipper's stats, a cluster pool's
// node statistics); an engine's info, services, jobs, partitions and pages are not.
//
// Provenance: all JSON payloads are Telegraf's input plugins' test data (influxdata/telegraf, MIT):
// responses its authors recorded from the services (some names and identifiers replaced by them).
// The pages are go-trafilatura's comparison set (markusmobius/go-trafilatura, Apache-2.0; none of
// them a page the corpus has from trafilatura's own set).
import { saveFixtures, savePages, sourceList } from "./extract-lib.mjs";

const { save, write } = sourceList({ append: true });
const M = true; // a measurement target (the rule above)
const N = false;
const T = "influxdata/telegraf";
const p = (f) => `plugins/inputs/${f}`;

saveFixtures(save, [
  // RabbitMQ's management API
  [T, "rabbitmq", "MIT", [["overview", "overview.json"], ["nodes", "nodes.json"], ["queues", "queues.json"]].map(([f, file]) => [p(`rabbitmq/testdata/set2/${f}.json`), file, M])],
  // Burrow (Kafka consumer lag): a consumer group's lag by partition
  [T, "burrow", "MIT", [[p("burrow/testdata/v3_kafka_clustername1_consumer_group1_lag.json"), "consumer-lag.json", M]]],
  // Docker Engine's API: the engine's info, a container's stats, swarm services
  [
    T,
    "docker",
    "MIT",
    [
      [p("docker/testdata/info.json"), "info.json", N],
      [p("docker/testdata/stats_9bc6faf9ba8106fae32e8faafd38a1dd6f6d262bec172398cc10bc03c0d6841a.json"), "container-stats.json", M],
      [p("docker/testdata/services.json"), "services.json", N],
    ],
  ],
  // Slurm's REST API (v0.0.38)
  [T, "slurm", "MIT", [["jobs", N], ["nodes", M], ["partitions", N]].map(([f, m]) => [p(`slurm/testcases/gather/responses/${f}.json`), `${f}.json`, m])],
  // RavenDB's monitoring endpoints
  [T, "ravendb", "MIT", [["server_full", "server.json"], ["databases_full", "databases.json"]].map(([f, file]) => [p(`ravendb/testdata/${f}.json`), file, M])],
  // smartctl --json of an NVMe drive
  [T, "smartctl", "MIT", [[p("smartctl/testcases_device/nvme/response.json"), "nvme.json", M]]],
  // PHP-FPM's status page (?json&full)
  [T, "phpfpm", "MIT", [[p("phpfpm/testdata/phpfpm.json"), "status.json", M]]],
  // Loki's query API: an instant vector
  [T, "loki", "MIT", [[p("logql/testcases/instant_vector/response_query.json"), "instant-vector.json", M]]],
  // Nomad's and Consul's metrics endpoints (/v1/metrics)
  [T, "hashicorp", "MIT", [[p("nomad/testdata/response_key_metrics.json"), "nomad-metrics.json", M], [p("consul_agent/testdata/response_key_metrics.json"), "consul-metrics.json", M]]],
  // Filebeat's stats endpoint
  [T, "beats", "MIT", [[p("beat/beat6_stats.json"), "filebeat-stats.json", M]]],
  // Couchbase's pools/default (the cluster's nodes with their statistics)
  [T, "couchbase", "MIT", [[p("couchbase/testdata/pools_default_response.json"), "pools-default.json", M]]],
]);

// Saved pages, trimmed as extract.mjs trims them: go-trafilatura's comparison set
// (test-files/comparison/, Apache-2.0): [repository, directory here, licence, [path in the
// repository, file name here]].
savePages(save, [
  [
    "markusmobius/go-trafilatura",
    "go-trafilatura",
    "Apache-2.0",
    [
      ["docs.docker.com.install.html", "docker-install-docs.html"],
      ["github.com.yapapi.html", "github-repository.html"],
      ["jobsnhire.com.health.html", "job-listing.html"],
      ["springer.com-produkte.html", "springer-products.html"],
      ["wiki.python.org.Download.html", "python-download.html"],
      ["shabka.org.about.html", "shabka-about.html"],
      ["stardewvalleywiki.com.penny.html", "stardew-wiki-article.html"],
      ["nestle-marktplatz.de-produkttest.html", "product-test.html"],
      ["markeich.de.impressum.html", "imprint.html"],
    ].map(([f, file]) => [`test-files/comparison/${f}`, file]),
  ],
]);

write();
