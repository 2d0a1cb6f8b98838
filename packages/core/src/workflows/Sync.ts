/**
 * External phases follow their mappings files (spec 2 "External mappings file", 3 "external phase"
 * row). A sync reads the file at the head of the phase's branch, lets the core decide
 * (`MappingsFile.decideSync`), and writes the outcome, its audit row and its events in one
 * transaction under the group's lock. The same file version is never processed twice, so a sync
 * can run from the API, from a provider push and from the poll worker of several hosts at once.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { MappingId, PhaseId, PolicyGroupId, VcsConnectionId } from "../Id.js"
import { mappingKey } from "../Mapping.js"
import * as MappingsFile from "../MappingsFile.js"
import * as PolicyGroup from "../PolicyGroup.js"
import { Ids } from "../ports/Ids.js"
import { OrganizationStore } from "../ports/OrganizationStore.js"
import { PolicyStore } from "../ports/PolicyStore.js"
import { RepositoryStore } from "../ports/RepositoryStore.js"
import { transaction } from "../ports/Transaction.js"
import { audit, type Caller, emit, now } from "./Caller.js"
import { connectedProvider } from "./ConnectedProvider.js"
import { loadGroup } from "./GroupAccess.js"
import { mappingEvent, policyRouting } from "./PolicyEvents.js"

/** What one sync did. `changed`: the phase's published mappings changed. */
export interface SyncSummary {
  readonly phaseId: PhaseId
  /** The file version read (its blob sha); `null` when there was no file to read. */
  readonly version: string | null
  readonly changed: boolean
  readonly created: number
  readonly updated: number
  readonly removed: number
  /** The phase's current problem (`lastError`), when its file could not be applied. */
  readonly error?: string
}

/**
 * Reads the phase's file through its connection. Problems of the phase's own configuration (no
 * such connection, an inactive one, an unknown repository or branch) become a `SourceRead` the
 * core records on the phase; passing provider trouble (rate limit, outage, rejected credentials,
 * no adapter) fails with its `VcsProviderError` and changes nothing on the phase. The connection's
 * status follows the provider's answer like every provider call's (`ConnectionHealth`).
 */
const readSource = (caller: Caller, source: PolicyGroup.ExternalSource) =>
  Effect.gen(function*() {
    const { vcsConnections } = yield* RepositoryStore
    const found = yield* vcsConnections.get(caller.orgId, source.vcsConnectionId)
    if (Option.isNone(found)) return { _tag: "Unreachable", problem: "connection-missing" } as const
    const connection = found.value
    if (connection.status === "inactive") return { _tag: "Unreachable", problem: "connection-inactive" } as const
    const settings = Option.getOrNull(yield* vcsConnections.settings(caller.orgId, connection.id))
    const provider = yield* connectedProvider({ orgId: caller.orgId, connection, settings })
    return yield* provider.readFile({ fullName: source.repositoryFullName, branch: source.branch, path: source.path }).pipe(
      Effect.map(Option.match({
        onNone: (): MappingsFile.SourceRead => ({ _tag: "Missing" }),
        onSome: (file): MappingsFile.SourceRead => ({ _tag: "Found", content: file.content, version: file.version })
      })),
      Effect.catchIf(
        (e) => e.reason === "not-found",
        (): Effect.Effect<MappingsFile.SourceRead> => Effect.succeed({ _tag: "Unreachable", problem: "repository-or-branch-not-found" })
      )
    )
  })

/**
 * POST .../phases/{phaseId}/sync, provider pushes and the poll worker: brings one external phase
 * in line with its file. 404 for an unknown group or phase, `PhaseNotExternal` for an internal
 * phase, `VcsProviderError` when the provider could not answer (nothing changes then).
 */
export const syncExternalPhase = Effect.fn("Sync.syncExternalPhase")(function*(
  caller: Caller,
  groupId: PolicyGroupId,
  phaseId: PhaseId
) {
  const { policyGroups, published } = yield* PolicyStore
  const { organizations } = yield* OrganizationStore
  const ids = yield* Ids
  const before = yield* Effect.fromResult(PolicyGroup.ensureExternalPhase(yield* loadGroup(caller, groupId), phaseId))
  // the provider is asked outside the transaction: no row lock is held across a network call
  const read = yield* readSource(caller, before.external)
  return yield* transaction(Effect.gen(function*() {
    yield* policyGroups.lock(caller.orgId, groupId)
    // decided on the state under the lock: a racing sync of the same version finds it processed
    const group = yield* loadGroup(caller, groupId)
    const phase = yield* Effect.fromResult(PolicyGroup.ensureExternalPhase(group, phaseId))
    const decision = MappingsFile.decideSync(phase.external, read)
    const unchanged = { phaseId: phase.id, changed: false, created: 0, updated: 0, removed: 0 }
    if (decision._tag === "Unchanged") {
      return { ...unchanged, version: decision.version, ...(phase.external.lastError !== null ? { error: phase.external.lastError } : {}) }
    }
    const at = yield* now
    const changedAt = at.toISOString()
    const org = yield* organizations.get(caller.orgId)
    const routing = policyRouting(group, org)
    const groupPublished = yield* published.listByGroup(caller.orgId, groupId)
    const groupUpdated = (mappingCount: number) => ({
      type: "service.policy_group.updated" as const,
      data: { policy_group_id: groupId, action: "updated", mapping_count: mappingCount, changed_at: changedAt }
    })

    if (decision._tag === "Rejected") {
      // the published mappings stay; the phase says why, and subscribers hear of it
      yield* policyGroups.setExternalState(caller.orgId, groupId, phase.id, {
        lastSyncedAt: changedAt,
        lastError: decision.lastError,
        lastVersion: decision.version
      })
      yield* audit(caller, "policy_group.sync_rejected", "phase", phase.id)
      yield* emit(caller, routing, [groupUpdated(groupPublished.length)])
      return { ...unchanged, version: decision.version, error: decision.lastError }
    }

    const current = groupPublished.filter((m) => m.phaseId === phase.id)
    const added = MappingsFile.diffMappings(current, decision.mappings).added.length
    const fresh: Array<MappingId> = []
    for (let i = 0; i < added; i++) fresh.push(yield* ids.next("mapping"))
    const result = MappingsFile.applySync({
      phaseId: phase.id,
      current,
      file: decision.mappings,
      now: at,
      cooldownSeconds: PolicyGroup.cooldownSecondsOf(group, Option.match(org, { onNone: () => 0, onSome: (o) => o.cooldownSeconds })),
      ids: fresh
    })
    yield* published.replace(caller.orgId, groupId, [phase.id], result.published)
    yield* policyGroups.setExternalState(caller.orgId, groupId, phase.id, {
      lastSyncedAt: changedAt,
      lastError: null,
      lastVersion: decision.version
    })
    yield* audit(caller, "policy_group.sync", "phase", phase.id)
    const byKey = new Map(result.published.map((m) => [m.key, m]))
    const live = (key: string) => byKey.get(key)!
    const { diff } = result
    const changed = diff.added.length + diff.changed.length + diff.removed.length > 0
    if (changed || phase.external.lastError !== null) {
      yield* emit(caller, routing, [
        groupUpdated(groupPublished.length - current.length + result.published.length),
        ...diff.added.map((m) => live(mappingKey(m.fromImage, m.platformScope))).map(mappingEvent(groupId, changedAt, "created")),
        ...diff.changed.map((c) => live(c.before.key)).map(mappingEvent(groupId, changedAt, "updated")),
        ...diff.removed.map(mappingEvent(groupId, changedAt, "removed"))
      ])
    }
    return {
      phaseId: phase.id,
      version: decision.version,
      changed,
      created: diff.added.length,
      updated: diff.changed.length,
      removed: diff.removed.length
    }
  }))
})

/** Syncs every external phase of a connection's organization that a provider push concerns. */
export const syncPushed = Effect.fn("Sync.syncPushed")(function*(
  caller: Caller,
  vcsConnectionId: VcsConnectionId,
  push: MappingsFile.Push
) {
  const { policyGroups } = yield* PolicyStore
  const targets = MappingsFile.phasesTouchedByPush(yield* policyGroups.all(caller.orgId), vcsConnectionId, push)
  return yield* Effect.forEach(targets, (target) =>
    syncExternalPhase(caller, target.policyGroupId, target.phaseId).pipe(
      // the push was received; a provider that cannot answer now is retried by the poll worker
      Effect.catchTag("VcsProviderError", (error) =>
        Effect.succeed<SyncSummary>({
          phaseId: target.phaseId,
          version: null,
          changed: false,
          created: 0,
          updated: 0,
          removed: 0,
          error: error.message
        })),
      // a group or phase removed since the listing is simply no longer synced
      Effect.catchTags({
        PolicyGroupNotFound: () => Effect.succeed(null),
        PhaseNotFound: () => Effect.succeed(null),
        PhaseNotExternal: () => Effect.succeed(null)
      })
    )).pipe(Effect.map((summaries) => summaries.filter((s): s is SyncSummary => s !== null)))
})

/** The connection a provider push names, with its organization and settings (for the signature check). */
export const locateConnection = Effect.fn("Sync.locateConnection")(function*(vcsConnectionId: VcsConnectionId) {
  const { vcsConnections } = yield* RepositoryStore
  return yield* vcsConnections.locate(vcsConnectionId)
})
