/** Tracked repositories, their policy group assignments and policy resolution (spec 4 rules 2-6, 10; contracts 5). */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Assignment, Onboarding, PolicyGroup } from "@image-policy/core"
import * as Schema from "effect/Schema"
import { Created, OrgPath, Page, PageParams, PathId, strictPayload } from "./Common.js"
import { Problem401, Problem403, Problem404, Problem409, Problem413, Problem429 } from "./Problem.js"
import { Authentication, requires } from "./Security.js"

const RepositoryPath = Schema.Struct({ orgId: PathId, repositoryId: PathId })

/** A rejected body names every offending field at once (contracts 4), not only the first one found. */

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
  .add(
    HttpApiEndpoint.get("listRepositories", "/org/:orgId/repositories")
      .setPath(OrgPath)
      .setUrlParams(Schema.Struct({ ...PageParams.fields, repositoryId: Schema.optional(Schema.String) }))
      .addSuccess(Page(Onboarding.RepositoryView))
      .pipe(requires("repositories:read"))
  )
  .add(
    HttpApiEndpoint.post("createRepository", "/org/:orgId/repositories")
      .setPath(OrgPath)
      .setPayload(strictPayload(Onboarding.OnboardRequest))
      .addSuccess(Created(Onboarding.OnboardResult))
      .addError(Problem409)
      .addError(Problem413)
      .annotate(
        OpenApi.Description,
        "Tracks one repository and queues a scan of each initial branch. 409 when it is already tracked (which says nothing about team, routine or groups)."
      )
      .pipe(requires("repositories:manage"))
  )
  .add(
    HttpApiEndpoint.get("getAssignments", "/org/:orgId/repositories/:repositoryId/policy-groups")
      .setPath(RepositoryPath)
      .addSuccess(Assignment.AssignmentView)
      .pipe(requires("repositories:read"))
  )
  .add(
    HttpApiEndpoint.post("replaceAssignments", "/org/:orgId/repositories/:repositoryId/policy-groups")
      .setPath(RepositoryPath)
      .setPayload(strictPayload(Assignment.AssignmentRequest))
      .addSuccess(Assignment.AssignmentView)
      .addError(Problem413)
      .annotate(
        OpenApi.Description,
        "Replaces the complete set of repository-specific assignments; groups with applyToAllRepos are untouched and cannot be assigned."
      )
      .pipe(requires("assignments:manage"))
  )
  .add(
    HttpApiEndpoint.get("resolve", "/org/:orgId/repositories/:repositoryId/resolve")
      .setPath(RepositoryPath)
      .setUrlParams(Schema.Struct({
        image: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1024)),
        branch: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(255))),
        platform: Schema.optional(Schema.String.pipe(Schema.maxLength(100)))
      }))
      .addSuccess(ResolutionView)
      .annotate(OpenApi.Description, "Which published mapping applies to an image on a tracked branch (default: the default branch), and why.")
      .pipe(requires("policy:read"))
  )
  .middleware(Authentication)
  .addError(Problem401)
  .addError(Problem403)
  .addError(Problem404)
  .addError(Problem429)
