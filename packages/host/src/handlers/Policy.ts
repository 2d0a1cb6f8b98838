import { Api } from "@image-policy/client/api/Api"
import { toPage } from "@image-policy/client/api/Common"
import { DraftMapping } from "@image-policy/client/api/Policy"
import { Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import * as Schema from "effect/Schema"
import { withCaller } from "./Call.js"

const { Policy, PolicyAdministration } = Workflows
// the upsert answers 201 or 200 itself (a success union encodes with its first member), as JSON
const encodeDraft = Schema.encodeEffect(Schema.toCodecJson(DraftMapping))

export const PolicyHandlers = HttpApiBuilder.group(Api, "policy", (handlers) =>
  handlers
    .handle("listPolicyGroups", ({ query }) => withCaller((c) => Effect.map(Policy.listPolicyGroups(c, query), toPage)))
    .handle("getPolicyGroupDetails", ({ params }) => withCaller((c) => Policy.getPolicyGroupDetails(c, params.groupId)))
    .handle("listDraftMappings", ({ params, query }) =>
      withCaller((c) => Effect.map(Policy.listDraftMappings(c, params.groupId, params.phaseId, query), toPage)))
    // 201 when the draft was created, 200 when the draft with the same key was replaced (or was already equal)
    .handle("upsertDraftMapping", ({ params, payload }) =>
      withCaller((c) =>
        Effect.flatMap(Policy.upsertDraftMapping(c, params.groupId, params.phaseId, payload), ({ mapping, outcome }) =>
          Effect.map(
            Effect.orDie(encodeDraft(mapping)),
            (body) =>
              HttpServerResponse.jsonUnsafe(body, { status: outcome === "created" ? 201 : 200 })
          ))
      ))
    .handle("publishPolicyGroup", ({ params }) =>
      withCaller((c) =>
        Effect.map(Policy.publishPolicyGroup(c, params.groupId), ({ changes, group, published }) => ({
          id: group.id,
          publishedMappings: published,
          changes: { created: changes.created.length, updated: changes.updated.length, removed: changes.removed.length }
        }))
      ))
    .handle("syncPhase", ({ params }) =>
      withCaller((c) =>
        Policy.syncPhase(c, params.groupId, params.phaseId)
      ))
    // policy administration (issue 15)
    .handle("getPolicyGroup", ({ params }) =>
      withCaller((c) =>
        PolicyAdministration.getPolicyGroup(c, params.groupId)
      ))
    .handle("createPolicyGroup", ({ payload }) => withCaller((c) => PolicyAdministration.createPolicyGroup(c, payload)))
    .handle("updatePolicyGroup", ({ params, payload }) =>
      withCaller((c) =>
        PolicyAdministration.updatePolicyGroup(c, params.groupId, payload)
      ))
    .handle("deletePolicyGroup", ({ params, query }) =>
      withCaller((c) =>
        PolicyAdministration.deletePolicyGroup(c, params.groupId, query.force === true)
      ))
    .handle("createPhase", ({ params, payload }) => withCaller((c) => PolicyAdministration.createPhase(c, params.groupId, payload)))
    .handle("updatePhase", ({ params, payload }) =>
      withCaller((c) =>
        PolicyAdministration.updatePhase(c, params.groupId, params.phaseId, payload)
      ))
    .handle("deletePhase", ({ params }) => withCaller((c) => PolicyAdministration.deletePhase(c, params.groupId, params.phaseId)))
    .handle("removeDraftMapping", ({ params }) =>
      withCaller((c) =>
        PolicyAdministration.removeDraftMapping(c, params.groupId, params.phaseId, params.mappingId)
      ))
    .handle("getPolicyGroupDraft", ({ params }) => withCaller((c) => PolicyAdministration.getPolicyGroupDraft(c, params.groupId))))
