/**
 * Seed files (contracts 2): organizations with their teams, routines, VCS connections (fixture
 * data or a provider API), policy groups, API keys, custom roles and users. A seed is validated
 * whole before anything is written (SeedFile.ts), and a valid seed is written in one transaction.
 * An organization whose fixed `id` already exists is left as it is, so a service can load the same
 * seed at every start; with `update` it is brought to what the seed says instead (Update.ts).
 *
 * An `api` connection's token and push webhook secret are given either as the name of an
 * environment variable (`tokenEnv`, `webhookSecretEnv`) or as the value itself (`token`,
 * `webhookSecret`): a value is sealed with the core's `SecretBox` on load and only the sealed form
 * is stored. Problems about those fields never repeat what was given.
 */
import { AccessStore, type Id, Ids, OrganizationStore, PolicyGroup, PolicyStore, RepositoryStore, transaction } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { applyAccess } from "./Access.js"
import { apiKeyRow, connectionSettings, seedCaller } from "./Rows.js"
import type { SeedFile, SeedOrganization } from "./SeedFile.js"
import { update } from "./Update.js"

export * from "./SeedFile.js"

export interface SeededOrganization {
  readonly id: string
  readonly name: string
  /** The organization existed before this load (left as it was unless `update`). */
  readonly existing: boolean
  readonly teams: Record<string, string>
  readonly routines: Record<string, string>
  readonly vcsConnections: Record<string, string>
  readonly policyGroups: Record<string, { readonly id: string; readonly phases: Record<string, string> }>
  readonly apiKeys: Record<string, string>
  readonly roles: Record<string, string>
  /** Member ids by the seed's email. */
  readonly members: Record<string, string>
}

export interface LoadOptions {
  /** Apply the seed to organizations that exist (`seed --update`) rather than leaving them as they are. */
  readonly update?: boolean | undefined
}

/** Writes a new organization as the seed describes it. */
const create = Effect.fnUntraced(function*(orgId: Id.OrgId, org: SeedOrganization, path: string, now: Date) {
  const organizationStore = yield* OrganizationStore
  const { vcsConnections } = yield* RepositoryStore
  const { policyGroups } = yield* PolicyStore
  const apiKeys = yield* AccessStore
  const ids = yield* Ids
  const teams: Record<string, Id.TeamId> = {}
  for (const team of org.teams) teams[team.name] = yield* ids.next("team")
  yield* organizationStore.organizations.insert({
    id: orgId,
    name: org.name,
    edition: org.edition,
    grants: org.grants ?? [],
    defaultNotificationTeamId: org.defaultNotificationTeam !== undefined ? teams[org.defaultNotificationTeam]! : null,
    cooldownSeconds: org.cooldownSeconds ?? 0
  })
  const routines: Record<string, string> = {}
  const insertRoutine = (teamId: Id.TeamId | null, key: string, r: SeedOrganization["routinesWithoutTeam"][number]) =>
    Effect.gen(function*() {
      const id = yield* ids.next("routine")
      routines[key] = id
      yield* organizationStore.routines.insert(orgId, { id, teamId, name: r.name, active: r.active ?? true, intervalDays: r.intervalDays })
    })
  for (const team of org.teams) {
    yield* organizationStore.teams.insert(orgId, { id: teams[team.name]!, name: team.name })
    for (const r of team.routines) yield* insertRoutine(teams[team.name]!, `${team.name}/${r.name}`, r)
  }
  for (const r of org.routinesWithoutTeam) yield* insertRoutine(null, r.name, r)
  const connections: Record<string, Id.VcsConnectionId> = {}
  for (const c of org.vcsConnections) {
    const id = yield* ids.next("vcsConnection")
    connections[c.externalAccountName] = id
    yield* vcsConnections.insert(
      orgId,
      { id, provider: c.provider, externalAccountName: c.externalAccountName, status: c.status ?? "active" },
      yield* connectionSettings(c)
    )
  }
  const groups: Record<string, { id: string; phases: Record<string, string> }> = {}
  for (const g of org.policyGroups) {
    const id = yield* ids.next("policyGroup")
    const phases: Record<string, string> = {}
    const phaseRows = []
    for (const [position, p] of g.phases.entries()) {
      const phaseId = yield* ids.next("phase")
      phases[p.name] = phaseId
      phaseRows.push({
        id: phaseId,
        name: p.name,
        sourceType: p.source,
        position,
        ...(p.file !== undefined
          ? {
            external: {
              vcsConnectionId: connections[p.file.connection]!,
              repositoryFullName: p.file.repository,
              branch: p.file.branch,
              path: p.file.path,
              pollIntervalSeconds: p.file.pollIntervalSeconds ?? PolicyGroup.defaultPollIntervalSeconds,
              lastSyncedAt: null,
              lastError: null,
              lastVersion: null
            }
          }
          : {})
      })
    }
    groups[g.name] = { id, phases }
    const team = g.notificationTeam ?? "inherit"
    yield* policyGroups.insert(orgId, {
      id,
      name: g.name,
      applyToAllRepos: g.applyToAllRepos ?? false,
      notificationRouting: team === "inherit" || team === "none" ? { kind: team } : { kind: "team", teamId: teams[team]! },
      cooldownSeconds: g.cooldownSeconds ?? null,
      phases: phaseRows
    })
  }
  const keys: Record<string, string> = {}
  for (const k of org.apiKeys) {
    const row = yield* apiKeyRow(k, now)
    keys[k.name] = row.id
    yield* apiKeys.insert(orgId, row)
  }
  const access = yield* applyAccess(seedCaller(orgId), org, path)
  return {
    id: orgId as string,
    name: org.name,
    existing: false,
    teams,
    routines,
    vcsConnections: connections,
    policyGroups: groups,
    apiKeys: keys,
    ...access
  } satisfies SeededOrganization
})

/** Writes a validated seed in one transaction and answers the ids by name (created, or found with `update`). */
export const load = Effect.fn("Seed.load")(function*(seed: SeedFile, options: LoadOptions = {}) {
  const { organizations } = yield* OrganizationStore
  const ids = yield* Ids
  const now = new Date(yield* Clock.currentTimeMillis)
  return yield* transaction(Effect.gen(function*() {
    const result: Array<SeededOrganization> = []
    for (const [i, org] of seed.organizations.entries()) {
      const path = `$.organizations[${i}]`
      const current = org.id !== undefined ? yield* organizations.get(org.id) : Option.none()
      if (Option.isNone(current)) {
        result.push(yield* create(org.id ?? (yield* ids.next("organization")), org, path, now))
      } else if (options.update) {
        // the organization's row lock: settings writers and team deleters wait for the whole seed
        yield* organizations.lock(current.value.id)
        result.push(yield* update(current.value, org, path))
      } else {
        const none = { teams: {}, routines: {}, vcsConnections: {}, policyGroups: {}, apiKeys: {}, roles: {}, members: {} }
        result.push({ id: current.value.id, name: org.name, existing: true, ...none })
      }
    }
    return result
  }))
})
