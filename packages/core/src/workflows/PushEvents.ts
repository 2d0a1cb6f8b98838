/**
 * Provider webhooks, once the edge has verified the delivery's signature and decoded its body:
 * pushes (spec 3 "external phase" row: a change merged into the configured branch is synchronized)
 * and merges of pull/merge requests (a remediation request the service opened becomes `merged`).
 * Checks, first failure wins: a delivery that must name its id and does not, a push or merge older
 * than `MappingsFile.maxPushAgeMs`, a delivery id received in the last `replayWindowMs`; then the
 * phases the push concerns are synced, or the merged request is marked. Other events are
 * acknowledged and change nothing.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { OrgId } from "../Id.js"
import * as MappingsFile from "../MappingsFile.js"
import { PushDeliveryIds } from "../ports/PushDeliveryIds.js"
import type { VcsConnection } from "../VcsConnection.js"
import type { Caller } from "./Caller.js"
import { markMerged } from "./Remediation.js"
import { syncPushed } from "./Sync.js"

/** The delivery id was already received recently, or a delivery that must name one names none. */
export class PushReplayed extends Schema.TaggedError<PushReplayed>()("PushReplayed", {}) {}
/** The push happened too long ago to be a fresh delivery. */
export class PushStale extends Schema.TaggedError<PushStale>()("PushStale", {}) {}

/** How long a delivery id is remembered: longer than `MappingsFile.maxPushAgeMs`, the age a push may have. */
export const replayWindowMs = 10 * 60_000

/** A push event as the edge decoded it. */
export interface ReceivedPush {
  readonly push: MappingsFile.Push
  /** When the provider says the push happened (epoch ms), if it does. */
  readonly pushedAt: number | undefined
}

/** A pull/merge request merge event as the edge decoded it. */
export interface ReceivedMerge {
  /** The repository as the provider names it (GitHub full name, GitLab project path). */
  readonly repositoryFullName: string
  /** The provider's request number (GitHub `number`, GitLab `iid`). */
  readonly number: number
  /** When the provider says it merged the request (epoch ms), if it does. */
  readonly mergedAt: number | undefined
}

/** A delivery whose signature the edge verified against `connection`'s webhook secret. */
export interface PushDelivery {
  readonly orgId: OrgId
  readonly connection: VcsConnection
  /** The provider's id of this delivery, if it sent one (replays repeat it). */
  readonly deliveryId: string | undefined
  /** Whether the provider always names its deliveries (GitHub): one without an id cannot be told from a replay. */
  readonly idRequired: boolean
  /** The push; `undefined` for another event. */
  readonly push: ReceivedPush | undefined
  /** The merge of a pull/merge request; `undefined` for another event (or another action on a request). */
  readonly merge?: ReceivedMerge | undefined
}

/**
 * Checks a verified delivery for staleness and replay, then syncs the external phases its push
 * concerns, or marks the remediation request its merge concerns `merged` (the provider's merge
 * time, else now). Answers both, each empty when the delivery was not of its kind.
 */
export const receive = Effect.fn("PushEvents.receive")(function*(delivery: PushDelivery, correlationId: string) {
  const { connection, deliveryId, merge, push } = delivery
  if (delivery.idRequired && deliveryId === undefined) return yield* new PushReplayed()
  const now = yield* Clock.currentTimeMillis
  // a merge is held to the push's age limit: a provider sends both the moment they happen
  const happenedAt = push !== undefined ? push.pushedAt : merge?.mergedAt
  if (MappingsFile.isStalePush(happenedAt, now)) return yield* new PushStale()
  if (deliveryId !== undefined) {
    const received = yield* PushDeliveryIds
    if (!(yield* received.remember(`${connection.id}|${deliveryId}`, now, replayWindowMs))) return yield* new PushReplayed()
  }
  // the audit actor names the provider and what it sent: `github-push`, `gitlab-webhook`, ...
  const as = (kind: "push" | "webhook"): Caller => ({
    orgId: delivery.orgId,
    actor: { kind: "system", name: `${connection.provider}-${kind}` },
    correlationId
  })
  const synced = push === undefined ? [] : yield* syncPushed(as("push"), connection.id, push.push)
  const merged = merge === undefined ? [] : yield* markMerged(as("webhook"), connection.id, {
    repositoryFullName: merge.repositoryFullName,
    number: merge.number,
    mergedAt: new Date(merge.mergedAt ?? now).toISOString()
  })
  return { synced, merged }
})
