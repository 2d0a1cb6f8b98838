/**
 * Tracked repositories (spec section 2 "Repository (tracked)"): the shape storage persists, with the
 * spec's field names, and the view the API returns. Onboarding creates them (`Onboarding.ts`).
 */
import * as Schema from "effect/Schema"
import { RepositoryId, RoutineId, TeamId, VcsConnectionId } from "./Id.js"
import { ScanStatus } from "./Scan.js"

export const TrackedBranch = Schema.Struct({
  branchName: Schema.String,
  scan: Schema.Struct({ status: ScanStatus })
})
export type TrackedBranch = typeof TrackedBranch.Type

export const Repository = Schema.Struct({
  id: RepositoryId,
  vcsConnectionId: VcsConnectionId,
  externalRepoId: Schema.String,
  fullName: Schema.String,
  defaultBranch: Schema.String,
  assignedTeamId: TeamId,
  assignedRoutineId: RoutineId,
  branches: Schema.Array(TrackedBranch),
  createdAt: Schema.String
})
export type Repository = typeof Repository.Type

/** The tracked repository as the API shows it (spec 2 "Repository (tracked)"; contracts 5). */
export const RepositoryView = Schema.Struct({
  id: RepositoryId,
  fullName: Schema.String,
  assignedTeamId: TeamId,
  assignedRoutineId: RoutineId,
  branches: Schema.Array(TrackedBranch)
})
export type RepositoryView = typeof RepositoryView.Type

export const toRepositoryView = (repository: Repository): RepositoryView => ({
  id: repository.id,
  fullName: repository.fullName,
  assignedTeamId: repository.assignedTeamId,
  assignedRoutineId: repository.assignedRoutineId,
  branches: repository.branches
})

/**
 * spec 4.3: 409; it says nothing about whether team, routine or groups match. Onboarding checks it
 * first; the store raises it too, for the request that loses a race to track the same repository.
 */
export class RepositoryAlreadyTracked extends Schema.TaggedError<RepositoryAlreadyTracked>()("RepositoryAlreadyTracked", {
  externalRepoId: Schema.String,
  repositoryId: RepositoryId
}) {
  override get message() {
    return `repository ${this.externalRepoId} is already tracked as ${this.repositoryId}`
  }
}

/** A repository id in a path that this organization does not track (404: nothing is disclosed). */
export class RepositoryNotFound extends Schema.TaggedError<RepositoryNotFound>()("RepositoryNotFound", {
  repositoryId: Schema.String
}) {
  override get message() {
    return `no repository ${this.repositoryId} in this organization`
  }
}
