/**
 * The error-to-status table (http/Problems.ts `rules`), typed against the core's `UserError` and the
 * edge's own errors: every error of the union, constructed from its class (any data its schema
 * allows), answers the status its rule declares with its problem type, never a 500; provider
 * trouble answers by its reason; any other failure is not a problem of ours (a defect, 500).
 */
import { assert, describe, it } from "@effect/vitest"
import { PushNotAuthenticated } from "@image-policy/client/api/VcsEvents"
import {
  ApiKey,
  Assignment,
  Cursor,
  Input,
  InvalidEndpoint,
  Mapping,
  Member,
  Onboarding,
  Organization,
  Permission,
  PolicyAdministration,
  PolicyGroup,
  Repository,
  Role,
  Routine,
  SecretUnavailable,
  Session,
  SnoozeRequest,
  Team,
  VcsConnection,
  VcsProviderError,
  VcsWriteRejected,
  Webhook,
  Workflows
} from "@image-policy/core"
import type * as Schema from "effect/Schema"
import * as Problems from "../src/http/Problems.js"

type Tag = Problems.EdgeError["_tag"]

/** The class of every tag: a tag missing here, or a class of another tag, fails the typecheck. */
const classes: { readonly [K in Tag]: Schema.Codec<Extract<Problems.EdgeError, { readonly _tag: K }>, unknown> } = {
  Unauthenticated: Workflows.ApiKeys.Unauthenticated,
  OrganizationNotFound: Workflows.ApiKeys.OrganizationNotFound,
  AutomationApiNotIncluded: Organization.AutomationApiNotIncluded,
  PermissionDenied: Permission.PermissionDenied,
  SignInFailed: Session.SignInFailed,
  NotSignedIn: Session.NotSignedIn,
  CsrfRejected: Session.CsrfRejected,
  CurrentPasswordWrong: Session.CurrentPasswordWrong,
  ConnectionNotActive: Onboarding.ConnectionNotActive,
  RepositoryNotAvailable: Onboarding.RepositoryNotAvailable,
  RepositoryAlreadyTracked: Repository.RepositoryAlreadyTracked,
  DuplicateBranchName: Onboarding.DuplicateBranchName,
  DefaultBranchNotIncluded: Onboarding.DefaultBranchNotIncluded,
  BranchNotAvailable: Onboarding.BranchNotAvailable,
  RoutineWithoutTeam: Onboarding.RoutineWithoutTeam,
  RoutineTeamMismatch: Onboarding.RoutineTeamMismatch,
  PolicyGroupNotFoundInBody: Assignment.PolicyGroupNotFoundInBody,
  AllReposGroupNotAssignable: Assignment.AllReposGroupNotAssignable,
  BranchNotTracked: Assignment.BranchNotTracked,
  DuplicateAssignment: Assignment.DuplicateAssignment,
  EmptyBranchNames: Assignment.EmptyBranchNames,
  DuplicateBranchInAssignment: Assignment.DuplicateBranchInAssignment,
  InvalidMapping: Mapping.InvalidMapping,
  ExternalPhaseReadOnly: PolicyGroup.ExternalPhaseReadOnly,
  PhaseNotExternal: PolicyGroup.PhaseNotExternal,
  SnoozeUntilNotInFuture: SnoozeRequest.SnoozeUntilNotInFuture,
  InvalidSnoozeTransition: SnoozeRequest.InvalidSnoozeTransition,
  InvalidInput: Input.InvalidInput,
  InvalidReferenceInBody: Workflows.Caller.InvalidReferenceInBody,
  InvalidCursor: Cursor.InvalidCursor,
  RepositoryNotFound: Repository.RepositoryNotFound,
  TeamNotFound: Team.TeamNotFound,
  VcsConnectionNotFound: VcsConnection.VcsConnectionNotFound,
  PolicyGroupNotFound: PolicyGroup.PolicyGroupNotFound,
  PhaseNotFound: PolicyGroup.PhaseNotFound,
  ApiKeyNotFound: ApiKey.ApiKeyNotFound,
  SnoozeRequestNotFound: Workflows.SnoozeRequests.SnoozeRequestNotFound,
  WebhookNotFound: Webhook.WebhookNotFound,
  DeliveryNotFound: Webhook.DeliveryNotFound,
  InvalidEndpoint,
  DeliveryNotDead: Webhook.DeliveryNotDead,
  NotGenericWebhook: Webhook.NotGenericWebhook,
  PushReplayed: Workflows.PushEvents.PushReplayed,
  PushStale: Workflows.PushEvents.PushStale,
  PushNotAuthenticated,
  // organization administration (issue 15)
  RoutineNotFound: Routine.RoutineNotFound,
  TeamInUse: Team.TeamInUse,
  RoutineInUse: Routine.RoutineInUse,
  VcsConnectionHasNoToken: VcsConnection.VcsConnectionHasNoToken,
  VcsConnectionInUse: VcsConnection.VcsConnectionInUse,
  // policy administration (issue 15)
  PolicyGroupNameTaken: PolicyAdministration.PolicyGroupNameTaken,
  PhaseNameTaken: PolicyAdministration.PhaseNameTaken,
  PolicyGroupAssigned: PolicyAdministration.PolicyGroupAssigned,
  MappingNotFound: Mapping.MappingNotFound,
  RoleRequired: Role.RoleRequired,
  PermissionNotGrantable: Role.PermissionNotGrantable,
  MemberNotFound: Member.MemberNotFound,
  RoleNotFound: Role.RoleNotFound,
  MemberEmailTaken: Member.MemberEmailTaken,
  RoleNameTaken: Role.RoleNameTaken,
  BuiltInRoleReadOnly: Role.BuiltInRoleReadOnly,
  RoleInUse: Role.RoleInUse
}

const kebab = (tag: string) => `/problems/${tag.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase()}`

describe("the error-to-status table", () => {
  it("has one rule per error of the union, and no other", () => {
    assert.deepStrictEqual(Object.keys(Problems.rules).sort(), Object.keys(classes).sort())
  })

  for (const [tag, schema] of Object.entries(classes) as Array<[Tag, (typeof classes)[Tag]]>) {
    const rule: Problems.Rule = Problems.rules[tag]
    it.prop(`${tag} answers ${rule.status}`, { error: schema }, ({ error }) => {
      assert.strictEqual(error._tag, tag)
      const problem = Problems.fromDomain(error)
      assert.isDefined(problem)
      assert.strictEqual(problem!.status, rule.status)
      assert.notStrictEqual(problem!.status, 500)
      assert.strictEqual(problem!.type, rule.type ?? kebab(tag))
      assert.isAbove(problem!.detail.length, 0)
    }, { arbitrary: { runs: 10 } })
  }

  it("provider trouble answers by its reason", () => {
    for (const [reason, status] of Object.entries(Problems.providerStatus) as Array<[VcsProviderError["reason"], number]>) {
      const problem = Problems.fromDomain(new VcsProviderError({ reason }))
      assert.strictEqual(problem?.status, status)
      assert.strictEqual(problem?.type, `/problems/vcs-provider-${reason}`)
    }
    assert.strictEqual(Problems.fromDomain(new VcsProviderError({ reason: "rate-limited", retryAfterSeconds: 7 }))?.retryAfterSeconds, 7)
  })

  it("any other failure is not a problem of ours (a defect: 500)", () => {
    assert.isUndefined(Problems.fromDomain(new SecretUnavailable({ reason: "malformed" })))
    assert.isUndefined(Problems.fromDomain(new VcsWriteRejected({ reason: "conflict", status: 409 })))
    assert.isUndefined(Problems.fromDomain({ _tag: "toString" }))
    assert.isUndefined(Problems.fromDomain(new Error("boom")))
  })
})
