/**
 * Provider webhooks: pushes (spec 3 "external phase" row: a change merged into the configured branch
 * is synchronized) and pull/merge request merges (a remediation request the service opened becomes
 * `merged`). The provider calls these routes, so they take no API key: a GitHub delivery is
 * verified by `X-Hub-Signature-256` (HMAC-SHA256 of the raw body with the connection's webhook
 * secret), a GitLab one by `X-Gitlab-Token`. Connection ids are global, so the path names no
 * organization.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Schema from "effect/Schema"
import { pathId } from "./Common.js"
import { Problem400, Problem413, problemFor } from "./Problem.js"

/**
 * No valid signature: unknown connection, other provider, no secret configured, missing or wrong
 * signature. The edge's own error (the core only sees verified deliveries); one answer for all.
 */
export class PushNotAuthenticated extends Schema.TaggedError<PushNotAuthenticated>()("PushNotAuthenticated", {}) {}

export const Problem401Push = problemFor(
  401,
  "The delivery is not signed with the connection's webhook secret, the connection is unknown, or the delivery is a replay or stale"
)

const ConnectionPath = { connectionId: pathId("VcsConnectionId") }

/** The provider's event as it sends it; read raw (the signature covers the exact bytes). */
const PushEventBody = Schema.Record(Schema.String, Schema.Unknown).annotate({
  description: "The provider's push or pull/merge request event, JSON, exactly as the provider sends it"
})

export const SyncedPhase = Schema.Struct({
  phaseId: Schema.String,
  version: Schema.NullOr(Schema.String),
  changed: Schema.Boolean,
  created: Schema.Int,
  updated: Schema.Int,
  removed: Schema.Int,
  error: Schema.optionalKey(Schema.String)
})

export const MergedRequest = Schema.Struct({
  id: Schema.String,
  repositoryId: Schema.String,
  number: Schema.NullOr(Schema.Int)
})

export const PushAccepted = Schema.Struct({
  synced: Schema.Array(SyncedPhase).annotate({
    description:
      "The external phases the push concerned, each with what its sync did; empty for another branch, other files or other events"
  }),
  merged: Schema.Array(MergedRequest).annotate({
    description:
      "The remediation requests this merge event marked `merged`; empty for a request the service did not open, one already marked, another action or another event"
  })
}).pipe(HttpApiSchema.status(202))

const optionalHeader = (description: string) => Schema.optionalKey(Schema.String.annotate({ description }))

export const VcsEventsGroup = HttpApiGroup.make("vcsEvents")
  .annotate(OpenApi.Description, "Push and pull/merge request webhooks from VCS providers (signed by the provider, no key)")
  .add(
    HttpApiEndpoint.post("githubPushEvent", "/vcs-events/github/:connectionId", {
      params: ConnectionPath,
      headers: {
        "x-hub-signature-256": optionalHeader("`sha256=` + hex HMAC-SHA256 of the raw body with the connection's webhook secret"),
        "x-github-event": optionalHeader(
          "`push` syncs; `pull_request` (action `closed`, merged) marks a remediation request merged; `ping` and other events are acknowledged and ignored"
        ),
        "x-github-delivery": optionalHeader("Delivery id; a delivery seen in the last 10 minutes is refused as a replay")
      },
      payload: PushEventBody,
      success: PushAccepted,
      error: [Problem400, Problem401Push, Problem413]
    })
      .annotate(OpenApi.Summary, "Receive a GitHub push webhook").annotate(
        OpenApi.Description,
        "GitHub push webhook of a VCS connection (content type application/json). A push to the branch of an external phase " +
          "that changes its file syncs that phase; a push to another branch or touching other files does nothing. A `pull_request` " +
          "event closing a pull request as merged marks the remediation request the service opened under that number `merged` " +
          "(audit `remediation.merge`). No API key."
      ),
    HttpApiEndpoint.post("gitlabPushEvent", "/vcs-events/gitlab/:connectionId", {
      params: ConnectionPath,
      headers: {
        "x-gitlab-token": optionalHeader("The connection's webhook secret, as set in the GitLab webhook"),
        "x-gitlab-event": optionalHeader(
          "`Push Hook` syncs; `Merge Request Hook` (action `merge`) marks a remediation request merged; other events are acknowledged and ignored"
        ),
        "x-gitlab-event-uuid": optionalHeader("Delivery id; a delivery seen in the last 10 minutes is refused as a replay")
      },
      payload: PushEventBody,
      success: PushAccepted,
      error: [Problem400, Problem401Push, Problem413]
    })
      .annotate(OpenApi.Summary, "Receive a GitLab push webhook").annotate(
        OpenApi.Description,
        "GitLab push webhook of a VCS connection. A push to the branch of an external phase that changes its file syncs that " +
          "phase; a push to another branch or touching other files does nothing. A `Merge Request Hook` with action `merge` marks " +
          "the remediation request the service opened under that `iid` `merged` (audit `remediation.merge`). No API key."
      )
  )
