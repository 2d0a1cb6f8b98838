/**
 * What a chat message says about an event (spec 6 "Delivery", chat type): a title, the subject,
 * the action, the references, the time and an Open link to the console page of the resource.
 * Every chat platform's formatter (SlackMessage, TeamsMessage, GoogleChatMessage) renders this one
 * summary, so the platforms never differ in what they tell, only in how.
 *
 * There is no template to edit, by design: the summary is built from the event's closed data
 * only (a fixed list of keys), so it can never carry a secret, an e-mail address or an actor id
 * (the core's event schemas already drop those). Values are plain text here; each formatter
 * escapes them for its own markup.
 */
import { ConsolePaths, type Outbox } from "@image-policy/core"

export interface Input {
  readonly orgId: string
  /** Base URL of the service, for the Open link. */
  readonly publicUrl: string
  readonly event: Outbox.OutboxEvent
}

export interface Reference {
  readonly label: string
  readonly value: string
}

export interface Summary {
  readonly title: string
  readonly subject: string
  readonly action: string
  readonly references: ReadonlyArray<Reference>
  readonly time: string
  readonly type: string
  /** The console page of the event's resource (ConsolePaths), never API JSON. */
  readonly openUrl: string
}

/**
 * Longest value shown, in UTF-16 units. Ids are ~30, image references rarely over 200; the bound
 * keeps every platform's message far below its size limit whatever the data holds.
 */
export const MAX_VALUE = 300

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

/** The references shown, in this order: `[label, data key]`. */
const referenceKeys: ReadonlyArray<readonly [string, string]> = [
  ["Policy group", "policy_group_id"],
  ["Phase", "phase_id"],
  ["Repository", "repository_id"],
  ["Snooze request", "snooze_request_id"],
  ["Webhook", "webhook_id"],
  ["From", "from_image"],
  ["To", "to_image"],
  ["Platform", "platform_scope"],
  ["Mappings", "mapping_count"],
  ["Failure", "failure_kind"]
]

export const clip = (value: string, max: number): string => (value.length <= max ? value : `${value.slice(0, max - 1)}…`)

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

const text = (data: Record<string, unknown>, key: string): string | undefined => {
  const value = data[key]
  return typeof value === "string" && value !== "" ? value : typeof value === "number" ? String(value) : undefined
}

const actionOf = (data: Record<string, unknown>): string => {
  const action = text(data, "action") ?? "changed"
  const previous = text(data, "previous_status")
  const current = text(data, "current_status")
  if (current !== undefined) return previous !== undefined ? `${action} (${previous} → ${current})` : `${action} (${current})`
  return action
}

/** Longest Open link; Slack refuses button URLs over 3000 characters. */
export const MAX_URL = 2000

/**
 * The Open link: the console page of the event's resource, or the organization's home when there
 * is none or its ids would make the link too long for the platforms.
 */
export const openUrl = (input: Input): string => {
  const page = ConsolePaths.url(input.publicUrl, ConsolePaths.forEvent(input.orgId, input.event.type, input.event.data))
  return page.length <= MAX_URL ? page : ConsolePaths.url(input.publicUrl, ConsolePaths.path("organization", { orgId: input.orgId }))
}

export const summarize = (input: Input): Summary => {
  const data = isRecord(input.event.data) ? input.event.data : {}
  const references: Array<Reference> = []
  for (const [label, key] of referenceKeys) {
    const value = text(data, key)
    if (value !== undefined) references.push({ label, value: clip(value, MAX_VALUE) })
  }
  return {
    title: titles[input.event.type] ?? clip(input.event.type, 150),
    subject: clip(input.event.subject, MAX_VALUE),
    action: clip(actionOf(data), MAX_VALUE),
    references,
    time: clip(input.event.time, MAX_VALUE),
    type: clip(input.event.type, MAX_VALUE),
    openUrl: openUrl(input)
  }
}

/** `&`, `<` and `>` as entities: Slack mrkdwn and Google Chat's HTML subset both read them as markup. */
export const escape = (value: string): string => value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
