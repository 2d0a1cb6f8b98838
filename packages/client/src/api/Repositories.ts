/** Tracked repositories, their policy group assignments and policy resolution (spec 4 rules 2-6, 10; contracts 5). */
import { Assignment, Onboarding, PolicyGroup, Repository } from "@image-policy/core"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Schema from "effect/Schema"
import { OrgPath, Page, PageParams, pathId } from "./Common.js"
import { Problem409, Problem413 } from "./Problem.js"
import { Authentication, requires } from "./Security.js"

const RepositoryPath = { ...OrgPath, repositoryId: pathId("RepositoryId") }

const Considered = Schema.Struct({
  policyGroupId: Schema.String,
  phaseId: Schema.String,
  mappingId: Schema.String,
  fromImage: Schema.String,
  platformScope: Schema.String,
  matched: Schema.Boolean,
  reason: Schema.String
})

export const ResolutionView = Schema.Struct({
  image: Schema.String,
  resolved: Schema.NullOr(Schema.Struct({
    toImage: Schema.String,
    policyGroupId: Schema.String,
    phaseId: Schema.String,
    mapping: PolicyGroup.PublishedMapping
  })),
  considered: Schema.Array(Considered)
})

export const RepositoriesGroup = HttpApiGroup.make("repositories")
  .annotate(OpenApi.Description, "Tracked repositories, their policy group assignments and image resolution")
  .add(
    HttpApiEndpoint.get("listRepositories", "/org/:orgId/repositories", {
      params: OrgPath,
      query: {
        ...PageParams.fields,
        // a filter, not a path id: an unknown id lists nothing
        repositoryId: Schema.optionalKey(Schema.String.pipe(Schema.brand("RepositoryId")))
      },
      success: Page(Repository.RepositoryView)
    })
      .annotate(OpenApi.Summary, "List the tracked repositories").pipe(requires("repositories:read")),
    HttpApiEndpoint.post("createRepository", "/org/:orgId/repositories", {
      params: OrgPath,
      payload: Onboarding.OnboardRequest,
      success: Onboarding.OnboardResult.pipe(HttpApiSchema.status(201)),
      error: [Problem409, Problem413]
    })
      .annotate(OpenApi.Summary, "Track a repository")
      .annotate(
        OpenApi.Description,
        "Tracks one repository and queues a scan of each initial branch. 409 when it is already tracked (which says nothing about team, routine or groups)."
      )
      .pipe(requires("repositories:manage")),
    HttpApiEndpoint.get("getAssignments", "/org/:orgId/repositories/:repositoryId/policy-groups", {
      params: RepositoryPath,
      success: Assignment.AssignmentView
    })
      .annotate(OpenApi.Summary, "Read a repository's policy group assignments").pipe(requires("repositories:read")),
    HttpApiEndpoint.post("replaceAssignments", "/org/:orgId/repositories/:repositoryId/policy-groups", {
      params: RepositoryPath,
      payload: Assignment.AssignmentRequest,
      success: Assignment.AssignmentView,
      error: Problem413
    })
      .annotate(OpenApi.Summary, "Replace a repository's policy group assignments")
      .annotate(
        OpenApi.Description,
        "Replaces the complete set of repository-specific assignments; groups with applyToAllRepos are untouched and cannot be assigned."
      )
      .pipe(requires("assignments:manage")),
    HttpApiEndpoint.get("resolve", "/org/:orgId/repositories/:repositoryId/resolve", {
      params: RepositoryPath,
      query: {
        image: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(1024)),
        branch: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255))),
        platform: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(100)))
      },
      success: ResolutionView
    })
      .annotate(OpenApi.Summary, "Resolve an image for a repository and branch")
      .annotate(
        OpenApi.Description,
        "Which published mapping applies to an image on a tracked branch (default: the default branch), and why."
      )
      .pipe(requires("policy:read")),
    // organization administration (issue 15)
    HttpApiEndpoint.patch("updateRepository", "/org/:orgId/repositories/:repositoryId", {
      params: RepositoryPath,
      payload: Onboarding.RepositoryPatch,
      success: Onboarding.OnboardResult,
      error: Problem413
    })
      .annotate(OpenApi.Summary, "Change a repository's team, routine or tracked branches")
      .annotate(
        OpenApi.Description,
        "Onboarding's rules: the routine belongs to the team, `branchNames` (the complete list) keeps the default branch. " +
          "A removed branch leaves the assignments, its scans and findings go and its remediation requests are closed; " +
          "an added branch must exist on the provider and its scan is queued (`scans`)."
      )
      .pipe(requires("repositories:manage")),
    HttpApiEndpoint.delete("deleteRepository", "/org/:orgId/repositories/:repositoryId", {
      params: RepositoryPath,
      success: HttpApiSchema.NoContent
    })
      .annotate(OpenApi.Summary, "Untrack a repository")
      .annotate(
        OpenApi.Description,
        "Its assignments, scans and findings are deleted; its remediation requests are kept as `closed`."
      )
      .pipe(requires("repositories:manage"))
  )
  .middleware(Authentication)
