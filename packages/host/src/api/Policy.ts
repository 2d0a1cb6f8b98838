/** Policy groups, draft mappings, publish and external phase sync (spec 4 rules 7-9; contracts 5). */
import { Mapping, PolicyGroup } from "@image-policy/core"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Schema from "effect/Schema"
import { OrgPath, Page, PageParams, pathId } from "./Common.js"
import { Problem409, Problem413, Problem503 } from "./Problem.js"
import { Authentication, requires } from "./Security.js"

const GroupPath = { ...OrgPath, groupId: pathId("PolicyGroupId") }
const PhasePath = { ...GroupPath, phaseId: pathId("PhaseId") }

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
  version: Schema.NullOr(Schema.String).annotate({
    description: "The file version read (its git blob sha); null when the phase's file could not be read"
  }),
  changed: Schema.Boolean.annotate({ description: "Whether the phase's published mappings changed" }),
  created: Schema.Int,
  updated: Schema.Int,
  removed: Schema.Int,
  error: Schema.optionalKey(Schema.String.annotate({
    description: "Why the phase's file is not applied (also the phase's `lastError` in the details); the published mappings were kept"
  }))
})

export const PolicyGroupApi = HttpApiGroup.make("policy")
  .add(
    HttpApiEndpoint.get("listPolicyGroups", "/org/:orgId/policy-groups", {
      params: OrgPath,
      query: PageParams,
      success: Page(PolicyGroup.PolicyGroupListItem)
    }).pipe(requires("policy:read")),
    HttpApiEndpoint.get("getPolicyGroupDetails", "/org/:orgId/policy-groups/:groupId/details", {
      params: GroupPath,
      success: PolicyGroup.PolicyGroupDetails
    }).pipe(requires("policy:read")),
    HttpApiEndpoint.get("listDraftMappings", "/org/:orgId/policy-groups/:groupId/phases/:phaseId/mappings", {
      params: PhasePath,
      query: PageParams,
      success: Page(DraftMapping)
    })
      .annotate(OpenApi.Description, "The phase's draft mappings: read them before retrying a mapping POST (spec rule 8).")
      .pipe(requires("policy:read")),
    HttpApiEndpoint.post("upsertDraftMapping", "/org/:orgId/policy-groups/:groupId/phases/:phaseId/mappings", {
      params: PhasePath,
      payload: MappingBody,
      // the handler answers the status itself (handlers/Policy.ts): a success union encodes with its first member
      success: [DraftMapping, DraftMapping.pipe(HttpApiSchema.status(201))],
      error: [Problem409, Problem413]
    })
      .annotate(
        OpenApi.Description,
        "Creates (201) or replaces (200) the draft mapping with the same fromImage and platformScope in an internal phase. 409 on an external phase."
      )
      .pipe(requires("mappings:write")),
    HttpApiEndpoint.post("publishPolicyGroup", "/org/:orgId/policy-groups/:groupId/publish", {
      params: GroupPath,
      success: PublishResult
    })
      .annotate(
        OpenApi.Description,
        "Publishes the group's complete draft, unrelated draft changes included. Opens no remediation pull or merge requests."
      )
      .pipe(requires("policy:publish")),
    HttpApiEndpoint.post("syncPhase", "/org/:orgId/policy-groups/:groupId/phases/:phaseId/sync", {
      params: PhasePath,
      success: SyncResult,
      error: [Problem409, Problem503]
    })
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
