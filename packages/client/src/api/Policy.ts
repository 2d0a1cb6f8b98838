/** Policy groups, draft mappings, publish and external phase sync (spec 4 rules 7-9; contracts 5). */
import { Mapping, PolicyAdministration, PolicyGroup } from "@image-policy/core"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Schema from "effect/Schema"
import { OrgPath, Page, PageParams, pathId, QueryFlag } from "./Common.js"
import { Problem409, Problem413, Problem503 } from "./Problem.js"
import { Authentication, requires } from "./Security.js"

const GroupPath = { ...OrgPath, groupId: pathId("PolicyGroupId") }
const PhasePath = { ...GroupPath, phaseId: pathId("PhaseId") }
const MappingPath = { ...PhasePath, mappingId: pathId("MappingId") }

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
  .annotate(OpenApi.Description, "Policy groups, phases, draft mappings and publishing")
  .add(
    HttpApiEndpoint.get("listPolicyGroups", "/org/:orgId/policy-groups", {
      params: OrgPath,
      query: PageParams,
      success: Page(PolicyGroup.PolicyGroupListItem)
    })
      .annotate(OpenApi.Summary, "List the policy groups").pipe(requires("policy:read")),
    HttpApiEndpoint.get("getPolicyGroupDetails", "/org/:orgId/policy-groups/:groupId/details", {
      params: GroupPath,
      success: PolicyGroup.PolicyGroupDetails
    })
      .annotate(OpenApi.Summary, "Read a policy group's phases and published mappings").pipe(requires("policy:read")),
    HttpApiEndpoint.get("listDraftMappings", "/org/:orgId/policy-groups/:groupId/phases/:phaseId/mappings", {
      params: PhasePath,
      query: PageParams,
      success: Page(DraftMapping)
    })
      .annotate(OpenApi.Summary, "List a phase's draft mappings")
      .annotate(OpenApi.Description, "The phase's draft mappings: read them before retrying a mapping POST (spec rule 8).")
      .pipe(requires("policy:read")),
    HttpApiEndpoint.post("upsertDraftMapping", "/org/:orgId/policy-groups/:groupId/phases/:phaseId/mappings", {
      params: PhasePath,
      payload: MappingBody,
      // the handler answers the status itself (handlers/Policy.ts): a success union encodes with its first member
      success: [DraftMapping, DraftMapping.pipe(HttpApiSchema.status(201))],
      error: [Problem409, Problem413]
    })
      .annotate(OpenApi.Summary, "Create or replace a draft mapping")
      .annotate(
        OpenApi.Description,
        "Creates (201) or replaces (200) the draft mapping with the same fromImage and platformScope in an internal phase. 409 on an external phase."
      )
      .pipe(requires("mappings:write")),
    HttpApiEndpoint.post("publishPolicyGroup", "/org/:orgId/policy-groups/:groupId/publish", {
      params: GroupPath,
      success: PublishResult
    })
      .annotate(OpenApi.Summary, "Publish a policy group's drafts")
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
      .annotate(OpenApi.Summary, "Sync an external phase from its file")
      .annotate(
        OpenApi.Description,
        "Syncs an external phase from its mappings file now: a new valid file version becomes the phase's published mappings " +
          "(subject to cooldown); an invalid or missing file changes no mapping and is reported in `error` and the phase's `lastError`; " +
          "the same version again changes nothing. 409 for an internal phase or a connection whose provider is not configured or " +
          "rejected its credentials, 429 when the provider asks to slow down, 503 when it cannot be reached."
      )
      .pipe(requires("policy:publish")),
    // policy administration (issue 15): group structure changes live policy, so it needs
    // `policy:publish`; removing a draft is a draft edit (`mappings:write`), like the upsert
    HttpApiEndpoint.get("getPolicyGroup", "/org/:orgId/policy-groups/:groupId", {
      params: GroupPath,
      success: PolicyAdministration.PolicyGroupSettings
    })
      .annotate(OpenApi.Summary, "Read a policy group's settings")
      .annotate(
        OpenApi.Description,
        "The group's name, applyToAllRepos, notification routing, cooldown and phases (with each external phase's file)."
      )
      .pipe(requires("policy:read")),
    HttpApiEndpoint.post("createPolicyGroup", "/org/:orgId/policy-groups", {
      params: OrgPath,
      payload: PolicyAdministration.CreatePolicyGroupRequest,
      success: PolicyAdministration.PolicyGroupSettings.pipe(HttpApiSchema.status(201)),
      error: [Problem409, Problem413]
    })
      .annotate(OpenApi.Summary, "Create a policy group")
      .annotate(
        OpenApi.Description,
        "A new group without phases. `notification`: `inherit` (the organization's default team, the default), `{ teamId }` or `disabled`; " +
          "`cooldownSeconds`: null (the default) uses the organization's. 409 when another group has the name."
      )
      .pipe(requires("policy:publish")),
    HttpApiEndpoint.patch("updatePolicyGroup", "/org/:orgId/policy-groups/:groupId", {
      params: GroupPath,
      payload: PolicyAdministration.UpdatePolicyGroupRequest,
      success: PolicyAdministration.PolicyGroupSettings,
      error: [Problem409, Problem413]
    })
      .annotate(OpenApi.Summary, "Change a policy group's settings")
      .annotate(
        OpenApi.Description,
        "The fields given replace the group's. 409 when another group has the name, or when `applyToAllRepos: true` is asked " +
          "while repositories have the group assigned explicitly."
      )
      .pipe(requires("policy:publish")),
    HttpApiEndpoint.delete("deletePolicyGroup", "/org/:orgId/policy-groups/:groupId", {
      params: GroupPath,
      query: {
        force: Schema.optionalKey(
          QueryFlag.annotate({
            description: "`true` (or `1`) also removes the group from every repository's assignments, in the same transaction"
          })
        )
      },
      success: HttpApiSchema.NoContent,
      error: [Problem409]
    })
      .annotate(OpenApi.Summary, "Delete a policy group")
      .annotate(
        OpenApi.Description,
        "Deletes the group with its phases, drafts and published mappings (204). 409 while repositories have it assigned, unless `force=true`."
      )
      .pipe(requires("policy:publish")),
    HttpApiEndpoint.post("createPhase", "/org/:orgId/policy-groups/:groupId/phases", {
      params: GroupPath,
      payload: PolicyAdministration.CreatePhaseRequest,
      success: PolicyAdministration.PhaseSettings.pipe(HttpApiSchema.status(201)),
      error: [Problem409, Problem413]
    })
      .annotate(OpenApi.Summary, "Add a phase to a policy group")
      .annotate(
        OpenApi.Description,
        "An internal phase (mappings through the API) or an external one (`external`: the VCS connection, repository, branch and path " +
          "of its mappings file, and `pollIntervalSeconds`, default 60), last in the group unless `position` (0 = first) says. " +
          "409 when another phase of the group has the name."
      )
      .pipe(requires("policy:publish")),
    HttpApiEndpoint.patch("updatePhase", "/org/:orgId/policy-groups/:groupId/phases/:phaseId", {
      params: PhasePath,
      payload: PolicyAdministration.UpdatePhaseRequest,
      success: PolicyAdministration.PhaseSettings,
      error: [Problem409, Problem413]
    })
      .annotate(OpenApi.Summary, "Change a phase")
      .annotate(
        OpenApi.Description,
        "Name, position, source and file. Internal -> external drops the phase's drafts (the file replaces its published mappings at the " +
          "next sync); external -> internal makes its published mappings its drafts; another file is read afresh at the next sync."
      )
      .pipe(requires("policy:publish")),
    HttpApiEndpoint.delete("deletePhase", "/org/:orgId/policy-groups/:groupId/phases/:phaseId", {
      params: PhasePath,
      success: HttpApiSchema.NoContent
    })
      .annotate(OpenApi.Summary, "Delete a phase")
      .annotate(OpenApi.Description, "Deletes the phase with its drafts; its published mappings stop applying at once (204).")
      .pipe(requires("policy:publish")),
    HttpApiEndpoint.delete("removeDraftMapping", "/org/:orgId/policy-groups/:groupId/phases/:phaseId/mappings/:mappingId", {
      params: MappingPath,
      success: HttpApiSchema.NoContent,
      error: [Problem409]
    })
      .annotate(OpenApi.Summary, "Remove a draft mapping")
      .annotate(
        OpenApi.Description,
        "Removes the mapping from the phase's draft (204). Published policy changes on the next publish, which counts it in " +
          "`changes.removed`. 409 on an external phase."
      )
      .pipe(requires("mappings:write")),
    HttpApiEndpoint.get("getPolicyGroupDraft", "/org/:orgId/policy-groups/:groupId/draft", {
      params: GroupPath,
      success: PolicyAdministration.DraftView
    })
      .annotate(OpenApi.Summary, "Compare a policy group's draft with its published policy")
      .annotate(
        OpenApi.Description,
        "What the next publish would do to the internal phases: mappings `added`, `changed` (before and after) and `removed`, and how many stay `unchanged`."
      )
      .pipe(requires("policy:read"))
  )
  .middleware(Authentication)
