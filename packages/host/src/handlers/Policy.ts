import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { type Id, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { Api } from "../api/Api.js"
import { toPage } from "../api/Common.js"
import { DraftMapping } from "../api/Policy.js"
import { withCaller } from "./Call.js"

const { Policy } = Workflows
// synchronous: the answer of the busiest write needs no Effect steps of its own to encode
const encodeDraft = Schema.encodeEither(DraftMapping)

export const PolicyHandlers = HttpApiBuilder.group(Api, "policy", (handlers) =>
  handlers
    .handle("listPolicyGroups", ({ urlParams }) => withCaller((c) => Effect.map(Policy.listGroups(c, urlParams), toPage)))
    .handle("getPolicyGroupDetails", ({ path }) =>
      withCaller((c) => Policy.groupDetails(c, path.groupId as Id.PolicyGroupId)))
    .handle("listDraftMappings", ({ path, urlParams }) =>
      withCaller((c) =>
        Effect.map(Policy.listDraftMappings(c, path.groupId as Id.PolicyGroupId, path.phaseId as Id.PhaseId, urlParams), toPage)
      ))
    // 201 when the draft was created, 200 when the draft with the same key was replaced (or was already equal)
    .handle("upsertDraftMapping", ({ path, payload }) =>
      withCaller((c) =>
        Policy.addDraftMapping(c, path.groupId as Id.PolicyGroupId, path.phaseId as Id.PhaseId, payload).pipe(
          Effect.flatMap(({ mapping, outcome }) =>
            Either.match(encodeDraft(mapping), {
              onLeft: Effect.die,
              onRight: (body) => Effect.succeed(HttpServerResponse.unsafeJson(body, { status: outcome === "created" ? 201 : 200 }))
            })
          )
        )
      ))
    .handle("publishPolicyGroup", ({ path }) =>
      withCaller((c) =>
        Effect.map(Policy.publishGroup(c, path.groupId as Id.PolicyGroupId), ({ changes, group, published }) => ({
          id: group.id,
          publishedMappings: published,
          changes: { created: changes.created.length, updated: changes.updated.length, removed: changes.removed.length }
        }))
      ))
    .handle("syncPhase", ({ path }) =>
      withCaller((c) => Policy.syncPhase(c, path.groupId as Id.PolicyGroupId, path.phaseId as Id.PhaseId)))
)
