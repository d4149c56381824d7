import type { ChannelDefinition } from "../channel.js";
import { discordChannel } from "./discord.js";
import { emailChannel } from "./email.js";
import { googleChatChannel } from "./gchat.js";
import { gotifyChannel } from "./gotify.js";
import { jsonChannel } from "./json.js";
import { matrixChannel } from "./matrix.js";
import { mattermostChannel } from "./mattermost.js";
import { ntfyChannel } from "./ntfy.js";
import { opsgenieChannel } from "./opsgenie.js";
import { pagerDutyChannel } from "./pagerduty.js";
import { pushoverChannel } from "./pushover.js";
import { rocketChatChannel } from "./rocketchat.js";
import { slackChannel } from "./slack.js";
import { teamsChannel } from "./teams.js";
import { telegramChannel } from "./telegram.js";
import { webhookChannel } from "./webhook.js";

/** The built-in channels, in the order docs/notifications.md lists them. */
export const BUILTIN_CHANNELS: readonly ChannelDefinition[] = [
  emailChannel,
  slackChannel,
  discordChannel,
  teamsChannel,
  googleChatChannel,
  mattermostChannel,
  rocketChatChannel,
  telegramChannel,
  matrixChannel,
  ntfyChannel,
  gotifyChannel,
  pushoverChannel,
  pagerDutyChannel,
  opsgenieChannel,
  jsonChannel,
  webhookChannel,
];

export {
  discordChannel,
  emailChannel,
  googleChatChannel,
  gotifyChannel,
  jsonChannel,
  matrixChannel,
  mattermostChannel,
  ntfyChannel,
  opsgenieChannel,
  pagerDutyChannel,
  pushoverChannel,
  rocketChatChannel,
  slackChannel,
  teamsChannel,
  telegramChannel,
  webhookChannel,
};
