/**
 * Webhooks (issue 17, page 7): `/webhooks` lists the destinations with their row actions and the
 * organization's failing deliveries; `/webhooks/:webhookId` shows one destination and its deliveries.
 * Everything here needs `webhooks:manage`; creating a destination or replacing its endpoint also
 * needs the Owner or Security Administrator role (the server checks both again).
 */
import { useParams } from "wouter"
import { Page } from "../components/Page.js"
import { useAbilities } from "./webhooks/model.js"
import { WebhookDetail } from "./webhooks/WebhookDetail.js"
import { WebhookList } from "./webhooks/WebhookList.js"
import "./webhooks/webhooks.css"

export default function Webhooks() {
  const { webhookId } = useParams<{ webhookId?: string }>()
  const abilities = useAbilities()
  if (!abilities.manage) {
    return (
      <Page title="Webhooks">
        <div className="alert alert--info">
          <p>
            Webhook destinations are managed by the Owner and Security Administrator roles (permission{" "}
            <code>webhooks:manage</code>). Ask one of them to add or change a destination.
          </p>
        </div>
      </Page>
    )
  }
  return webhookId === undefined
    ? <WebhookList abilities={abilities} />
    : <WebhookDetail key={webhookId} webhookId={webhookId} abilities={abilities} />
}
