/**
 * Every error a user can cause, as one union: the host gives each its status once, in a table typed
 * against `UserError["_tag"]`, so an error renamed, added or removed here fails the host's typecheck
 * instead of silently answering 500. Provider trouble (`VcsProviderError`) is not a user error: the
 * host answers it by its `reason`. Failures outside this union are defects.
 */
import type { ApiKeyNotFound } from "./ApiKey.js"
import type {
  AllReposGroupNotAssignable,
  BranchNotTracked,
  DuplicateAssignment,
  DuplicateBranchInAssignment,
  EmptyBranchNames,
  PolicyGroupNotFoundInBody
} from "./Assignment.js"
import type { InvalidCursor } from "./Cursor.js"
import type { InvalidInput } from "./Input.js"
import type { InvalidMapping } from "./Mapping.js"
import type { MemberEmailTaken, MemberNotFound } from "./Member.js"
import type {
  BranchNotAvailable,
  ConnectionNotActive,
  DefaultBranchNotIncluded,
  DuplicateBranchName,
  RepositoryNotAvailable,
  RoutineTeamMismatch,
  RoutineWithoutTeam
} from "./Onboarding.js"
import type { AutomationApiNotIncluded } from "./Organization.js"
import type { PermissionDenied } from "./Permission.js"
import type { ExternalPhaseReadOnly, PhaseNotExternal, PhaseNotFound, PolicyGroupNotFound } from "./PolicyGroup.js"
import type { InvalidEndpoint } from "./ports/WebhookSender.js"
import type { RepositoryAlreadyTracked, RepositoryNotFound } from "./Repository.js"
import type { BuiltInRoleReadOnly, PermissionNotGrantable, RoleInUse, RoleNameTaken, RoleNotFound, RoleRequired } from "./Role.js"
import type { CsrfRejected, CurrentPasswordWrong, NotSignedIn, SignInFailed } from "./Session.js"
import type { InvalidSnoozeTransition, SnoozeUntilNotInFuture } from "./SnoozeRequest.js"
import type { TeamNotFound } from "./Team.js"
import type { VcsConnectionNotFound } from "./VcsConnection.js"
import type { DeliveryNotDead, DeliveryNotFound, NotGenericWebhook, WebhookNotFound } from "./Webhook.js"
import type { OrganizationNotFound, Unauthenticated } from "./workflows/ApiKeys.js"
import type { InvalidReferenceInBody } from "./workflows/Caller.js"
import type { PushReplayed, PushStale } from "./workflows/PushEvents.js"
import type { SnoozeRequestNotFound } from "./workflows/SnoozeRequests.js"
// organization administration (issue 15): teams and routines, VCS connections
import type { RoutineInUse, RoutineNotFound } from "./Routine.js"
import type { TeamInUse } from "./Team.js"
import type { VcsConnectionHasNoToken, VcsConnectionInUse } from "./VcsConnection.js"
// policy administration (issue 15)
import type { MappingNotFound } from "./Mapping.js"
import type { PhaseNameTaken, PolicyGroupAssigned, PolicyGroupNameTaken } from "./PolicyAdministration.js"

export type UserError =
  // authentication and authority
  | Unauthenticated
  | OrganizationNotFound
  | AutomationApiNotIncluded
  | PermissionDenied
  // browser sessions (issue 17)
  | SignInFailed
  | CurrentPasswordWrong
  | NotSignedIn
  | CsrfRejected
  // onboarding
  | ConnectionNotActive
  | RepositoryNotAvailable
  | RepositoryAlreadyTracked
  | DuplicateBranchName
  | DefaultBranchNotIncluded
  | BranchNotAvailable
  | RoutineWithoutTeam
  | RoutineTeamMismatch
  // assignments
  | PolicyGroupNotFoundInBody
  | AllReposGroupNotAssignable
  | BranchNotTracked
  | DuplicateAssignment
  | EmptyBranchNames
  | DuplicateBranchInAssignment
  // policy
  | InvalidMapping
  | ExternalPhaseReadOnly
  | PhaseNotExternal
  // snooze requests
  | SnoozeUntilNotInFuture
  | InvalidSnoozeTransition
  // any request
  | InvalidInput
  | InvalidReferenceInBody
  | InvalidCursor
  // resources named in a path
  | RepositoryNotFound
  | TeamNotFound
  | VcsConnectionNotFound
  | PolicyGroupNotFound
  | PhaseNotFound
  | ApiKeyNotFound
  | SnoozeRequestNotFound
  | WebhookNotFound
  | DeliveryNotFound
  // webhooks
  | InvalidEndpoint
  | DeliveryNotDead
  | NotGenericWebhook
  // provider pushes
  | PushReplayed
  | PushStale
  // organization administration (issue 15)
  | RoutineNotFound
  | TeamInUse
  | RoutineInUse
  | VcsConnectionHasNoToken
  | VcsConnectionInUse
  // policy administration (issue 15)
  | PolicyGroupNameTaken
  | PhaseNameTaken
  | PolicyGroupAssigned
  | MappingNotFound
  // members and roles
  | RoleRequired
  | PermissionNotGrantable
  | MemberNotFound
  | RoleNotFound
  | MemberEmailTaken
  | RoleNameTaken
  | BuiltInRoleReadOnly
  | RoleInUse
