/** Policy groups, draft mappings, publish and external phase sync (spec 4 rules 7-9; contracts 5). */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Mapping, PolicyGroup } from "@image-policy/core"
import * as Schema from "effect/Schema"
import { OrgPath, Page, PageParams, PathId, strictPayload } from "./Common.js"
import { Problem401, Problem403, Problem404, Problem409, Problem413, Problem429 } from "./Problem.js"
import { Problem503 } from "./VcsEvents.js"
import { Authentication, requires } from "./Security.js"

const GroupPath = Schema.Struct({ orgId: PathId, groupId: PathId })
const PhasePath = Schema.Struct({ orgId: PathId, groupId: PathId, phaseId: PathId })

export const DraftMapping = Schema.Struct({ ...Mapping.Mapping.fields, phaseId: Schema.String })

/** The mapping POST body: the API accepts these fields; file-only fields are refused by the core with their path. */
export const MappingBody = Mapping.MappingInput

export const PublishResult = Schema.Struct({
  id: Schema.String,
  publishedMappings: Schema.Array(PolicyGroup.PublishedMapping),
  changes: Schema.Struct({ created: Schema.Int, updated: Schema.Int, removed: Schema.Int })
})

/** What POST .../sync did (core `Sync.SyncSummary`). */
export const SyncResult = Schema.Struct({
  phaseId: Schema.String,
  version: Schema.NullOr(Schema.String).annotations({
    description: "The file version read (its git blob sha); null when the phase's file could not be read"
  }),
  changed: Schema.Boolean.annotations({ description: "Whether the phase's published mappings changed" }),
  created: Schema.Int,
  updated: Schema.Int,
  removed: Schema.Int,
  error: Schema.optional(Schema.String).annotations({
    description: "Why the phase's file is not applied (also the phase's `lastError` in the details); the published mappings were kept"
  })
})

export const PolicyGroupApi = HttpApiGroup.make("policy")
  .add(
    HttpApiEndpoint.get("listPolicyGroups", "/org/:orgId/policy-groups")
      .setPath(OrgPath)
      .setUrlParams(PageParams)
      .addSuccess(Page(PolicyGroup.PolicyGroupListItem))
      .pipe(requires("policy:read"))
  )
  .add(
    HttpApiEndpoint.get("getPolicyGroupDetails", "/org/:orgId/policy-groups/:groupId/details")
      .setPath(GroupPath)
      .addSuccess(PolicyGroup.PolicyGroupDetails)
      .pipe(requires("policy:read"))
  )
  .add(
    HttpApiEndpoint.get("listDraftMappings", "/org/:orgId/policy-groups/:groupId/phases/:phaseId/mappings")
      .setPath(PhasePath)
      .setUrlParams(PageParams)
      .addSuccess(Page(DraftMapping))
      .annotate(OpenApi.Description, "The phase's draft mappings: read them before retrying a mapping POST (spec rule 8).")
      .pipe(requires("policy:read"))
  )
  .add(
    HttpApiEndpoint.post("upsertDraftMapping", "/org/:orgId/policy-groups/:groupId/phases/:phaseId/mappings")
      .setPath(PhasePath)
      .setPayload(strictPayload(MappingBody))
      .addSuccess(DraftMapping, { status: 200 })
      .addSuccess(DraftMapping, { status: 201 })
      .addError(Problem409)
      .addError(Problem413)
      .annotate(
        OpenApi.Description,
        "Creates (201) or replaces (200) the draft mapping with the same fromImage and platformScope in an internal phase. 409 on an external phase."
      )
      .pipe(requires("mappings:write"))
  )
  .add(
    HttpApiEndpoint.post("publishPolicyGroup", "/org/:orgId/policy-groups/:groupId/publish")
      .setPath(GroupPath)
      .addSuccess(PublishResult)
      .annotate(
        OpenApi.Description,
        "Publishes the group's complete draft, unrelated draft changes included. Opens no remediation pull or merge requests."
      )
      .pipe(requires("policy:publish"))
  )
  .add(
    HttpApiEndpoint.post("syncPhase", "/org/:orgId/policy-groups/:groupId/phases/:phaseId/sync")
      .setPath(PhasePath)
      .addSuccess(SyncResult)
      .addError(Problem409)
      .addError(Problem503)
      .annotate(
        OpenApi.Description,
        "Syncs an external phase from its mappings file now: a new valid file version becomes the phase's published mappings " +
          "(subject to cooldown); an invalid or missing file changes no mapping and is reported in `error` and the phase's `lastError`; " +
          "the same version again changes nothing. 409 for an internal phase or a connection whose provider is not configured or " +
          "rejected its credentials, 429 when the provider asks to slow down, 503 when it cannot be reached."
      )
      .pipe(requires("policy:publish"))
  )
  .middleware(Authentication)
  .addError(Problem401)
  .addError(Problem403)
  .addError(Problem404)
  .addError(Problem429)
