/**
 * The chat delivery body (spec 6 "Delivery", chat type): the native message of the destination's
 * chat platform, built from one summary of the event (ChatSummary: subject, action, reference,
 * time and an Open link to the console page of the resource). Slack gets Block Kit blocks
 * (SlackMessage), Microsoft Teams an Adaptive Card (TeamsMessage), Google Chat a `cardsV2` card
 * (GoogleChatMessage). Chat deliveries are not signed: the endpoint URL is the credential.
 */
import type { Webhook } from "@image-policy/core"
import type { Input } from "./ChatSummary.js"
import * as GoogleChatMessage from "./GoogleChatMessage.js"
import * as SlackMessage from "./SlackMessage.js"
import * as TeamsMessage from "./TeamsMessage.js"

export type { Input } from "./ChatSummary.js"

export const CONTENT_TYPE = "application/json; charset=utf-8"

/** The message object of one platform, before serialization. */
export const make = (platform: Webhook.ChatPlatform, input: Input): object => {
  switch (platform) {
    case "slack":
      return SlackMessage.make(input)
    case "teams":
      return TeamsMessage.make(input)
    case "google-chat":
      return GoogleChatMessage.make(input)
  }
}

/** The exact JSON text sent to a chat destination: the same bytes on every attempt of one event. */
export const body = (platform: Webhook.ChatPlatform, input: Input): string => JSON.stringify(make(platform, input))
