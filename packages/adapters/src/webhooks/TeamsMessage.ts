/**
 * The Microsoft Teams message of an event: one Adaptive Card in a `message` activity, the payload
 * Teams incoming webhooks and the Workflows app's "When a Teams webhook request is received"
 * trigger accept (`type: "message"`, `attachments[]` of content type
 * `application/vnd.microsoft.card.adaptive` whose `content` is the card; Workflows post Adaptive
 * Cards only, never the retired MessageCard format).
 *
 * The card: a bold title, a FactSet (subject, action, each reference, time), a subtle line naming
 * the event type, and an `Action.OpenUrl` "Open" to the console page. It uses only elements of
 * schema 1.0 and declares 1.4, which every Teams client renders. Teams reads TextBlock and fact
 * values as Markdown, so values have Markdown's punctuation escaped with a backslash (an id like
 * `snz_a_b` must not turn italic, an image reference must not become a link). The whole message
 * stays far below Teams' 28 KB limit (values are bounded by ChatSummary.MAX_VALUE).
 */
import { clip, type Input, summarize } from "./ChatSummary.js"

export interface TextBlock {
  readonly type: "TextBlock"
  readonly text: string
  readonly wrap: true
  readonly size?: "Small" | "Medium" | "Large"
  readonly weight?: "Bolder"
  readonly isSubtle?: boolean
}
export interface Fact {
  readonly title: string
  readonly value: string
}
export interface FactSet {
  readonly type: "FactSet"
  readonly facts: ReadonlyArray<Fact>
}
export interface OpenUrlAction {
  readonly type: "Action.OpenUrl"
  readonly title: string
  readonly url: string
}
export interface AdaptiveCard {
  readonly $schema: "http://adaptivecards.io/schemas/adaptive-card.json"
  readonly type: "AdaptiveCard"
  readonly version: "1.4"
  readonly body: ReadonlyArray<TextBlock | FactSet>
  readonly actions: ReadonlyArray<OpenUrlAction>
}
export interface Message {
  readonly type: "message"
  readonly attachments: ReadonlyArray<{
    readonly contentType: "application/vnd.microsoft.card.adaptive"
    readonly contentUrl: null
    readonly content: AdaptiveCard
  }>
}

/**
 * Backslash before the characters Markdown reads as emphasis, code, links or escapes. (HTML needs
 * nothing: Teams shows markup in cards as plain text.)
 */
export const escape = (value: string): string => value.replace(/[\\`*_~[\]]/g, "\\$&")

export const make = (input: Input): Message => {
  const s = summarize(input)
  const facts: Array<Fact> = [
    { title: "Subject", value: escape(s.subject) },
    { title: "Action", value: escape(s.action) },
    ...s.references.map((r) => ({ title: r.label, value: escape(r.value) })),
    { title: "Time", value: escape(s.time) }
  ]
  return {
    type: "message",
    attachments: [{
      contentType: "application/vnd.microsoft.card.adaptive",
      contentUrl: null,
      content: {
        $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
        type: "AdaptiveCard",
        version: "1.4",
        body: [
          { type: "TextBlock", text: escape(clip(s.title, 150)), wrap: true, size: "Medium", weight: "Bolder" },
          { type: "FactSet", facts },
          { type: "TextBlock", text: escape(s.type), wrap: true, size: "Small", isSubtle: true }
        ],
        actions: [{ type: "Action.OpenUrl", title: "Open", url: s.openUrl }]
      }
    }]
  }
}
