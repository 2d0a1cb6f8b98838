/**
 * The chat delivery body (spec 6 "Delivery", chat type): a concise Slack incoming-webhook message
 * with subject, action, reference and an Open link. There is no template to edit, by design: the
 * message is built from the event's closed data only, so it can never carry a secret, an e-mail
 * address or an actor id (the core's event schemas already drop those).
 *
 * Shape: `text` (the notification and fallback line) plus Block Kit `blocks`: a header, a section
 * with fields, and an actions block holding one link button. Lengths stay within Slack's limits
 * (header 150, field 2000, button text 75, URL 3000 characters).
 */
import type { Outbox } from "@image-policy/core"

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

export const CONTENT_TYPE = "application/json; charset=utf-8"

export interface Input {
  readonly orgId: string
  /** Base URL of the service, for the Open link. */
  readonly publicUrl: string
  readonly event: Outbox.OutboxEvent
}

const titles: Record<string, string> = {
  "service.policy_group.published": "Policy group published",
  "service.policy_group.updated": "Policy group updated",
  "service.policy_mapping.created": "Policy mapping created",
  "service.policy_mapping.updated": "Policy mapping updated",
  "service.policy_mapping.removed": "Policy mapping removed",
  "service.snooze_request.created": "Snooze request created",
  "service.snooze_request.reviewed": "Snooze request reviewed",
  "service.snooze_request.status_changed": "Snooze request status changed",
  "service.snooze_request.reopened": "Snooze request reopened",
  "service.remediation_pull_request.created": "Remediation pull request opened",
  "service.remediation_pull_request.failed": "Remediation pull request failed",
  "service.webhook.test": "Test delivery"
}

const text = (data: Record<string, unknown>, key: string): string | undefined => {
  const value = data[key]
  return typeof value === "string" && value !== "" ? value : typeof value === "number" ? String(value) : undefined
}

const trimmedBase = (publicUrl: string) => publicUrl.replace(/\/+$/, "")
const segment = encodeURIComponent

/**
 * The most specific page of the API for the event's resource; the event-types catalog entry when
 * no resource page exists (an unknown type, or data without the id it needs).
 */
export const openUrl = (input: Input): string => {
  const base = trimmedBase(input.publicUrl)
  const org = `${base}/api/v1/org/${segment(input.orgId)}`
  const data = isRecord(input.event.data) ? input.event.data : {}
  const group = text(data, "policy_group_id")
  const phase = text(data, "phase_id")
  const repository = text(data, "repository_id")
  const webhook = text(data, "webhook_id")
  const type = input.event.type
  if (type.startsWith("service.policy_mapping.") && group !== undefined && phase !== undefined) {
    return `${org}/policy-groups/${segment(group)}/phases/${segment(phase)}/mappings`
  }
  if (type.startsWith("service.policy_") && group !== undefined) return `${org}/policy-groups/${segment(group)}/details`
  // there is no single-request route: the list is where a reviewer acts
  if (type.startsWith("service.snooze_request.")) return `${org}/snooze-requests`
  if (type.startsWith("service.remediation_pull_request.") && repository !== undefined) {
    return `${org}/repositories?repositoryId=${segment(repository)}`
  }
  if (type === "service.webhook.test" && webhook !== undefined) return `${org}/webhooks/${segment(webhook)}/deliveries`
  return `${base}/api/v1/event-types`
}

// Slack mrkdwn treats &, < and > as control characters (links, mentions): escape them in values.
const escape = (value: string) => value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
const code = (value: string) => `\`${escape(value).replace(/`/g, "'")}\``
const clip = (value: string, max: number) => (value.length <= max ? value : `${value.slice(0, max - 1)}…`)
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

const actionOf = (data: Record<string, unknown>): string => {
  const action = text(data, "action") ?? "changed"
  const previous = text(data, "previous_status")
  const current = text(data, "current_status")
  if (current !== undefined) return previous !== undefined ? `${action} (${previous} → ${current})` : `${action} (${current})`
  return action
}

/** The resource the event refers to, as short labelled ids (and the image pair of a mapping). */
const referenceOf = (data: Record<string, unknown>): string => {
  const parts: Array<string> = []
  const add = (label: string, key: string) => {
    const value = text(data, key)
    if (value !== undefined) parts.push(`${label} ${code(value)}`)
  }
  add("Policy group", "policy_group_id")
  add("Phase", "phase_id")
  add("Repository", "repository_id")
  add("Snooze request", "snooze_request_id")
  add("Webhook", "webhook_id")
  const from = text(data, "from_image")
  const to = text(data, "to_image")
  if (from !== undefined && to !== undefined) parts.push(`${code(from)} → ${code(to)}`)
  add("Mappings", "mapping_count")
  add("Failure", "failure_kind")
  return parts.length === 0 ? "—" : parts.join("\n")
}

/** The Slack message of an event. */
export const make = (input: Input): Message => {
  const data = isRecord(input.event.data) ? input.event.data : {}
  const title = titles[input.event.type] ?? input.event.type
  const url = openUrl(input)
  const action = actionOf(data)
  return {
    text: clip(`${escape(title)}: ${escape(input.event.subject)} (${escape(action)}) <${url}|Open>`, 3000),
    blocks: [
      { type: "header", text: { type: "plain_text", text: clip(title, 150), emoji: false } },
      {
        type: "section",
        fields: [
          { type: "mrkdwn", text: clip(`*Subject*\n${code(input.event.subject)}`, 2000) },
          { type: "mrkdwn", text: clip(`*Action*\n${escape(action)}`, 2000) },
          { type: "mrkdwn", text: clip(`*Reference*\n${referenceOf(data)}`, 2000) },
          { type: "mrkdwn", text: clip(`*Time*\n${escape(input.event.time)}`, 2000) }
        ]
      },
      {
        type: "actions",
        elements: [{ type: "button", text: { type: "plain_text", text: "Open" }, url, action_id: "open" }]
      },
      { type: "context", elements: [{ type: "mrkdwn", text: clip(code(input.event.type), 2000) }] }
    ]
  }
}

/** The exact JSON text sent for a chat destination. */
export const body = (input: Input): string => JSON.stringify(make(input))
