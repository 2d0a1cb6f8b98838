/** Webhook destinations over SQL. */
import { Webhook, type WebhookStore } from "@image-policy/core"
import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.js"

const decodeWebhook = Rows.decoder(Webhook.WebhookDestination)

export const make = (sql: SqlClient.SqlClient): typeof WebhookStore.Service => {
  const { die, doc, json, one } = Rows
  const { docPage } = Rows.make(sql)
  return {
    insert: (orgId, d) =>
      die(sql`INSERT INTO webhooks (org_id, id, created_at, doc) VALUES (${orgId}, ${d.id}, ${d.createdAt}, ${json(d)}::jsonb)`),
    list: (orgId, request) => docPage("webhooks", "created_at", orgId, request, decodeWebhook, (w) => w.createdAt),
    all: (orgId) =>
      Effect.map(
        die(sql`SELECT doc FROM webhooks WHERE org_id = ${orgId} ORDER BY created_at, id`),
        (rows) => rows.map(doc(decodeWebhook))
      ),
    get: (orgId, id) => one(sql`SELECT doc FROM webhooks WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeWebhook)),
    update: (orgId, d) => die(sql`UPDATE webhooks SET doc = ${json(d)}::jsonb WHERE org_id = ${orgId} AND id = ${d.id}`),
    delete: (orgId, id) =>
      Effect.gen(function*() {
        yield* die(sql`DELETE FROM deliveries WHERE org_id = ${orgId} AND webhook_id = ${id}`)
        yield* die(sql`DELETE FROM webhooks WHERE org_id = ${orgId} AND id = ${id}`)
      })
  }
}
