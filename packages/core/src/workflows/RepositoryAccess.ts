/**
 * A tracked repository as workflows reach it: by the id in a path, one of its tracked branches, and
 * the VCS connection it is read and written through.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { OrgId, RepositoryId } from "../Id.js"
import { RepositoryStore } from "../ports/RepositoryStore.js"
import type { ConnectionContext } from "../ports/VcsProvider.js"
import { type Repository, RepositoryNotFound } from "../Repository.js"
import { VcsProviderError } from "../Vcs.js"
import { InvalidReferenceInBody } from "./Caller.js"

/** The repository named in a path, or `RepositoryNotFound` (404). */
export const loadRepository = (orgId: OrgId, repositoryId: RepositoryId) =>
  RepositoryStore.use(({ repositories }) =>
    Effect.flatMap(
      repositories.get(orgId, repositoryId),
      Option.match({
        onNone: () => Effect.fail(new RepositoryNotFound({ repositoryId })),
        onSome: Effect.succeed
      })
    )
  )

export const isTracked = (repository: Repository, branchName: string): boolean =>
  repository.branches.some((b) => b.branchName === branchName)

/**
 * The branch a query names (`path`), the default branch when it names none; a branch the
 * repository does not track is a 400 naming `path`.
 */
export const trackedBranch = (repository: Repository, branch: string | undefined, path: string) =>
  Effect.suspend(() => {
    const branchName = branch ?? repository.defaultBranch
    return isTracked(repository, branchName)
      ? Effect.succeed(branchName)
      : Effect.fail(new InvalidReferenceInBody({ path, message: `branch ${branchName} is not tracked for this repository` }))
  })

/**
 * The connection a repository is read and written through. A connection that is gone or switched
 * off (`inactive`) is a provider without configuration: nothing may go through it.
 */
export const connectionOf = (orgId: OrgId, repository: Repository) =>
  Effect.gen(function*() {
    const { vcsConnections } = yield* RepositoryStore
    const connection = yield* vcsConnections.get(orgId, repository.vcsConnectionId)
    if (Option.isNone(connection) || connection.value.status === "inactive") {
      return yield* new VcsProviderError({ reason: "not-configured" })
    }
    const settings = yield* vcsConnections.settings(orgId, repository.vcsConnectionId)
    return { orgId, connection: connection.value, settings: Option.getOrNull(settings) } satisfies ConnectionContext
  })
