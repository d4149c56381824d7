// The help text of the `driftwatch` command (main.ts prints it; each command prints it for --help).
export const USAGE = `Usage: driftwatch <command> [options]

Commands:
  serve          Run the server (API, scheduler, webhook delivery)
                   --port 8080  --host 127.0.0.1
                   --database sqlite:./.driftwatch/driftwatch.db | postgres://... | memory:
                   --allow-private-networks  --rate-limit-reads 600  --rate-limit-writes 120
                   --demo (built-in demo target, monitors and webhook receiver)
                   --log-format pretty|json (default: pretty on a terminal, else json)
                   --role all|api|worker (default all; api: no checks or deliveries;
                     worker: checks and deliveries, HTTP only /healthz /readyz /metrics)
                   --check-concurrency n (default 4 per core, 4..64)  --per-host-concurrency 2
                   --warmup-samples 2  --warmup-interval-ms 1000 (extra fetches in the first check
                     of a learning monitor, and after its target changed; 0: none)
                   --learning-samples 3 (a learning monitor's diffs are \`learning\` diffs until it
                     learned from this many contents)
                   --queue pg-boss|leases (default pg-boss on PostgreSQL, leases otherwise)
  token create   Print a new API token: --org <slug> [--name n] [--scopes a,b] [--database url]
  store copy     Copy a whole database, e.g. SQLite to PostgreSQL and back, verified by checksums:
                   --from <url> --to <url> [--resume] [--batch-size 200]
  user create    Create a user who signs in to the dashboard (scripted installs; else the setup link):
                   --email <address> --org <slug> [--role owner|admin|member|viewer] [--name "..."]
                   [--password-stdin] (else DRIFTWATCH_USER_PASSWORD, else a generated one, printed once)
  backup         Online backup of a SQLite store: <file> [--database sqlite:...] [--force]
  restore        Put a backup back (server stopped): <file> [--database sqlite:...] [--force]
  doctor         Check store, browser, egress and clock; print what to fix [--database url]
  diff           Diff two JSON files: <before.json> <after.json> [--rules rules.json] [--explain] [--json]
                   exit 0 no change, 1 changed, 2 error; --explain: which rule or inference hid or rated each change
  api-diff       Compare two OpenAPI 3.0/3.1 documents (files or URLs) and print the API changes:
                   <base> <revision> [--format text|json] [--fail-on breaking|potentially-breaking|none]
                   exit 1 a change at or above --fail-on (default breaking), 0 none, 2 unreadable input
  learn          Fetch a target a few times and print the policy learned from its noise, with evidence:
                   <url> [--samples 5] [--interval 2s] [--selector css] [--kind json|html]
                   [--allow-private-networks] [--json]
  notify test    Send a sample change to a notification channel and print the service's answer:
                   <channel-url> (Apprise syntax: slack://, discord://, tgram://, mailto://, ntfy://, ...)
                   [--template file] [--allow-private-networks] [--json]

Options:
  --help, -h     Show this help (also: driftwatch <command> --help)
  --version, -v  Show the version

Environment: DRIFTWATCH_PORT, DRIFTWATCH_HOST, DRIFTWATCH_DATABASE_URL,
DRIFTWATCH_ALLOW_PRIVATE_NETWORKS, DRIFTWATCH_RATE_LIMIT_READS, DRIFTWATCH_RATE_LIMIT_WRITES,
DRIFTWATCH_ADMIN_TOKEN, DRIFTWATCH_CHROMIUM_PATH. Flags win over the environment.
Tuning: DRIFTWATCH_LOG_LEVEL, DRIFTWATCH_LOG_FORMAT, DRIFTWATCH_BODY_LIMIT_BYTES, DRIFTWATCH_SHUTDOWN_TIMEOUT_MS,
DRIFTWATCH_LEASE_MS, DRIFTWATCH_ROLE, DRIFTWATCH_QUEUE, DRIFTWATCH_CHECK_CONCURRENCY, DRIFTWATCH_PER_HOST_CONCURRENCY,
DRIFTWATCH_WARMUP_SAMPLES, DRIFTWATCH_WARMUP_INTERVAL_MS, DRIFTWATCH_LEARNING_SAMPLES,
DRIFTWATCH_CHECK_WAIT_MS, DRIFTWATCH_HEAP (lean/node), DRIFTWATCH_POLL_INTERVAL_MS, DRIFTWATCH_ORG_SHARE_PERCENT,
DRIFTWATCH_WEBHOOK_ENDPOINT_CONCURRENCY, DRIFTWATCH_SECRET_KEY, DRIFTWATCH_SCREENSHOT_DIR,
DRIFTWATCH_TRUST_PROXY, DRIFTWATCH_TRUST_PROXY_HOPS (proxies in front: 2 for a CDN before nginx),
DRIFTWATCH_METRICS_TOKEN, DRIFTWATCH_METRICS_LISTEN (see docs/deployment.md).
People: DRIFTWATCH_PUBLIC_URL, DRIFTWATCH_SMTP_URL, DRIFTWATCH_SMTP_FROM, DRIFTWATCH_SESSION_IDLE_SECONDS,
DRIFTWATCH_SESSION_MAX_AGE_SECONDS, DRIFTWATCH_LOGIN_ACCOUNT_LIMIT, DRIFTWATCH_LOGIN_ADDRESS_LIMIT,
DRIFTWATCH_SCRYPT_LOG_N (see docs/people.md).
`;
