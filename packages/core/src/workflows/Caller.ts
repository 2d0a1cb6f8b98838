/**
 * What every workflow knows about the call it serves, and the two records every state change
 * leaves in the same transaction: its audit row and its outbox events.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { Actor, Outcome } from "../Audit.js"
import * as Event from "../Event.js"
import type { OrgId } from "../Id.js"
import { AuditStore } from "../ports/AuditStore.js"
import { Ids } from "../ports/Ids.js"
import { type NewOutboxEvent, OutboxStore } from "../ports/OutboxStore.js"
import { WebhookStore } from "../ports/WebhookStore.js"
import { route, type RoutingContext } from "../Webhook.js"

export interface Caller {
  readonly orgId: OrgId
  readonly actor: Actor
  /** Ties the audit row, the events and the logs of one request together. */
  readonly correlationId: string
}

/** An id or reference inside a request body that does not resolve: 400 naming its path (contracts 4). */
export class InvalidReferenceInBody extends Schema.TaggedError<InvalidReferenceInBody>()("InvalidReferenceInBody", {
  path: Schema.String,
  message: Schema.String
}) {}

/** The clock's time (a `TestClock` in tests), read in one step: every request reads it at least once. */
export const now: Effect.Effect<Date> = Effect.clockWith((clock) => Effect.succeed(new Date(clock.currentTimeMillisUnsafe())))

/**
 * Appends the audit row of a change (inside the caller's transaction): a success unless `outcome`
 * says otherwise, with `detail` a machine-readable code (never a raw message).
 */
export const audit = (
  caller: Caller,
  action: string,
  resourceType: string,
  resourceId: string | null,
  options: { readonly outcome?: Outcome; readonly detail?: string } = {}
) =>
  Effect.gen(function*() {
    const auditTrail = yield* AuditStore
    const ids = yield* Ids
    const at = yield* now
    yield* auditTrail.append(caller.orgId, {
      id: yield* ids.next("audit"),
      at: at.toISOString(),
      actor: caller.actor,
      action,
      resourceType,
      resourceId,
      outcome: options.outcome ?? "success",
      detail: options.detail ?? null
    })
  })

/** A write the workflow refused: what was tried, on what, and the problem it answered. */
export interface Rejection {
  readonly action: string
  readonly resourceType: string
  readonly resourceId: string | null
  /** The resource named by the request does not exist in the caller's organization. */
  readonly notFound: boolean
  /** The machine-readable problem type, never a message. */
  readonly detail: string
}

/**
 * The audit row of a refused write, written on its own after the refused transaction rolled back,
 * so the trail shows who tried what although nothing changed. An unknown resource keeps no id: it
 * names nothing of this organization and may be another tenant's.
 */
export const auditRejection = (caller: Caller, rejection: Rejection) =>
  audit(caller, rejection.action, rejection.resourceType, rejection.notFound ? null : rejection.resourceId, {
    outcome: "rejected",
    detail: rejection.detail
  })

/**
 * Builds events (their data redacted by the catalog's closed schemas), routes them to the
 * organization's matching destinations, and appends them to the outbox. Answers the new event ids.
 */
export const emit = (
  caller: Caller,
  routing: RoutingContext,
  events: ReadonlyArray<{ readonly type: Event.EventType; readonly data: Record<string, unknown> }>
) =>
  Effect.gen(function*() {
    if (events.length === 0) return []
    const ids = yield* Ids
    const at = (yield* now).toISOString()
    const destinations = yield* WebhookStore.use((webhooks) => webhooks.all(caller.orgId))
    const rows: Array<NewOutboxEvent> = []
    for (const { data, type } of events) {
      // a builder that does not fit its own schema is a bug in the workflow, not user input
      const draft = Result.getOrThrow(Event.buildEvent(type, data))
      rows.push({
        event: {
          id: yield* ids.next("event"),
          type,
          subject: draft.subject,
          time: at,
          correlationId: caller.correlationId,
          data: draft.data
        },
        destinations: route(type, routing, destinations)
      })
    }
    yield* OutboxStore.use((outbox) => outbox.append(caller.orgId, rows))
    return rows.map((r) => r.event.id)
  })
