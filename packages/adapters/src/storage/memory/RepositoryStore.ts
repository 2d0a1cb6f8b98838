/** VCS connections, repositories and their assignments in the memory state. */
import { type Id, Repository, type RepositoryStore, Text, VcsConnection } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { byCreated, paginate, put, remove, sortBy, type State } from "./State.js"

export const make = (s: State): typeof RepositoryStore.Service => ({
  vcsConnections: {
    list: (orgId, page) =>
      s.read(() => {
        const key = (c: VcsConnection.VcsConnection) => [c.externalAccountName, c.id] as const
        const rows = s.valuesOf(orgId, (o) => o.connections).map((c) => c.connection)
        return paginate(sortBy(rows, key), key, page)
      }),
    get: (orgId, id) => s.read(() => Option.fromNullishOr(s.state(orgId)?.connections.get(id)?.connection)),
    insert: (orgId, connection, settings) => s.run((undo) => put(undo, s.need(orgId).connections, connection.id, { connection, settings })),
    settings: (orgId, id) => s.read(() => Option.fromNullishOr(s.state(orgId)?.connections.get(id)?.settings)),
    setStatus: (orgId, id, status) =>
      s.run((undo) => {
        const o = s.state(orgId)
        const row = o?.connections.get(id)
        if (o && row) put(undo, o.connections, id, { ...row, connection: { ...row.connection, status } })
      }),
    setSettings: (orgId, id, settings) =>
      s.run((undo) => {
        const o = s.state(orgId)
        const row = o?.connections.get(id)
        if (o && row) put(undo, o.connections, id, { ...row, settings })
      }),
    delete: (orgId, id) =>
      s.run((undo) => {
        const o = s.state(orgId)
        if (o) remove(undo, o.connections, id)
      }),
    setHealth: (orgId, id, status) =>
      s.run((undo) => {
        const o = s.state(orgId)
        const row = o?.connections.get(id)
        if (o && row && row.connection.status !== "inactive" && row.connection.status !== status) {
          put(undo, o.connections, id, { ...row, connection: { ...row.connection, status } })
        }
      }),
    locate: (id) =>
      s.read(() => {
        for (const o of s.orgs.values()) {
          const row = o.connections.get(id)
          if (row) return Option.some({ orgId: o.org.id, connection: row.connection, settings: row.settings })
        }
        return Option.none()
      })
  },
  repositories: {
    list: (orgId, page, filter) =>
      s.read(() => {
        const rows = s.valuesOf(orgId, (o) => o.repositories).filter((r) =>
          filter?.repositoryId === undefined || r.id === filter.repositoryId
        )
        return paginate(sortBy(rows, byCreated), byCreated, page)
      }),
    get: (orgId, id) => s.getIn(orgId, (o) => o.repositories, id),
    findByExternalId: (orgId, connectionId, externalRepoId) =>
      s.read(() =>
        Option.fromNullishOr(
          s.valuesOf(orgId, (o) => o.repositories).find((r) => r.vcsConnectionId === connectionId && r.externalRepoId === externalRepoId)
        )
      ),
    findByFullName: (orgId, connectionId, fullName) =>
      s.read(() =>
        sortBy(
          s.valuesOf(orgId, (o) => o.repositories).filter((r) =>
            r.vcsConnectionId === connectionId && r.fullName.toLowerCase() === fullName.toLowerCase()
          ),
          byCreated
        )
      ),
    trackedExternalIds: (orgId, connectionId) =>
      s.read(() =>
        new Set(s.valuesOf(orgId, (o) => o.repositories).filter((r) => r.vcsConnectionId === connectionId).map((r) => r.externalRepoId))
      ),
    insert: (orgId, repository) =>
      Effect.flatten(s.run((undo) => {
        const o = s.need(orgId)
        const existing = [...o.repositories.values()].find((r) =>
          r.vcsConnectionId === repository.vcsConnectionId && r.externalRepoId === repository.externalRepoId
        )
        if (existing) {
          return Effect.fail(
            new Repository.RepositoryAlreadyTracked({ externalRepoId: repository.externalRepoId, repositoryId: existing.id })
          )
        }
        put(undo, o.repositories, repository.id, repository)
        return Effect.void
      })),
    lock: () => Effect.void, // the memory state serializes every transaction already
    update: (orgId, repository) =>
      s.run((undo) => {
        const o = s.state(orgId)
        if (o?.repositories.has(repository.id)) put(undo, o.repositories, repository.id, repository)
      }),
    delete: (orgId, id) =>
      s.run((undo) => {
        const o = s.state(orgId)
        if (o === undefined) return
        remove(undo, o.repositories, id)
        remove(undo, o.assignments, id)
      }),
    count: (orgId, filter) =>
      s.read(() =>
        s.valuesOf(orgId, (o) => o.repositories).filter((r) =>
          (filter.teamId === undefined || r.assignedTeamId === filter.teamId) &&
          (filter.routineId === undefined || r.assignedRoutineId === filter.routineId) &&
          (filter.vcsConnectionId === undefined || r.vcsConnectionId === filter.vcsConnectionId)
        ).length
      )
  },
  assignments: {
    get: (orgId, repositoryId) => s.read(() => s.state(orgId)?.assignments.get(repositoryId) ?? []),
    replace: (orgId, repositoryId, assignments) => s.run((undo) => put(undo, s.need(orgId).assignments, repositoryId, assignments)),
    referencing: (orgId, policyGroupId) =>
      s.read(() =>
        [...(s.state(orgId)?.assignments ?? [])]
          .filter(([, list]) => list.some((a) => a.policyGroupId === policyGroupId))
          .map(([repositoryId, assignments]) => ({ repositoryId: repositoryId as Id.RepositoryId, assignments }))
          .sort((a, b) => Text.compareCodePoints(a.repositoryId, b.repositoryId))
      )
  }
})
