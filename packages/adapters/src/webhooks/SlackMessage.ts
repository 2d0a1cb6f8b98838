/**
 * The Slack incoming-webhook message of an event: `text` (the notification and fallback line)
 * plus Block Kit `blocks`: a header, a section with fields (subject, action, reference, time), an
 * actions block holding the Open link button, and a context line naming the event type. Lengths
 * stay within Slack's limits (header 150, field 2000, button text 75, URL 3000 characters).
 */
import { clip, escape, type Input, summarize } from "./ChatSummary.js"

export interface PlainText {
  readonly type: "plain_text"
  readonly text: string
  readonly emoji?: boolean
}
export interface Mrkdwn {
  readonly type: "mrkdwn"
  readonly text: string
}
export interface HeaderBlock {
  readonly type: "header"
  readonly text: PlainText
}
export interface SectionBlock {
  readonly type: "section"
  readonly text?: Mrkdwn
  readonly fields?: ReadonlyArray<Mrkdwn>
}
export interface ButtonElement {
  readonly type: "button"
  readonly text: PlainText
  readonly url: string
  readonly action_id: string
}
export interface ActionsBlock {
  readonly type: "actions"
  readonly elements: ReadonlyArray<ButtonElement>
}
export interface ContextBlock {
  readonly type: "context"
  readonly elements: ReadonlyArray<Mrkdwn>
}
export type Block = HeaderBlock | SectionBlock | ActionsBlock | ContextBlock

export interface Message {
  readonly text: string
  readonly blocks: ReadonlyArray<Block>
}

// Slack mrkdwn treats &, < and > as control characters (links, mentions): escape them in values.
const code = (value: string) => `\`${escape(value).replace(/`/g, "'")}\``

export const make = (input: Input): Message => {
  const s = summarize(input)
  const reference = s.references.length === 0 ? "—" : s.references.map((r) => `${r.label} ${code(r.value)}`).join("\n")
  return {
    text: clip(`${escape(s.title)}: ${escape(s.subject)} (${escape(s.action)}) <${s.openUrl}|Open>`, 3000),
    blocks: [
      { type: "header", text: { type: "plain_text", text: clip(s.title, 150), emoji: false } },
      {
        type: "section",
        fields: [
          { type: "mrkdwn", text: clip(`*Subject*\n${code(s.subject)}`, 2000) },
          { type: "mrkdwn", text: clip(`*Action*\n${escape(s.action)}`, 2000) },
          { type: "mrkdwn", text: clip(`*Reference*\n${reference}`, 2000) },
          { type: "mrkdwn", text: clip(`*Time*\n${escape(s.time)}`, 2000) }
        ]
      },
      {
        type: "actions",
        elements: [{ type: "button", text: { type: "plain_text", text: "Open" }, url: s.openUrl, action_id: "open" }]
      },
      { type: "context", elements: [{ type: "mrkdwn", text: clip(code(s.type), 2000) }] }
    ]
  }
}
