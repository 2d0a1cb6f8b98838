/** A destination's settings as a description list (the detail page and the list's phone cards share the labels). */
import { Badge } from "./Badge.js"
import { type Names, scopeLabel, shortEventType, typeLabel, type WebhookView } from "./model.js"
import { formatTime } from "./model.js"

export function StatusOf({ webhook }: { readonly webhook: WebhookView }) {
  return webhook.status === "active"
    ? <Badge kind="success">Enabled</Badge>
    : (
      <span className="webhook-status">
        <Badge kind="danger">Disabled</Badge>
        {webhook.disabledReason !== undefined ? <span className="webhook-status__reason">{webhook.disabledReason}</span> : null}
      </span>
    )
}

/** The masked endpoint, breakable after the scheme and before the masked part (never mid-host). */
export function Preview({ preview }: { readonly preview: string }) {
  const [scheme, rest] = preview.includes("://") ? preview.split("://", 2) as [string, string] : ["", preview]
  const cut = rest.indexOf("/…")
  const host = cut === -1 ? rest : rest.slice(0, cut)
  const tail = cut === -1 ? "" : rest.slice(cut)
  return (
    <code className="webhook-preview">
      {scheme !== "" ? `${scheme}://` : ""}
      <wbr />
      {host}
      <wbr />
      {tail}
    </code>
  )
}

export function EventList({ events }: { readonly events: ReadonlyArray<string> }) {
  return (
    <ul className="webhook-events-list">
      {events.map((e) => (
        <li key={e}>
          <code>{shortEventType(e)}</code>
        </li>
      ))}
    </ul>
  )
}

export function Details({ webhook, names }: { readonly webhook: WebhookView; readonly names: Names }) {
  return (
    <dl className="webhook-details">
      <div>
        <dt>Type</dt>
        <dd>{typeLabel(webhook)}</dd>
      </div>
      <div>
        <dt>Endpoint</dt>
        <dd>
          <Preview preview={webhook.endpointPreview} />
          <span className="muted webhook-details__note">masked: the full URL is never shown</span>
        </dd>
      </div>
      <div>
        <dt>Scope</dt>
        <dd>{scopeLabel(webhook.scope, names)}</dd>
      </div>
      <div>
        <dt>Audience team</dt>
        <dd>{names.team(webhook.audienceTeamId)}</dd>
      </div>
      <div>
        <dt>Status</dt>
        <dd>
          <StatusOf webhook={webhook} />
        </dd>
      </div>
      <div>
        <dt>Created</dt>
        <dd>{formatTime(webhook.createdAt)}</dd>
      </div>
      <div className="webhook-details__wide">
        <dt>Events ({webhook.events.length})</dt>
        <dd>
          <EventList events={webhook.events} />
        </dd>
      </div>
    </dl>
  )
}
