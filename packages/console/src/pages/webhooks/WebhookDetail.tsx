/**
 * `/webhooks/:webhookId`: one destination's settings, its actions (send test, replace endpoint,
 * rotate secret, delete) and its deliveries with every attempt, Replay on dead letters.
 */
import * as Effect from "effect/Effect"
import { useState } from "react"
import { Link, useLocation } from "wouter"
import { useQuery } from "../../api.js"
import { ErrorMessage } from "../../components/ErrorMessage.js"
import { Loading } from "../../components/Loading.js"
import { Page } from "../../components/Page.js"
import { SecretOnce } from "../../components/SecretOnce.js"
import { DestinationDeliveries } from "./Deliveries.js"
import { Details } from "./Details.js"
import { type Abilities, collectAll, useNames } from "./model.js"
import { WebhookActions } from "./WebhookActions.js"

export function WebhookDetail({ webhookId, abilities }: { readonly webhookId: string; readonly abilities: Abilities }) {
  const [, navigate] = useLocation()
  const names = useNames()
  const [secret, setSecret] = useState<string | undefined>()
  const [refreshKey, setRefreshKey] = useState(0)
  // the API lists destinations (no read of one): find it in the list
  const found = useQuery(
    (api, orgId) =>
      collectAll((cursor) => api.webhooks.listWebhooks({ params: { orgId }, query: { limit: 200, ...(cursor ? { cursor } : {}) } })).pipe(
        Effect.map((all) => all.find((w) => w.id === webhookId) ?? null)
      ),
    [webhookId]
  )
  const webhook = found.data
  const back = <Link href="/webhooks">All webhooks</Link>
  if (webhook === undefined) {
    return (
      <Page title="Webhook destination">
        <p>{back}</p>
        {found.loading ? <Loading label="Loading the destination" /> : <ErrorMessage error={found.error} onRetry={found.reload} />}
      </Page>
    )
  }
  if (webhook === null) {
    return (
      <Page title="Destination not found">
        <p>This organization has no such webhook destination: it may have been deleted. {back}</p>
      </Page>
    )
  }
  return (
    <Page
      title={webhook.name}
      description={<Link href="/webhooks">← All webhooks</Link>}
    >
      {secret !== undefined
        ? <SecretOnce label={`New signing secret of ${webhook.name}`} secret={secret} onDone={() => setSecret(undefined)} />
        : null}
      <section className="card webhook-section" aria-labelledby="settings-title">
        <h2 id="settings-title">Settings</h2>
        <Details webhook={webhook} names={names} />
        <WebhookActions
          webhook={webhook}
          abilities={abilities}
          onChanged={found.reload}
          onDeleted={() => navigate("/webhooks")}
          onSecret={(_, value) => setSecret(value)}
          onTested={() => setRefreshKey((k) => k + 1)}
        />
      </section>
      <DestinationDeliveries webhookId={webhook.id} canReplay={abilities.manage} refreshKey={refreshKey} />
    </Page>
  )
}
