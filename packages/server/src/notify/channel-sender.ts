import type { ChannelSender, ChannelSendResult } from "@driftwatch/engine";
import { groupNotifications, isNotifyError, sendAll, type Notifier } from "@driftwatch/notify";
import { isDriftwatchError, sealedKeyId, type ChannelRecord, type Store } from "@driftwatch/core";
import type { ServerSecrets } from "../config/secret-key.js";
import { channelSecretContext } from "../routes/channels.js";

export interface ChannelSenderOptions {
  /**
   * Stores a channel's URL sealed again under the current key, while its stored sealed URL is
   * still the one read (a key rotation: a channel moves to the new key at its next send).
   */
  reseal?: (channel: ChannelRecord, urlSealed: string) => Promise<unknown>;
}

/**
 * The re-seal a server's sender writes: the channel's new sealed URL, only while the stored one is
 * still the one read (`ifUrlSealed`), so a URL changed since the message's channel was read stays.
 */
export function resealInStore(store: Pick<Store, "updateChannel">): NonNullable<ChannelSenderOptions["reseal"]> {
  return (channel, urlSealed) => store.updateChannel(channel.orgId, channel.id, { urlSealed, ifUrlSealed: channel.urlSealed, updatedAt: new Date().toISOString() });
}

/** How many channels' re-seals a sender remembers (the oldest are forgotten first). */
const RESEALED_REMEMBERED = 10_000;

/**
 * The engine's channel sender: opens the channel's sealed URL with the server key (in memory, for
 * this send only; never logged), groups the message's notifications ("5 changes on 3 monitors")
 * and sends them through `notifier` (its requests pass the app's URL guard). A URL sealed under
 * an older key (a rotation) is sealed again under the current one (`options.reseal`).
 */
export function createChannelSender(notifier: Notifier, secrets: ServerSecrets, options: ChannelSenderOptions = {}): ChannelSender {
  // The sealed URLs this sender has already re-sealed, by channel: the channel record a message
  // carries was read at claim time, so the messages of a batch (and of the claims until the next
  // read) carry the old sealed URL; one write per channel and sealed URL is enough.
  const resealed = new Map<string, string>();
  return {
    async send(channel, payloads, signal): Promise<ChannelSendResult> {
      if (secrets.box === null) {
        // Kept for when a key is configured (retried on the schedule).
        return { outcome: "retry", reason: `secret_key_missing: this server has no secret key to open the channel's URL (${secrets.missingReason ?? "set DRIFTWATCH_SECRET_KEY"})` };
      }
      let url: string;
      try {
        url = secrets.box.open(channel.urlSealed, channelSecretContext(channel.id));
      } catch (error) {
        if (secrets.box.lacksKeyFor(channel.urlSealed)) {
          // A rolling key rotation: another process sealed the URL under a key this one is not
          // given yet. It opens once this process has the key (retried on the schedule).
          return {
            outcome: "retry",
            reason: `secret_unreadable: the channel's URL is sealed under key ${sealedKeyId(channel.urlSealed) ?? "?"}, which this server does not have (add it to DRIFTWATCH_SECRET_KEY on every process; see the key rotation in docs/security.md)`,
          };
        }
        return { outcome: "failed", reason: isDriftwatchError(error) ? `${error.code}: the channel's URL cannot be opened with this server's keys` : "the channel's URL cannot be opened" };
      }
      if (options.reseal !== undefined && secrets.box.needsReseal(channel.urlSealed) && resealed.get(channel.id) !== channel.urlSealed) {
        const ok = await options.reseal(channel, secrets.box.seal(url, channelSecretContext(channel.id))).then(
          () => true,
          () => false,
        );
        // a failed write is tried again at the next send
        if (ok) {
          if (resealed.size >= RESEALED_REMEMBERED) resealed.delete(resealed.keys().next().value!);
          resealed.set(channel.id, channel.urlSealed);
        }
      }
      let notifications;
      try {
        notifications = groupNotifications(payloads);
      } catch (error) {
        return { outcome: "failed", reason: isNotifyError(error) ? `${error.code}: ${error.message}` : "the message is not a notification" };
      }
      let result;
      try {
        result = await sendAll(notifications, (notification) => notifier.send(url, notification, { template: channel.template ?? undefined, signal }));
      } catch (error) {
        // The message cannot be made for this channel (its template's output, an event it does not
        // carry): sending it again will not help.
        if (isNotifyError(error)) return { outcome: "failed", reason: `${error.code}: ${error.message}` };
        throw error;
      }
      switch (result.outcome) {
        case "delivered":
          return { outcome: "delivered", status: result.status };
        case "retry":
          return { outcome: "retry", status: result.status, afterSeconds: result.afterSeconds, reason: result.reason };
        default:
          return { outcome: result.outcome, status: result.status, reason: result.reason };
      }
    },
  };
}
