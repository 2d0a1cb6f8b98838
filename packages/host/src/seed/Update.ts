/**
 * `seed --update`: a seed applied to an organization that exists, through the workflows the API
 * uses (their rules, their audit rows as the system actor `seed`, their events). Everything is
 * matched by name (teams, routines within their team, connections by `externalAccountName`, policy
 * groups, phases within their group, API keys, roles) or email (users): what the organization
 * lacks is created, what the seed says differently is changed, nothing the seed does not name is
 * deleted, and a setting the seed leaves out keeps its value. Applying the same seed again changes
 * nothing (no audit row, no event): each step compares before it writes.
 *
 * Kept as they are once they exist: a connection's settings (fixture data, base URL, token: the API
 * replaces a token), an API key's secret, role and expiry, a phase's position.
 */
import {
  AccessStore,
  type Id,
  Ids,
  Organization,
  OrganizationStore,
  type PolicyAdministration,
  PolicyStore,
  readAllPages,
  RepositoryStore,
  Workflows
} from "@image-policy/core"
import * as Effect from "effect/Effect"
import { applyAccess } from "./Access.js"
import { apiKeyRow, connectionSettings, seedCaller } from "./Rows.js"
import { at, type SeedOrganization } from "./SeedFile.js"

const { audit } = Workflows.Caller

const notificationOf = (team: string, teams: Record<string, Id.TeamId>): PolicyAdministration.NotificationSetting =>
  team === "inherit" ? "inherit" : team === "none" ? "disabled" : { teamId: teams[team]! }

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

export const update = Effect.fnUntraced(function*(current: Organization.Organization, org: SeedOrganization, path: string) {
  const orgId = current.id
  const caller = seedCaller(orgId)
  const { organizations, routines: routineStore, teams: teamStore } = yield* OrganizationStore
  const { vcsConnections } = yield* RepositoryStore
  const { policyGroups } = yield* PolicyStore
  const apiKeys = yield* AccessStore
  const ids = yield* Ids
  const now = yield* Workflows.Caller.now

  // the operator's fields (the API never changes them)
  const operator = { name: org.name, edition: org.edition, grants: org.grants ?? current.grants }
  if (!same(operator, { name: current.name, edition: current.edition, grants: current.grants })) {
    yield* organizations.insert({ ...current, ...operator })
    yield* audit(caller, "organization.update", "organization", orgId)
  }

  const teams: Record<string, Id.TeamId> = {}
  const routines: Record<string, string> = {}
  const existingTeams = new Map((yield* readAllPages((page) => teamStore.list(orgId, page))).map((t) => [t.name, t.id]))
  for (const [i, team] of org.teams.entries()) {
    const tat = `${path}.teams[${i}]`
    teams[team.name] = existingTeams.get(team.name) ??
      (yield* Workflows.Teams.createTeam(caller, { name: team.name }).pipe(at(tat))).id
  }
  const applyRoutines = (
    seeded: SeedOrganization["routinesWithoutTeam"],
    teamId: Id.TeamId | null,
    rat: (j: number) => string,
    key: (name: string) => string
  ) =>
    Effect.gen(function*() {
      const existing = new Map(
        (yield* readAllPages((page) => routineStore.list(orgId, page, teamId === null ? {} : { teamId })))
          .filter((r) => r.teamId === teamId)
          .map((r) => [r.name, r])
      )
      for (const [j, r] of seeded.entries()) {
        const found = existing.get(r.name)
        if (found === undefined) {
          if (teamId !== null) {
            const created = yield* Workflows.Teams.createRoutine(caller, teamId, r).pipe(at(rat(j)))
            routines[key(r.name)] = created.id
          } else {
            // the API creates routines within a team only; the seed's teamless ones are written here
            const id = yield* ids.next("routine")
            yield* routineStore.insert(orgId, { id, teamId: null, name: r.name, active: r.active ?? true, intervalDays: r.intervalDays })
            yield* audit(caller, "routine.create", "routine", id)
            routines[key(r.name)] = id
          }
          continue
        }
        routines[key(r.name)] = found.id
        if (r.intervalDays !== found.intervalDays || (r.active !== undefined && r.active !== found.active)) {
          yield* Workflows.Teams.updateRoutine(caller, found.id, {
            intervalDays: r.intervalDays,
            ...(r.active !== undefined ? { active: r.active } : {})
          })
            .pipe(at(rat(j)))
        }
      }
    })
  for (const [i, team] of org.teams.entries()) {
    yield* applyRoutines(team.routines, teams[team.name]!, (j) => `${path}.teams[${i}].routines[${j}]`, (name) => `${team.name}/${name}`)
  }
  yield* applyRoutines(org.routinesWithoutTeam, null, (j) => `${path}.routinesWithoutTeam[${j}]`, (name) => name)

  const settings: Organization.SettingsPatch = {
    ...(org.defaultNotificationTeam !== undefined && teams[org.defaultNotificationTeam] !== current.defaultNotificationTeamId
      ? { defaultNotificationTeamId: teams[org.defaultNotificationTeam]! }
      : {}),
    ...(org.cooldownSeconds !== undefined && org.cooldownSeconds !== current.cooldownSeconds
      ? { cooldownSeconds: org.cooldownSeconds }
      : {})
  }
  if (Object.keys(settings).length > 0) yield* Workflows.Settings.updateSettings(caller, settings).pipe(at(path))

  const connections: Record<string, Id.VcsConnectionId> = {}
  const existingConnections = new Map(
    (yield* readAllPages((page) => vcsConnections.list(orgId, page))).map((c) => [c.externalAccountName, c])
  )
  for (const [i, c] of org.vcsConnections.entries()) {
    const found = existingConnections.get(c.externalAccountName)
    if (found === undefined) {
      const id = yield* ids.next("vcsConnection")
      yield* vcsConnections.insert(
        orgId,
        { id, provider: c.provider, externalAccountName: c.externalAccountName, status: c.status ?? "active" },
        yield* connectionSettings(c)
      )
      yield* audit(caller, "vcs_connection.create", "vcs_connection", id)
      connections[c.externalAccountName] = id
      continue
    }
    connections[c.externalAccountName] = found.id
    // `error` is the providers' to set: a seed switches a connection on or off only
    if (c.status !== undefined && c.status !== "error" && c.status !== found.status) {
      yield* Workflows.VcsConnections.updateVcsConnection(caller, found.id, { status: c.status })
        .pipe(at(`${path}.vcsConnections[${i}].status`))
    }
  }

  const groups: Record<string, { id: string; phases: Record<string, string> }> = {}
  const existingGroups = new Map((yield* policyGroups.all(orgId)).map((g) => [g.name, g]))
  for (const [i, g] of org.policyGroups.entries()) {
    const gat = `${path}.policyGroups[${i}]`
    const fields = {
      ...(g.applyToAllRepos !== undefined ? { applyToAllRepos: g.applyToAllRepos } : {}),
      ...(g.notificationTeam !== undefined ? { notification: notificationOf(g.notificationTeam, teams) } : {}),
      ...(g.cooldownSeconds !== undefined ? { cooldownSeconds: g.cooldownSeconds } : {})
    }
    const found = existingGroups.get(g.name)
    // the workflow writes (and audits) only what differs
    const groupId = found === undefined
      ? (yield* Workflows.PolicyAdministration.createPolicyGroup(caller, { name: g.name, ...fields }).pipe(at(gat))).id
      : (yield* Workflows.PolicyAdministration.updatePolicyGroup(caller, found.id, fields).pipe(at(gat))).id
    const phases: Record<string, string> = {}
    const existingPhases = new Map((found?.phases ?? []).map((p) => [p.name, p]))
    for (const [j, p] of g.phases.entries()) {
      const pat = `${gat}.phases[${j}]`
      const external = p.file === undefined ? {} : {
        external: {
          vcsConnectionId: connections[p.file.connection]!,
          repositoryFullName: p.file.repository,
          branch: p.file.branch,
          path: p.file.path,
          ...(p.file.pollIntervalSeconds !== undefined ? { pollIntervalSeconds: p.file.pollIntervalSeconds } : {})
        }
      }
      const phase = existingPhases.get(p.name)
      phases[p.name] = phase === undefined
        ? (yield* Workflows.PolicyAdministration.createPhase(caller, groupId, { name: p.name, sourceType: p.source, ...external })
          .pipe(at(pat))).id
        : (yield* Workflows.PolicyAdministration.updatePhase(caller, groupId, phase.id, { sourceType: p.source, ...external })
          .pipe(at(pat))).id
    }
    groups[g.name] = { id: groupId, phases }
  }

  const keys: Record<string, string> = {}
  const existingKeys = new Map(
    (yield* readAllPages((page) => apiKeys.list(orgId, page))).filter((k) => k.revokedAt === null).map((k) => [k.name, k.id])
  )
  for (const k of org.apiKeys) {
    const found = existingKeys.get(k.name)
    if (found !== undefined) {
      keys[k.name] = found
      continue
    }
    const row = yield* apiKeyRow(k, now)
    yield* apiKeys.insert(orgId, row)
    yield* audit(caller, "api_key.create", "api_key", row.id)
    keys[k.name] = row.id
  }

  const access = yield* applyAccess(caller, org, path)
  return {
    id: orgId as string,
    name: org.name,
    existing: true,
    teams,
    routines,
    vcsConnections: connections,
    policyGroups: groups,
    apiKeys: keys,
    ...access
  }
})
