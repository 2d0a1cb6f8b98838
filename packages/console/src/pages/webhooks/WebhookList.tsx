/**
 * `/webhooks`: the organization's destinations (name, type, masked endpoint, scope, audience team,
 * events, enabled or disabled with the reason) with their row actions, the create form (Owner or
 * Security Administrator), the signing secret shown once after a create or a rotation, and the
 * organization's failing deliveries.
 */
import type { Webhook } from "@image-policy/core"
import { useState } from "react"
import { Link } from "wouter"
import { usePaged } from "../../api.js"
import { DataTable } from "../../components/DataTable.js"
import { EmptyState } from "../../components/EmptyState.js"
import { Page } from "../../components/Page.js"
import { SecretOnce } from "../../components/SecretOnce.js"
import { useToast } from "../../components/Toast.js"
import { CreateWebhook } from "./CreateWebhook.js"
import { FailingDeliveries } from "./Deliveries.js"
import { EventList, Preview, StatusOf } from "./Details.js"
import { type Abilities, scopeLabel, typeLabel, useNames } from "./model.js"
import { WebhookActions } from "./WebhookActions.js"

export function WebhookList({ abilities }: { readonly abilities: Abilities }) {
  const toast = useToast()
  const names = useNames()
  const [creating, setCreating] = useState(false)
  const [secret, setSecret] = useState<{ readonly title: string; readonly value: string } | undefined>()
  const [failingKey, setFailingKey] = useState(0)
  const webhooks = usePaged(
    (api, orgId, cursor) => api.webhooks.listWebhooks({ params: { orgId }, query: { limit: 50, ...(cursor ? { cursor } : {}) } }),
    []
  )
  const created = (w: Webhook.WebhookCreated) => {
    setCreating(false)
    webhooks.reload()
    if (w.signingSecret !== undefined) setSecret({ title: `Signing secret of ${w.name}`, value: w.signingSecret })
    toast.show(`${w.name} created`)
  }
  const createButton = abilities.pointAtUrl && !creating
    ? <button type="button" className="button button--primary" onClick={() => setCreating(true)}>Create destination</button>
    : null
  return (
    <Page
      title="Webhooks"
      description="Where the service sends its events: signed CloudEvents to your endpoints, or messages to chat channels."
      actions={createButton}
    >
      {secret !== undefined ? <SecretOnce label={secret.title} secret={secret.value} onDone={() => setSecret(undefined)} /> : null}
      {creating ? <CreateWebhook names={names} onCreated={created} onCancel={() => setCreating(false)} /> : null}
      <section className="webhook-section" aria-labelledby="destinations-title">
        <h2 id="destinations-title">Destinations</h2>
        <DataTable
          caption="Webhook destinations"
          paged={webhooks}
          rowKey={(w) => w.id}
          empty={
            <EmptyState title="No destinations yet">
              Add one to have policy, snooze and remediation events sent to your systems or chat channels.
            </EmptyState>
          }
          columns={[
            {
              header: "Name",
              cell: (w) => <Link href={`/webhooks/${w.id}`} className="webhook-name">{w.name}</Link>
            },
            {
              header: "Type and endpoint",
              cell: (w) => (
                <span className="webhook-type">
                  <span>{typeLabel(w, true)}</span>
                  <Preview preview={w.endpointPreview} />
                </span>
              )
            },
            { header: "Scope", cell: (w) => scopeLabel(w.scope, names) },
            { header: "Audience team", cell: (w) => names.team(w.audienceTeamId) },
            {
              header: "Events",
              cell: (w) => (
                <details className="webhook-events-summary">
                  <summary>{w.events.length} event{w.events.length === 1 ? "" : "s"}</summary>
                  <EventList events={w.events} />
                </details>
              )
            },
            { header: "Status", cell: (w) => <StatusOf webhook={w} /> },
            {
              header: "Actions",
              kind: "actions",
              visuallyHiddenHeader: true,
              cell: (w) => (
                <WebhookActions
                  compact
                  webhook={w}
                  abilities={abilities}
                  onChanged={webhooks.reload}
                  onDeleted={() => {
                    webhooks.reload()
                    setFailingKey((k) => k + 1)
                  }}
                  onSecret={(name, value) => setSecret({ title: `New signing secret of ${name}`, value })}
                  onTested={() => setFailingKey((k) => k + 1)}
                />
              )
            }
          ]}
        />
      </section>
      <FailingDeliveries key={failingKey} canReplay={abilities.manage} />
    </Page>
  )
}
