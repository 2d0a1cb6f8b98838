/**
 * Tracked repositories, the VCS connections they are read through, and their policy-group
 * assignments. Scoped by organization except `vcsConnections.locate` (see there).
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { RepositoryAssignment } from "../Assignment.js"
import type { OrgId, PolicyGroupId, RepositoryId, RoutineId, TeamId, VcsConnectionId } from "../Id.js"
import type { Page, PageRequest } from "../Page.js"
import type { Repository, RepositoryAlreadyTracked } from "../Repository.js"
import type { VcsConnection } from "../VcsConnection.js"

/** A connection found by id alone, with its organization and adapter settings. */
export interface LocatedConnection {
  readonly orgId: OrgId
  readonly connection: VcsConnection
  readonly settings: unknown
}

/** What a tracked repository uses: its team, its routine, the connection it is read through. */
export interface RepositoryUse {
  readonly teamId?: TeamId
  readonly routineId?: RoutineId
  readonly vcsConnectionId?: VcsConnectionId
}

export class RepositoryStore extends Context.Service<RepositoryStore, {
  readonly vcsConnections: {
    readonly list: (orgId: OrgId, page: PageRequest) => Effect.Effect<Page<VcsConnection>>
    readonly get: (orgId: OrgId, id: VcsConnectionId) => Effect.Effect<Option.Option<VcsConnection>>
    readonly insert: (orgId: OrgId, connection: VcsConnection, settings: unknown) => Effect.Effect<void>
    /** Adapter settings of the connection (fixture data or API base URL and token reference). */
    readonly settings: (orgId: OrgId, id: VcsConnectionId) => Effect.Effect<Option.Option<unknown>>
    readonly setStatus: (orgId: OrgId, id: VcsConnectionId, status: VcsConnection["status"]) => Effect.Effect<void>
    /** Replaces the adapter settings (a new sealed token); the connection's status is left alone. */
    readonly setSettings: (orgId: OrgId, id: VcsConnectionId, settings: unknown) => Effect.Effect<void>
    /** Removes the connection and its settings; an unknown id changes nothing. */
    readonly delete: (orgId: OrgId, id: VcsConnectionId) => Effect.Effect<void>
    /**
     * The status a provider's answers gave the connection (`ConnectionHealth`): written only over
     * `active` or `error`, never over the owner's `inactive`, however stale the caller's view.
     */
    readonly setHealth: (orgId: OrgId, id: VcsConnectionId, status: "active" | "error") => Effect.Effect<void>
    /**
     * Unscoped, like `AccessStore.findBySecretHash`: a provider's push webhook names only the
     * connection (connection ids are random and never reused), so the organization is learnt here.
     */
    readonly locate: (id: VcsConnectionId) => Effect.Effect<Option.Option<LocatedConnection>>
  }
  readonly repositories: {
    readonly list: (
      orgId: OrgId,
      page: PageRequest,
      filter?: { readonly repositoryId?: RepositoryId }
    ) => Effect.Effect<Page<Repository>>
    readonly get: (orgId: OrgId, id: RepositoryId) => Effect.Effect<Option.Option<Repository>>
    readonly findByExternalId: (
      orgId: OrgId,
      connectionId: VcsConnectionId,
      externalRepoId: string
    ) => Effect.Effect<Option.Option<Repository>>
    /**
     * The connection's tracked repositories whose `fullName` equals `fullName` ignoring case (as a
     * provider push is matched: providers treat names case-insensitively), by (createdAt, id).
     */
    readonly findByFullName: (
      orgId: OrgId,
      connectionId: VcsConnectionId,
      fullName: string
    ) => Effect.Effect<ReadonlyArray<Repository>>
    /** External ids of the connection's tracked repositories (for the `tracked` flag of available-repos). */
    readonly trackedExternalIds: (orgId: OrgId, connectionId: VcsConnectionId) => Effect.Effect<ReadonlySet<string>>
    /** Fails with `RepositoryAlreadyTracked` when a racing writer tracked the same repository first. */
    readonly insert: (orgId: OrgId, repository: Repository) => Effect.Effect<void, RepositoryAlreadyTracked>
    /** Takes the repository's row lock until the transaction ends (serializes assignment writers). */
    readonly lock: (orgId: OrgId, id: RepositoryId) => Effect.Effect<void>
    /** Replaces the stored repository with the same id (team, routine, branches); an unknown id changes nothing. */
    readonly update: (orgId: OrgId, repository: Repository) => Effect.Effect<void>
    /** Removes the repository and its assignments (untracking); an unknown id changes nothing. */
    readonly delete: (orgId: OrgId, id: RepositoryId) => Effect.Effect<void>
    /** How many tracked repositories use the team, routine or connection named (all given must match). */
    readonly count: (orgId: OrgId, filter: RepositoryUse) => Effect.Effect<number>
  }
  readonly assignments: {
    readonly get: (orgId: OrgId, repositoryId: RepositoryId) => Effect.Effect<ReadonlyArray<RepositoryAssignment>>
    readonly replace: (
      orgId: OrgId,
      repositoryId: RepositoryId,
      assignments: ReadonlyArray<RepositoryAssignment>
    ) => Effect.Effect<void>
    /** The repositories whose explicit assignments name the group, with those assignments, by repository id. */
    readonly referencing: (
      orgId: OrgId,
      policyGroupId: PolicyGroupId
    ) => Effect.Effect<ReadonlyArray<{ readonly repositoryId: RepositoryId; readonly assignments: ReadonlyArray<RepositoryAssignment> }>>
  }
}>()("@image-policy/core/RepositoryStore") {}
