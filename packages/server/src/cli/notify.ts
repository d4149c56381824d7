import { readFileSync } from "node:fs";
import path from "node:path";
import { createNotifier, createTestNotification, isNotifyError, type SendResult } from "@driftwatch/notify";
import { ConfigError, parseArgs, parseBoolean } from "../config/index.js";
import { type CliIo, EXIT_ERROR } from "./io.js";

export const NOTIFY_USAGE = `Usage: driftwatch notify test <channel-url> [--template file] [--allow-private-networks] [--json]

Sends a sample change notification to a channel and prints what the service answered. The URL is
in Apprise's syntax (slack://, discord://, tgram://, mailto://, ntfy://, ...) or a provider's
webhook URL; see docs/notifications.md. Secrets in the URL are masked in everything printed.

  --template file    render the message body with this template
  --allow-private-networks
                     lift the SSRF guard (loopback and private addresses; also
                     DRIFTWATCH_ALLOW_PRIVATE_NETWORKS=true)
  --json             print { channel, service, result } as JSON

Environment: DRIFTWATCH_PUBLIC_URL (links), DRIFTWATCH_<SERVICE>_API_URL (API origin per service).
Exit status: 0 delivered, 1 the service did not take it (retry, gone, failed), 2 error (bad URL or template).
`;

function describe(result: SendResult): string {
  const status = result.status === undefined ? "" : ` (HTTP ${result.status})`;
  switch (result.outcome) {
    case "delivered":
      return `delivered${status}`;
    case "retry":
      return `not delivered, try again${result.afterSeconds === undefined ? "" : ` after ${result.afterSeconds} s`}${status}: ${result.reason}`;
    case "gone":
      return `gone${status}: ${result.reason} (the service says this destination no longer exists)`;
    case "failed":
      return `failed${status}: ${result.reason}`;
  }
}

/** `driftwatch notify test <url>`: 0 delivered, 1 not delivered, 2 error. */
export async function runNotify(args: readonly string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs(args, { template: { type: "string" }, "allow-private-networks": { type: "boolean" }, json: { type: "boolean" }, help: { type: "boolean" } });
  } catch (error) {
    if (error instanceof ConfigError) return usageError(io, error.message);
    throw error;
  }
  const o = parsed.options;
  if (o.help === true) {
    io.stdout(NOTIFY_USAGE);
    return 0;
  }
  const [sub, url, ...extra] = parsed.positionals;
  if (sub !== "test") return usageError(io, sub === undefined ? "notify needs a subcommand: test." : `unknown subcommand ${JSON.stringify(sub)}.`);
  if (url === undefined || extra.length > 0) return usageError(io, "notify test needs exactly one channel URL.");
  let allowPrivateNetworks: boolean;
  let template: string | undefined;
  try {
    const env = io.env.DRIFTWATCH_ALLOW_PRIVATE_NETWORKS;
    allowPrivateNetworks = o["allow-private-networks"] === true || (env !== undefined && env !== "" && parseBoolean(env, "DRIFTWATCH_ALLOW_PRIVATE_NETWORKS"));
    if (typeof o.template === "string") template = readFileSync(path.resolve(io.cwd, o.template), "utf8");
  } catch (error) {
    if (error instanceof ConfigError) return usageError(io, error.message);
    io.stderr(`driftwatch notify: cannot read the template: ${(error as Error).message}\n`);
    return EXIT_ERROR;
  }
  let notifier;
  try {
    notifier = createNotifier({ env: io.env, guard: { allowPrivateNetworks } });
  } catch (error) {
    if (isNotifyError(error)) {
      io.stderr(`driftwatch notify: ${error.message}\n`);
      return EXIT_ERROR;
    }
    throw error;
  }
  const masked = notifier.maskUrl(url);
  try {
    const channel = notifier.parse(url);
    const result = await notifier.send(channel, createTestNotification(), { template });
    if (o.json === true) io.stdout(`${JSON.stringify({ channel: masked, service: channel.service, result }, null, 2)}\n`);
    else io.stdout(`${channel.service} ${masked}: ${describe(result)}\n`);
    if (result.outcome === "failed" && /unsafe_url/.test(result.reason) && !allowPrivateNetworks) {
      io.stderr("  (a loopback or private address: add --allow-private-networks to send there anyway)\n");
    }
    return result.outcome === "delivered" ? 0 : 1;
  } catch (error) {
    if (isNotifyError(error)) {
      const where = error.details.map((d) => d.path).join(", ");
      io.stderr(`driftwatch notify: ${masked}: ${error.message}${where === "" ? "" : ` [${where}]`} (${error.code})\n`);
      return EXIT_ERROR;
    }
    throw error;
  } finally {
    await notifier.close();
  }
}

function usageError(io: CliIo, message: string): number {
  io.stderr(`driftwatch notify: ${message}\n\n${NOTIFY_USAGE}`);
  return EXIT_ERROR;
}
