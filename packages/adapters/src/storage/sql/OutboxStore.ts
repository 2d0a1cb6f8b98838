/** The event outbox and its deliveries over SQL. */
import { Outbox, type OutboxStore } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.js"

const decodeEvent = Rows.decoder(Outbox.OutboxEvent)
const decodeAttempt = Rows.decoder(Outbox.WebhookDeliveryAttempt)
const decodeAttempts = Rows.decoder(Schema.Array(Outbox.WebhookDeliveryAttempt))

const toDelivery = (row: any): Outbox.WebhookDelivery => ({
  eventId: row.eventId,
  webhookId: row.webhookId,
  status: row.status,
  attempts: Number(row.attempts),
  nextAttemptAt: row.nextAttemptAt === null ? null : Rows.iso(row.nextAttemptAt),
  lastStatusCode: row.lastStatusCode === null ? null : Number(row.lastStatusCode),
  updatedAt: row.updatedAt
})

export const make = (sql: SqlClient.SqlClient): typeof OutboxStore.Service => {
  const { die, doc, json, one, page } = Rows
  return {
    // one statement per append, whatever the number of events and destinations: the events and
    // their deliveries as two JSON record sets, inserted by one data-modifying WITH
    append: (orgId, events) => {
      if (events.length === 0) return Effect.void
      const eventRows = events.map(({ event }) => ({ id: event.id, doc: event }))
      const deliveryRows = events.flatMap(({ destinations, event }) =>
        destinations.map((webhookId) => ({ event_id: event.id, webhook_id: webhookId, time: event.time }))
      )
      return die(sql`WITH appended AS (
          INSERT INTO outbox_events (org_id, id, doc)
          SELECT ${orgId}, x.id, x.doc FROM jsonb_to_recordset(${json(eventRows)}::jsonb) AS x(id text, doc jsonb)
        )
        INSERT INTO deliveries (org_id, event_id, webhook_id, status, next_attempt_at, updated_at)
        SELECT ${orgId}, x.event_id, x.webhook_id, 'pending', x.time::timestamptz, x.time
        FROM jsonb_to_recordset(${json(deliveryRows)}::jsonb) AS x(event_id text, webhook_id text, time text)`)
    },
    getEvent: (orgId, id) => one(sql`SELECT doc FROM outbox_events WHERE org_id = ${orgId} AND id = ${id}`, doc(decodeEvent)),
    claim: ({ leaseMs, limit, now, worker }) =>
      Effect.map(
        die(
          sql`UPDATE deliveries d SET lease_owner = ${worker}, lease_until = ${new Date(now.getTime() + leaseMs).toISOString()}::timestamptz
          FROM (
            SELECT org_id, event_id, webhook_id FROM deliveries
            WHERE status = 'pending' AND next_attempt_at <= ${now.toISOString()}::timestamptz
              AND (lease_until IS NULL OR lease_until < ${now.toISOString()}::timestamptz)
            ORDER BY next_attempt_at LIMIT ${limit}
            FOR UPDATE SKIP LOCKED
          ) c, outbox_events e
          WHERE d.org_id = c.org_id AND d.event_id = c.event_id AND d.webhook_id = c.webhook_id
            AND e.org_id = d.org_id AND e.id = d.event_id
          RETURNING d.org_id, d.event_id, d.webhook_id, d.status, d.attempts, d.next_attempt_at, d.last_status_code,
            d.updated_at, e.doc`
        ),
        (rows) =>
          rows
            .map((row: any) => ({ orgId: row.orgId as string, delivery: toDelivery(row), event: decodeEvent(row.doc) }))
            .sort((a, b) => Date.parse(a.delivery.nextAttemptAt!) - Date.parse(b.delivery.nextAttemptAt!))
      ),
    // one statement for a whole batch (the heartbeat of a worker), the keys as one JSON record set
    renew: ({ deliveries, leaseMs, now, worker }) => {
      if (deliveries.length === 0) return Effect.succeed([])
      const keys = deliveries.map((d) => ({ org_id: d.orgId, event_id: d.eventId, webhook_id: d.webhookId }))
      return Effect.map(
        die(sql`UPDATE deliveries d SET lease_until = ${new Date(now.getTime() + leaseMs).toISOString()}::timestamptz
          FROM jsonb_to_recordset(${json(keys)}::jsonb) AS k(org_id text, event_id text, webhook_id text)
          WHERE d.org_id = k.org_id AND d.event_id = k.event_id AND d.webhook_id = k.webhook_id AND d.lease_owner = ${worker}
          RETURNING d.org_id, d.event_id, d.webhook_id`),
        (rows) =>
          rows.map((row: any) => ({ orgId: row.orgId as string, eventId: row.eventId as string, webhookId: row.webhookId as string }))
      )
    },
    // no index on the owner (it would cost every claim its HOT update); a release runs at a host's
    // start and stop only
    release: (owners) =>
      Effect.map(
        die(sql`WITH freed AS (
            UPDATE deliveries SET lease_owner = NULL, lease_until = NULL WHERE ${Rows.leaseOwners(sql, "lease_owner", owners)}
            RETURNING 1
          )
          SELECT count(*) AS freed FROM freed`),
        (rows: ReadonlyArray<any>) => Number(rows[0]?.freed ?? 0)
      ),
    // one statement, atomic on its own: the attempt row and the delivery's new state commit together
    // without a transaction of their own (one round trip per attempt instead of four); a delivery
    // that is gone (its webhook deleted meanwhile) records no attempt, as on the memory store
    recordAttempt: (orgId, attempt, next) =>
      Effect.asVoid(die(sql`WITH updated AS (
          UPDATE deliveries SET status = ${next.status},
            next_attempt_at = ${next.nextAttemptAt}::timestamptz, attempts = attempts + 1,
            last_status_code = ${attempt.statusCode}, updated_at = ${attempt.at}, lease_owner = NULL, lease_until = NULL
          WHERE org_id = ${orgId} AND event_id = ${attempt.eventId} AND webhook_id = ${attempt.webhookId}
          RETURNING 1
        )
        INSERT INTO delivery_attempts (org_id, event_id, webhook_id, attempt, doc)
        SELECT ${orgId}, ${attempt.eventId}, ${attempt.webhookId}, ${attempt.attempt}, ${json(attempt)}::jsonb
        WHERE EXISTS (SELECT 1 FROM updated)
        ON CONFLICT DO NOTHING`)),
    // every record in one statement (atomic on its own, like `recordAttempt`): the records as one
    // JSON record set, the deliveries updated from it and an attempt row inserted for each delivery
    // that was updated
    recordMany: (records) => {
      if (records.length === 0) return Effect.void
      const rows = records.map(({ attempt, next, orgId }) => ({
        org_id: orgId,
        event_id: attempt.eventId,
        webhook_id: attempt.webhookId,
        attempt: attempt.attempt,
        status: next.status,
        next_attempt_at: next.nextAttemptAt,
        status_code: attempt.statusCode,
        at: attempt.at,
        doc: attempt
      }))
      return Effect.asVoid(die(sql`WITH x AS (
          SELECT * FROM jsonb_to_recordset(${json(rows)}::jsonb) AS x(org_id text, event_id text, webhook_id text,
            attempt integer, status text, next_attempt_at text, status_code integer, at text, doc jsonb)
        ), updated AS (
          UPDATE deliveries d SET status = x.status,
            next_attempt_at = x.next_attempt_at::timestamptz, attempts = d.attempts + 1,
            last_status_code = x.status_code, updated_at = x.at, lease_owner = NULL, lease_until = NULL
          FROM x
          WHERE d.org_id = x.org_id AND d.event_id = x.event_id AND d.webhook_id = x.webhook_id
          RETURNING d.org_id, d.event_id, d.webhook_id
        )
        INSERT INTO delivery_attempts (org_id, event_id, webhook_id, attempt, doc)
        SELECT x.org_id, x.event_id, x.webhook_id, x.attempt, x.doc
        FROM x JOIN updated u ON u.org_id = x.org_id AND u.event_id = x.event_id AND u.webhook_id = x.webhook_id
        ON CONFLICT DO NOTHING`))
    },
    // the page with each delivery's event type and attempts in one query (the database joins them)
    deliveries: (orgId, webhookId, request) =>
      page(
        (after, limit) =>
          sql`SELECT d.event_id, d.webhook_id, d.status, d.attempts, d.next_attempt_at, d.last_status_code, d.updated_at,
              e.doc->>'type' AS type,
              COALESCE((SELECT jsonb_agg(a.doc ORDER BY a.attempt) FROM delivery_attempts a
                WHERE a.org_id = d.org_id AND a.event_id = d.event_id AND a.webhook_id = d.webhook_id), '[]'::jsonb)
                AS attempts_detail
            FROM deliveries d LEFT JOIN outbox_events e ON e.org_id = d.org_id AND e.id = d.event_id
            WHERE d.org_id = ${orgId} AND d.webhook_id = ${webhookId}
              ${after ? sql`AND (d.updated_at, d.event_id) > (${after.sortKey}, ${after.id})` : sql``}
            ORDER BY d.updated_at, d.event_id LIMIT ${limit}`,
        (row: any): Outbox.WebhookDeliveryWithAttempts => ({
          ...toDelivery(row),
          type: row.type ?? null,
          attemptsDetail: decodeAttempts(row.attemptsDetail)
        }),
        (d) => [d.updatedAt, d.eventId] as const,
        request
      ),
    // `Outbox.matchesFailing` in SQL, newest first on (updated_at, event_id, webhook_id) in byte order
    // (`Outbox.failingKey`: the cursor's id is "eventId webhookId"), with the destination's name, the
    // event's type and the last attempt joined in the same query
    failingDeliveries: (orgId, filter, request) =>
      page(
        (after, limit) => {
          const [eventId = "", webhookId = ""] = after?.id.split(" ") ?? []
          return sql`SELECT d.event_id, d.webhook_id, d.status, d.attempts, d.next_attempt_at, d.last_status_code, d.updated_at,
              e.doc->>'type' AS type, w.doc->>'name' AS destination_name,
              (SELECT a.doc FROM delivery_attempts a
                WHERE a.org_id = d.org_id AND a.event_id = d.event_id AND a.webhook_id = d.webhook_id
                ORDER BY a.attempt DESC LIMIT 1) AS last_attempt
            FROM deliveries d
              LEFT JOIN outbox_events e ON e.org_id = d.org_id AND e.id = d.event_id
              LEFT JOIN webhooks w ON w.org_id = d.org_id AND w.id = d.webhook_id
            WHERE d.org_id = ${orgId}
              AND ${
            filter.status === "dead"
              ? sql`d.status = 'dead'`
              : filter.status === "failed"
              ? sql`(d.status = 'pending' AND d.attempts > 0)`
              : sql`(d.status = 'dead' OR (d.status = 'pending' AND d.attempts > 0))`
          }
              ${filter.webhookId !== undefined ? sql`AND d.webhook_id = ${filter.webhookId}` : sql``}
              ${
            after
              ? sql`AND (d.updated_at, d.event_id COLLATE "C", d.webhook_id COLLATE "C") < (${after.sortKey}, ${eventId}, ${webhookId})`
              : sql``
          }
            ORDER BY d.updated_at DESC, d.event_id COLLATE "C" DESC, d.webhook_id COLLATE "C" DESC LIMIT ${limit}`
        },
        (row: any): Outbox.FailingDelivery => {
          const delivery = toDelivery(row)
          return {
            eventId: delivery.eventId,
            destinationId: delivery.webhookId,
            destinationName: row.destinationName ?? null,
            type: row.type ?? null,
            status: Outbox.failingStatus(delivery)!,
            attempts: delivery.attempts,
            nextAttemptAt: delivery.nextAttemptAt,
            lastStatusCode: delivery.lastStatusCode,
            updatedAt: delivery.updatedAt,
            lastError: Outbox.lastErrorOf(row.lastAttempt === null ? undefined : decodeAttempt(row.lastAttempt))
          }
        },
        Outbox.failingKey,
        request
      ),
    attempts: (orgId, eventId, webhookId) =>
      Effect.map(
        die(sql`SELECT doc FROM delivery_attempts WHERE org_id = ${orgId} AND event_id = ${eventId}
          AND webhook_id = ${webhookId} ORDER BY attempt`),
        (rows) => rows.map(doc(decodeAttempt))
      ),
    backlog: () =>
      Effect.map(
        die(sql`SELECT count(*) AS pending, min((e.doc->>'time')::timestamptz) AS oldest
          FROM deliveries d JOIN outbox_events e ON e.org_id = d.org_id AND e.id = d.event_id
          WHERE d.status = 'pending'`),
        (rows: ReadonlyArray<any>) => ({
          pending: Number(rows[0]?.pending ?? 0),
          oldestPendingAt: rows[0]?.oldest == null ? null : Rows.iso(rows[0].oldest)
        })
      ),
    requeue: (orgId, eventId, webhookId, now) =>
      Effect.map(
        die(sql`UPDATE deliveries SET status = 'pending', next_attempt_at = ${now.toISOString()}::timestamptz,
            updated_at = ${now.toISOString()}, lease_owner = NULL, lease_until = NULL
          WHERE org_id = ${orgId} AND event_id = ${eventId} AND webhook_id = ${webhookId} AND status = 'dead'
          RETURNING event_id`),
        (rows) => rows.length > 0
      )
  }
}
