/**
 * The storage contract: one suite, run against every store (memory, PGlite, PostgreSQL) by a
 * one-line test file each, like @effect/sql-pg runs one suite per driver.
 */
import { assert, describe, it } from "@effect/vitest"
import type { ClaimedScan, Page, PageRequest, ScanOutcome, StoreService } from "@image-policy/core"
import { Id, Repository, Routine, Scan, Store, Team, VcsConnection } from "@image-policy/core"
import type {
  ApiKey,
  Audit,
  Mapping,
  Organization,
  Outbox,
  PolicyGroup,
  Remediation,
  Scanner,
  SnoozeRequest,
  Webhook
} from "@image-policy/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Fiber from "effect/Fiber"
import type * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import { afterAll, beforeAll } from "vitest"

let counter = 0
const randomBytes = () => {
  const b = new Uint8Array(16)
  globalThis.crypto.getRandomValues(b)
  return b
}
const newId = <A>(kind: Id.Kind): A => Id.make(kind, randomBytes()) as A
/** Monotonic timestamps so (createdAt, id) order is the insertion order. */
const stamp = () => new Date(Date.UTC(2026, 0, 1) + ++counter * 1000).toISOString()

const orgFixture = (): Organization.Organization => ({
  id: newId("organization"),
  name: "Acme",
  edition: "enterprise",
  grants: [{ feature: "automation-api", expiresAt: "2030-01-01T00:00:00.000Z" }],
  defaultNotificationTeamId: null,
  cooldownSeconds: 0
})

const allPages = <A>(list: (page: PageRequest) => Effect.Effect<Page<A>>, limit: number) =>
  Effect.gen(function*() {
    const items: Array<A> = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page: Page<A> = yield* list({ cursor, limit })
      items.push(...page.items)
      cursor = page.nextCursor ?? undefined
      pages++
      assert.isAtMost(page.items.length, limit)
    } while (cursor !== undefined && pages < 100)
    return { items, pages }
  })

export interface ContractOptions {
  /** Runs the parallel-writer tests (real concurrency on PostgreSQL; serialized stores pass trivially). */
  readonly concurrency?: boolean
}

export const storeContract = (name: string, layer: Layer.Layer<Store, unknown>, options: ContractOptions = {}) =>
  describe(`store contract: ${name}`, () => {
    const runtime = ManagedRuntime.make(layer)
    let store: StoreService
    beforeAll(async () => {
      store = await runtime.runPromise(Store)
    })
    afterAll(() => runtime.dispose())

    const run = <A, E>(effect: Effect.Effect<A, E>) => runtime.runPromise(effect)
    const newOrg = () =>
      Effect.gen(function*() {
        const org = orgFixture()
        yield* store.organizations.insert(org)
        return org
      })

    const team = (name: string): Team.Team => ({ id: newId("team"), name })
    const routine = (teamId: Id.TeamId | null, name = "Weekly"): Routine.Routine => ({
      id: newId("routine"), teamId, name, active: true, intervalDays: 7
    })
    const connection = (status: VcsConnection.VcsConnection["status"] = "active"): VcsConnection.VcsConnection => ({
      id: newId("vcsConnection"), provider: "github", externalAccountName: `acme-${++counter}`, status
    })
    const repository = (vcsConnectionId: Id.VcsConnectionId, externalRepoId: string, t: Id.TeamId, r: Id.RoutineId): Repository.Repository => ({
      id: newId("repository"), vcsConnectionId, externalRepoId, fullName: `acme/r${externalRepoId}`, defaultBranch: "main",
      assignedTeamId: t, assignedRoutineId: r,
      branches: [{ branchName: "main", scan: { status: "queued" } }, { branchName: "release", scan: { status: "queued" } }],
      createdAt: stamp()
    })
    const group = (phaseIds: Array<Id.PhaseId>, name = `G${++counter}`): PolicyGroup.PolicyGroup => ({
      id: newId("policyGroup"), name, applyToAllRepos: false, notificationRouting: { kind: "inherit" }, cooldownSeconds: null,
      phases: phaseIds.map((id, position) => ({ id, name: `P${position}`, sourceType: "internal" as const, position }))
    })
    const draft = (phaseId: Id.PhaseId, from: string, to: string): PolicyGroup.DraftMapping => {
      const at = stamp()
      return {
        id: newId("mapping"), key: `docker.io/library/${from}|`, fromImage: from, toImage: to, reason: "pin",
        createdAt: at, updatedAt: at, phaseId
      } as Mapping.Mapping & { phaseId: Id.PhaseId }
    }
    const apiKey = (secretHash: string): ApiKey.ApiKey => ({
      id: newId("apiKey"), serviceAccountId: newId("serviceAccount"), name: "ci", prefix: "ipk_abcdefgh", secretHash,
      role: "Policy Automation", permissions: [], expiresAt: null, revokedAt: null, lastUsedAt: null, createdAt: stamp()
    })
    const webhook = (): Webhook.WebhookDestination => ({
      id: newId("webhook"), name: "ops", type: "generic", endpointSealed: "v1.iv.ct", endpointPreview: "https://h.example/…/abcd",
      signingSecretSealed: "v1.iv.ss", audienceTeamId: null, scope: { kind: "organization" },
      events: ["service.policy_group.published"], status: "active", disabledReason: null, createdAt: stamp()
    })
    const audit = (action: string): Audit.AuditEvent => ({
      id: newId("audit"), at: stamp(), actor: { kind: "system", name: "test" }, action, resourceType: "team",
      resourceId: null, outcome: "success", detail: null
    })
    const event = (time = stamp()): Outbox.OutboxEvent => ({
      id: newId("event"), type: "service.policy_group.published", subject: "policy_group/pg_x", time,
      correlationId: "c1", data: { policy_group_id: "pg_x", action: "published", mapping_count: 1, changed_at: time }
    })

    const scan = (
      repositoryId: Id.RepositoryId,
      branchName: string,
      trigger: Scan.ScanTrigger = "manual"
    ): Scan.BranchScan => ({
      id: newId("scan"), repositoryId, branchName, trigger, status: "queued", failure: null, commitSha: null, fileCount: 0,
      findingCount: 0, attempts: 0, queuedAt: stamp(), startedAt: null, finishedAt: null
    })
    const finding = (file: string, line: number, column: number, reference = "nginx:1.25"): Scanner.Finding => ({
      kind: "dockerfile", file, line, column, reference, image: reference, normalized: `docker.io/library/${reference}`
    })
    const succeeded = (findings: ReadonlyArray<Scanner.Finding>, fileCount = 3): ScanOutcome => ({
      status: "succeeded", at: stamp(), commitSha: `c${++counter}`, fileCount, findings
    })
    const failed = (failure: Scan.ScanFailure = "provider-unavailable"): ScanOutcome => ({ status: "failed", at: stamp(), failure })
    const remediation = (
      repositoryId: Id.RepositoryId,
      branchName: string,
      status: Remediation.RemediationStatus = "open"
    ): Remediation.RemediationRequest => {
      const at = stamp()
      return {
        id: newId("remediation"), repositoryId, branchName, headBranch: `image-policy/remediate/${branchName}`, status,
        failure: null, number: ++counter, url: `https://github.example/acme/api/pull/${counter}`, scanId: newId("scan"),
        changes: [{
          file: "Dockerfile", line: 1, column: 6, from: "nginx:1.25", to: "registry.example/nginx:1.25.4",
          policyGroupId: newId("policyGroup"), phaseId: newId("phase"), mappingId: newId("mapping"), reason: "pinned by Base"
        }],
        createdAt: at, updatedAt: at
      }
    }
    /** A tracked repository (branches `main` and `release`, or `branches`) with its team, routine and connection. */
    const trackedRepository = (orgId: Id.OrgId, options: { readonly routine?: Routine.Routine; readonly branches?: ReadonlyArray<string> } = {}) =>
      Effect.gen(function*() {
        const t = team("Platform")
        const r = options.routine ?? routine(t.id)
        const c = connection()
        yield* store.teams.insert(orgId, t)
        yield* store.routines.insert(orgId, r)
        yield* store.vcsConnections.insert(orgId, c, null)
        const repo = repository(c.id, `${++counter}`, t.id, r.id)
        const tracked = options.branches === undefined
          ? repo
          : { ...repo, branches: options.branches.map((branchName) => ({ branchName, scan: { status: "queued" as const } })) }
        yield* store.repositories.insert(orgId, tracked)
        return tracked
      })
    const branchStatuses = (orgId: Id.OrgId, id: Id.RepositoryId) =>
      Effect.map(store.repositories.get(orgId, id), (r) => Option.getOrThrow(r).branches.map((b) => b.scan.status))
    /** Claims run over every organization: a test looks only at its own scans. */
    const claimOf = (ids: ReadonlyArray<string>, worker: string, now: Date, leaseMs = 60_000) =>
      Effect.map(store.scans.claim({ worker, now, leaseMs, limit: 10_000 }), (claims) =>
        claims.filter((c) => ids.includes(c.scan.id)))
    const claimNow = new Date("2026-06-01T00:00:00.000Z")
    /** Queues, claims and finishes one scan; answers it as stored. */
    const complete = (orgId: Id.OrgId, s: Scan.BranchScan, outcome: ScanOutcome) =>
      Effect.gen(function*() {
        assert.strictEqual((yield* store.scans.enqueue(orgId, s)).id, s.id)
        assert.strictEqual((yield* claimOf([s.id], "finisher", claimNow)).length, 1)
        assert.isTrue(yield* store.scans.finish(orgId, s.id, "finisher", outcome))
        return Option.getOrThrow(yield* store.scans.get(orgId, s.id))
      })

    it("organizations: insert and get; unknown org is None", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        assert.deepStrictEqual(Option.getOrThrow(yield* store.organizations.get(org.id)), org)
        assert.isTrue(Option.isNone(yield* store.organizations.get(newId("organization"))))
      })))

    it("teams and routines: round trip, name order, keyset pages, routine filter by team", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const teams = ["Delta", "Alpha", "Echo", "Charlie", "Bravo"].map(team)
        for (const t of teams) yield* store.teams.insert(org.id, t)
        const { items, pages } = yield* allPages((p) => store.teams.list(org.id, p), 2)
        assert.deepStrictEqual(items.map((t) => t.name), ["Alpha", "Bravo", "Charlie", "Delta", "Echo"])
        assert.strictEqual(pages, 3)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.teams.get(org.id, teams[0]!.id)), teams[0])
        const r1 = routine(teams[0]!.id, "Daily")
        const r2 = routine(null, "Loose")
        yield* store.routines.insert(org.id, r1)
        yield* store.routines.insert(org.id, r2)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.routines.get(org.id, r2.id)), r2)
        const ofTeam = yield* store.routines.list(org.id, { limit: 50 }, { teamId: teams[0]!.id })
        assert.deepStrictEqual(ofTeam.items, [r1])
        assert.strictEqual(ofTeam.nextCursor, null)
        assert.strictEqual((yield* store.routines.list(org.id, { limit: 50 })).items.length, 2)

        // names beyond ASCII in one order on every store (code points, as UTF-8 bytes), across pages
        const wide = yield* newOrg()
        for (const name of ["😀 Smile", "Ａ Wide", "Z Plain", "é Accent"]) yield* store.teams.insert(wide.id, team(name))
        const paged = yield* allPages((p) => store.teams.list(wide.id, p), 1)
        assert.deepStrictEqual(paged.items.map((t) => t.name), ["Z Plain", "é Accent", "Ａ Wide", "😀 Smile"])
      })))

    it("org scoping: another organization sees none of these rows through any method", () =>
      run(Effect.gen(function*() {
        const a = yield* newOrg()
        const b = yield* newOrg()
        const t = team("Platform")
        const r = routine(t.id)
        const c = connection()
        yield* store.teams.insert(a.id, t)
        yield* store.routines.insert(a.id, r)
        yield* store.vcsConnections.insert(a.id, c, { fixture: true })
        const repo = repository(c.id, "1", t.id, r.id)
        yield* store.repositories.insert(a.id, repo)
        const phase = newId<Id.PhaseId>("phase")
        const g = group([phase])
        yield* store.policyGroups.insert(a.id, g)
        const d = draft(phase, "nginx:1", "nginx:2")
        yield* store.drafts.put(a.id, g.id, d)
        yield* store.assignments.replace(a.id, repo.id, [{ policyGroupId: g.id, branchNames: ["main"] }])
        const w = webhook()
        yield* store.webhooks.insert(a.id, w)
        yield* store.audit.append(a.id, audit("team.create"))
        const e = event()
        yield* store.outbox.append(a.id, [{ event: e, destinations: [w.id] }])

        assert.isTrue(Option.isNone(yield* store.teams.get(b.id, t.id)))
        assert.isTrue(Option.isNone(yield* store.routines.get(b.id, r.id)))
        assert.isTrue(Option.isNone(yield* store.vcsConnections.get(b.id, c.id)))
        assert.isTrue(Option.isNone(yield* store.vcsConnections.settings(b.id, c.id)))
        assert.isTrue(Option.isNone(yield* store.repositories.get(b.id, repo.id)))
        assert.isTrue(Option.isNone(yield* store.repositories.findByExternalId(b.id, c.id, "1")))
        assert.strictEqual((yield* store.repositories.trackedExternalIds(b.id, c.id)).size, 0)
        assert.isTrue(Option.isNone(yield* store.policyGroups.get(b.id, g.id)))
        assert.isTrue(Option.isNone(yield* store.drafts.findByKey(b.id, g.id, phase, d.key)))
        assert.strictEqual((yield* store.drafts.listByGroup(b.id, g.id)).length, 0)
        assert.strictEqual((yield* store.assignments.get(b.id, repo.id)).length, 0)
        assert.isTrue(Option.isNone(yield* store.webhooks.get(b.id, w.id)))
        assert.isTrue(Option.isNone(yield* store.outbox.getEvent(b.id, e.id)))
        assert.strictEqual((yield* store.outbox.deliveries(b.id, w.id, { limit: 50 })).items.length, 0)
        for (const list of [store.teams.list, store.routines.list, store.vcsConnections.list, store.repositories.list,
          store.policyGroups.list, store.webhooks.list, store.audit.list, store.apiKeys.list, store.snoozeRequests.list]) {
          assert.strictEqual((yield* list(b.id, { limit: 200 })).items.length, 0)
        }
      })))

    it("repositories: round trip, filter by id, tracked ids, scan status, duplicate tracking refused", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const t = team("Platform")
        const r = routine(t.id)
        const c = connection()
        yield* store.vcsConnections.insert(org.id, c, { fixture: { repositories: [] } })
        assert.deepStrictEqual(Option.getOrThrow(yield* store.vcsConnections.settings(org.id, c.id)), { fixture: { repositories: [] } })
        const repo = repository(c.id, "1001", t.id, r.id)
        yield* store.repositories.insert(org.id, repo)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.repositories.get(org.id, repo.id)), repo)
        const dup = yield* Effect.result(store.repositories.insert(org.id, repository(c.id, "1001", t.id, r.id)))
        assert.isTrue(Result.isFailure(dup) && dup.failure._tag === "RepositoryAlreadyTracked" && dup.failure.repositoryId === repo.id)
        const other = repository(c.id, "1002", t.id, r.id)
        yield* store.repositories.insert(org.id, other)
        assert.deepStrictEqual((yield* store.repositories.list(org.id, { limit: 50 }, { repositoryId: other.id })).items, [other])
        assert.deepStrictEqual([...(yield* store.repositories.trackedExternalIds(org.id, c.id))].sort(), ["1001", "1002"])
        // a provider's verdict moves a connection between active and error, never over the owner's inactive
        const statusNow = () => Effect.map(store.vcsConnections.get(org.id, c.id), (x) => Option.getOrThrow(x).status)
        yield* store.vcsConnections.setHealth(org.id, c.id, "error")
        assert.strictEqual(yield* statusNow(), "error")
        yield* store.vcsConnections.setHealth(org.id, c.id, "active")
        assert.strictEqual(yield* statusNow(), "active")
        yield* store.vcsConnections.setStatus(org.id, c.id, "inactive")
        assert.strictEqual(yield* statusNow(), "inactive")
        yield* store.vcsConnections.setHealth(org.id, c.id, "active")
        yield* store.vcsConnections.setHealth(org.id, c.id, "error")
        assert.strictEqual(yield* statusNow(), "inactive", "the owner's inactive stays")
        const elsewhere = yield* newOrg()
        yield* store.vcsConnections.setHealth(elsewhere.id, c.id, "active")
        assert.strictEqual(yield* statusNow(), "inactive", "another organization's id changes nothing")
      })))

    it("policy groups, drafts and published mappings", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const [p1, p2] = [newId<Id.PhaseId>("phase"), newId<Id.PhaseId>("phase")]
        const g: PolicyGroup.PolicyGroup = {
          ...group([p1, p2], "Base"),
          phases: [
            { id: p1, name: "Curated", sourceType: "internal", position: 0 },
            {
              id: p2, name: "Repo", sourceType: "external", position: 1,
              external: { vcsConnectionId: newId("vcsConnection"), repositoryFullName: "acme/policy", branch: "main",
                path: "service-mappings.json", pollIntervalSeconds: 300, lastSyncedAt: null, lastError: null, lastVersion: null }
            }
          ]
        }
        yield* store.policyGroups.insert(org.id, g)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.policyGroups.get(org.id, g.id)), g)
        assert.deepStrictEqual((yield* store.policyGroups.all(org.id)).map((x) => x.id), [g.id])
        yield* store.policyGroups.setExternalState(org.id, g.id, p2, { lastSyncedAt: "2026-01-02T00:00:00.000Z", lastError: "mappings[0].toImage: not exact", lastVersion: "abc" })
        const ext = Option.getOrThrow(yield* store.policyGroups.get(org.id, g.id)).phases[1]!.external!
        assert.deepStrictEqual([ext.lastSyncedAt, ext.lastError, ext.lastVersion], ["2026-01-02T00:00:00.000Z", "mappings[0].toImage: not exact", "abc"])
        assert.strictEqual(ext.pollIntervalSeconds, 300, "the poll interval round-trips and survives a sync state update")
        const faster = { ...g, phases: g.phases.map((p) => p.external ? { ...p, external: { ...p.external, pollIntervalSeconds: 10 } } : p) }
        yield* store.policyGroups.insert(org.id, faster)
        assert.strictEqual(Option.getOrThrow(yield* store.policyGroups.get(org.id, g.id)).phases[1]!.external!.pollIntervalSeconds, 10)

        const d1 = draft(p1, "nginx:1", "nginx:1.27")
        yield* store.drafts.put(org.id, g.id, d1)
        const replaced = { ...d1, toImage: "nginx:1.28", updatedAt: stamp() }
        yield* store.drafts.put(org.id, g.id, replaced)
        assert.deepStrictEqual(yield* store.drafts.listByGroup(org.id, g.id), [replaced])
        assert.deepStrictEqual(Option.getOrThrow(yield* store.drafts.findByKey(org.id, g.id, p1, d1.key)), replaced)
        const more = [draft(p1, "redis:7", "redis:7.2"), draft(p1, "node:20", "node:20.11")]
        for (const d of more) yield* store.drafts.put(org.id, g.id, d)
        const { items } = yield* allPages((p) => store.drafts.listByPhase(org.id, g.id, p1, p), 2)
        assert.deepStrictEqual(items.map((d) => d.id), [replaced.id, ...more.map((d) => d.id)])

        const live = (d: PolicyGroup.DraftMapping, activeFrom: string): PolicyGroup.PublishedMapping => ({ ...d, activeFrom })
        const external = live(draft(p2, "alpine:3", "alpine:3.20"), "2026-01-03T00:00:00.000Z")
        yield* store.published.replace(org.id, g.id, [p2], [external])
        yield* store.published.replace(org.id, g.id, [p1], [live(replaced, "2026-01-04T00:00:00.000Z")])
        const published = yield* store.published.listByGroup(org.id, g.id)
        assert.deepStrictEqual(published.map((m) => m.id).sort(), [external.id, replaced.id].sort())
        yield* store.published.replace(org.id, g.id, [p1], [])
        assert.deepStrictEqual((yield* store.published.listByGroup(org.id, g.id)).map((m) => m.id), [external.id])
        assert.deepStrictEqual((yield* store.published.listByGroup(org.id, g.id))[0], external)

        // several groups in one read: each list as listByGroup answers it, unknown groups empty
        yield* store.published.replace(org.id, g.id, [p1], [live(replaced, "2026-01-04T00:00:00.000Z"), live(more[0]!, "2026-01-05T00:00:00.000Z")])
        const unknown = Id.make("policyGroup", new Uint8Array(16).fill(99)) as Id.PolicyGroupId
        const both = yield* store.published.listByGroups(org.id, [unknown, g.id])
        assert.deepStrictEqual([...both.keys()].sort(), [unknown, g.id].sort())
        assert.deepStrictEqual(both.get(g.id), yield* store.published.listByGroup(org.id, g.id))
        assert.deepStrictEqual(both.get(unknown), [])
        assert.strictEqual((yield* store.published.listByGroups(org.id, [])).size, 0)
        const other = yield* newOrg()
        assert.deepStrictEqual((yield* store.published.listByGroups(other.id, [g.id])).get(g.id), [], "another organization's ids read nothing")
      })))

    it("unscoped reads for sync: a connection located by id alone, every organization's external phases", () =>
      run(Effect.gen(function*() {
        const a = yield* newOrg()
        const b = yield* newOrg()
        const c = connection()
        yield* store.vcsConnections.insert(a.id, c, { kind: "fixture", repositories: [], webhookSecret: "s3cret" })
        assert.deepStrictEqual(Option.getOrThrow(yield* store.vcsConnections.locate(c.id)), {
          orgId: a.id, connection: c, settings: { kind: "fixture", repositories: [], webhookSecret: "s3cret" }
        })
        yield* store.vcsConnections.setStatus(a.id, c.id, "error")
        assert.strictEqual(Option.getOrThrow(yield* store.vcsConnections.locate(c.id)).connection.status, "error")
        assert.isTrue(Option.isNone(yield* store.vcsConnections.locate(newId("vcsConnection"))))

        const external = (id: Id.PhaseId, position: number): PolicyGroup.Phase => ({
          id, name: `E${position}`, sourceType: "external", position,
          external: { vcsConnectionId: c.id, repositoryFullName: "acme/policy", branch: "main", path: `p${position}.json`,
            pollIntervalSeconds: 60, lastSyncedAt: null, lastError: null, lastVersion: null }
        })
        const [e1, e2, e3, i1] = [newId<Id.PhaseId>("phase"), newId<Id.PhaseId>("phase"), newId<Id.PhaseId>("phase"), newId<Id.PhaseId>("phase")]
        const g1: PolicyGroup.PolicyGroup = { ...group([i1]), phases: [{ id: i1, name: "I", sourceType: "internal", position: 0 }, external(e1, 1), external(e2, 2)] }
        const g2: PolicyGroup.PolicyGroup = { ...group([]), phases: [external(e3, 0)] }
        const internalOnly = group([newId<Id.PhaseId>("phase")])
        yield* store.policyGroups.insert(a.id, g1)
        yield* store.policyGroups.insert(b.id, g2)
        yield* store.policyGroups.insert(b.id, internalOnly)
        const mine = (yield* store.policyGroups.externalPhases()).filter((r) => r.orgId === a.id || r.orgId === b.id)
        const key = (r: { orgId: string; policyGroupId: string; phaseId: string }) => `${r.orgId}/${r.policyGroupId}/${r.phaseId}`
        assert.deepStrictEqual(mine.map(key).sort(), [
          { orgId: a.id, policyGroupId: g1.id, phaseId: e1 },
          { orgId: a.id, policyGroupId: g1.id, phaseId: e2 },
          { orgId: b.id, policyGroupId: g2.id, phaseId: e3 }
        ].map(key).sort())
        // each with its source as stored, so the poll worker needs no other read
        for (const ref of mine) {
          const stored = [...g1.phases, ...g2.phases].find((p) => p.id === ref.phaseId)
          assert.deepStrictEqual(ref.external, stored?.external)
        }
      })))

    it("assignments: replacement equals the request; empty clears", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const repoId = newId<Id.RepositoryId>("repository")
        const request = [
          { policyGroupId: newId<Id.PolicyGroupId>("policyGroup"), branchNames: ["main", "release"] },
          { policyGroupId: newId<Id.PolicyGroupId>("policyGroup"), branchNames: ["main"] }
        ]
        yield* store.assignments.replace(org.id, repoId, request)
        assert.deepStrictEqual(yield* store.assignments.get(org.id, repoId), request)
        yield* store.assignments.replace(org.id, repoId, request.slice(1))
        assert.deepStrictEqual(yield* store.assignments.get(org.id, repoId), request.slice(1))
        yield* store.assignments.replace(org.id, repoId, [])
        assert.deepStrictEqual(yield* store.assignments.get(org.id, repoId), [])
      })))

    it("API keys: found by hash with their org, revocation keeps metadata", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const hash = `h${randomBytes().join("")}`
        const key = apiKey(hash)
        yield* store.apiKeys.insert(org.id, key)
        const match = Option.getOrThrow(yield* store.apiKeys.findBySecretHash(hash))
        assert.strictEqual(match.orgId, org.id)
        assert.deepStrictEqual(match.key, key)
        assert.deepStrictEqual(match.organization, org)
        assert.isTrue(Option.isNone(yield* store.apiKeys.findBySecretHash("nope")))
        // the organization is read with the key on every lookup: a changed edition counts at once
        const downgraded: Organization.Organization = { ...org, edition: "free", grants: [] }
        yield* store.organizations.insert(downgraded)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.apiKeys.findBySecretHash(hash)).organization, downgraded)
        // another organization's key is found with that organization, never this one
        const other = yield* newOrg()
        const otherHash = `h${randomBytes().join("")}`
        yield* store.apiKeys.insert(other.id, apiKey(otherHash))
        const otherMatch = Option.getOrThrow(yield* store.apiKeys.findBySecretHash(otherHash))
        assert.strictEqual(otherMatch.orgId, other.id)
        assert.deepStrictEqual(otherMatch.organization, other)
        const revoked = { ...key, revokedAt: "2026-02-01T00:00:00.000Z", lastUsedAt: "2026-01-15T00:00:00.000Z" }
        yield* store.apiKeys.update(org.id, revoked)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.apiKeys.get(org.id, key.id)), revoked)
        assert.deepStrictEqual((yield* store.apiKeys.list(org.id, { limit: 10 })).items, [revoked])
      })))

    it("API keys: touch records the latest use and nothing else", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const key = apiKey(`h${randomBytes().join("")}`)
        yield* store.apiKeys.insert(org.id, key)
        const revoked = { ...key, revokedAt: "2026-02-01T00:00:00.000Z" }
        yield* store.apiKeys.update(org.id, revoked)
        yield* store.apiKeys.touch(org.id, key.id, "2026-03-01T00:00:00.000Z")
        yield* store.apiKeys.touch(org.id, key.id, "2026-02-15T00:00:00.000Z")
        assert.deepStrictEqual(
          Option.getOrThrow(yield* store.apiKeys.get(org.id, key.id)),
          { ...revoked, lastUsedAt: "2026-03-01T00:00:00.000Z" }
        )
        // another organization's id changes nothing
        const other = yield* newOrg()
        yield* store.apiKeys.touch(other.id, key.id, "2026-04-01T00:00:00.000Z")
        assert.strictEqual(Option.getOrThrow(yield* store.apiKeys.get(org.id, key.id)).lastUsedAt, "2026-03-01T00:00:00.000Z")
      })))

    it("webhooks and snooze requests: insert, update, delete", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const w = webhook()
        yield* store.webhooks.insert(org.id, w)
        const disabled = { ...w, status: "disabled" as const, disabledReason: "410 Gone" }
        yield* store.webhooks.update(org.id, disabled)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.webhooks.get(org.id, w.id)), disabled)
        assert.deepStrictEqual(yield* store.webhooks.all(org.id), [disabled])
        yield* store.webhooks.delete(org.id, w.id)
        assert.isTrue(Option.isNone(yield* store.webhooks.get(org.id, w.id)))

        const s: SnoozeRequest.SnoozeRequest = {
          id: newId("snoozeRequest"), repositoryId: newId("repository"), fromImage: "nginx:1", reason: "vendor",
          until: "2026-03-01T00:00:00.000Z", status: "pending", createdAt: stamp(), reviewedAt: null, reviewComment: null
        }
        yield* store.snoozeRequests.insert(org.id, s)
        const approved = { ...s, status: "approved" as const, reviewedAt: "2026-01-05T00:00:00.000Z", reviewComment: "ok" }
        yield* store.snoozeRequests.update(org.id, approved)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.snoozeRequests.get(org.id, s.id)), approved)
        assert.deepStrictEqual((yield* store.snoozeRequests.list(org.id, { limit: 5 })).items, [approved])

        // one repository's requests, oldest first, whatever their status; nothing of another repository or organization
        const later: SnoozeRequest.SnoozeRequest = {
          ...s, id: newId<Id.SnoozeRequestId>("snoozeRequest"), fromImage: "redis:7", status: "rejected", createdAt: stamp()
        }
        const elsewhere: SnoozeRequest.SnoozeRequest = {
          ...s, id: newId<Id.SnoozeRequestId>("snoozeRequest"), repositoryId: newId<Id.RepositoryId>("repository"), createdAt: stamp()
        }
        for (const r of [later, elsewhere]) yield* store.snoozeRequests.insert(org.id, r)
        assert.deepStrictEqual(yield* store.snoozeRequests.listByRepository(org.id, s.repositoryId), [approved, later])
        assert.deepStrictEqual(yield* store.snoozeRequests.listByRepository(org.id, elsewhere.repositoryId), [elsewhere])
        const other = yield* newOrg()
        assert.deepStrictEqual(yield* store.snoozeRequests.listByRepository(other.id, s.repositoryId), [])
      })))

    it("audit events list newest first across pages", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const rows = [1, 2, 3, 4, 5].map((n) => audit(`a${n}`))
        for (const row of rows) yield* store.audit.append(org.id, row)
        const { items, pages } = yield* allPages((p) => store.audit.list(org.id, p), 2)
        assert.deepStrictEqual(items.map((a) => a.action), ["a5", "a4", "a3", "a2", "a1"])
        assert.strictEqual(pages, 3)
        assert.deepStrictEqual(items[0], rows[4])
      })))

    it("crash safety: a failed transaction leaves no state, no audit row and no outbox row", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const t = team("Ghost")
        const e = event()
        const w = webhook()
        yield* store.webhooks.insert(org.id, w)
        const result = yield* Effect.result(store.transaction(Effect.gen(function*() {
          yield* store.teams.insert(org.id, t)
          yield* store.audit.append(org.id, audit("team.create"))
          yield* store.outbox.append(org.id, [{ event: e, destinations: [w.id] }])
          return yield* Effect.fail("boom" as const)
        })))
        assert.isTrue(Result.isFailure(result))
        assert.isTrue(Option.isNone(yield* store.teams.get(org.id, t.id)))
        assert.strictEqual((yield* store.audit.list(org.id, { limit: 10 })).items.length, 0)
        assert.isTrue(Option.isNone(yield* store.outbox.getEvent(org.id, e.id)))
        assert.strictEqual((yield* store.outbox.deliveries(org.id, w.id, { limit: 10 })).items.length, 0)
        // a defect rolls back too, and a nested transaction joins the outer one
        const t2 = team("Nested")
        yield* Effect.exit(store.transaction(Effect.gen(function*() {
          yield* store.transaction(store.teams.insert(org.id, t2))
          return yield* Effect.die("defect")
        })))
        assert.isTrue(Option.isNone(yield* store.teams.get(org.id, t2.id)))
        const t3 = team("Committed")
        yield* store.transaction(store.transaction(store.teams.insert(org.id, t3)))
        assert.isTrue(Option.isSome(yield* store.teams.get(org.id, t3.id)))
      })))

    it("outbox: claim leases, record attempts, dead letters and replay", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const w = webhook()
        yield* store.webhooks.insert(org.id, w)
        const e = event("2026-01-01T00:00:00.000Z")
        yield* store.outbox.append(org.id, [{ event: e, destinations: [w.id] }])
        assert.deepStrictEqual(Option.getOrThrow(yield* store.outbox.getEvent(org.id, e.id)), e)
        const now = new Date("2026-01-01T00:00:10.000Z")
        const mine = (claims: ReadonlyArray<Outbox.ClaimedDelivery>) => claims.filter((c) => c.event.id === e.id)
        const first = mine(yield* store.outbox.claim({ worker: "w1", now, leaseMs: 30_000, limit: 1000 }))
        assert.strictEqual(first.length, 1)
        assert.strictEqual(first[0]!.orgId, org.id)
        assert.deepStrictEqual(first[0]!.event, e)
        assert.strictEqual(mine(yield* store.outbox.claim({ worker: "w2", now, leaseMs: 30_000, limit: 1000 })).length, 0, "leased")
        const afterLease = new Date(now.getTime() + 31_000)
        const again = mine(yield* store.outbox.claim({ worker: "w2", now: afterLease, leaseMs: 30_000, limit: 1000 }))
        assert.strictEqual(again.length, 1, "an expired lease is claimable again")

        const attempt: Outbox.DeliveryAttempt = {
          eventId: e.id, webhookId: w.id, attempt: 1, at: "2026-01-01T00:00:42.000Z", statusCode: 503, durationMs: 12,
          outcome: "retry", errorCode: null
        }
        yield* store.outbox.recordAttempt(org.id, attempt, { status: "pending", nextAttemptAt: "2026-01-01T00:05:00.000Z" })
        const early = new Date("2026-01-01T00:04:00.000Z")
        assert.strictEqual(mine(yield* store.outbox.claim({ worker: "w3", now: early, leaseMs: 1000, limit: 1000 })).length, 0, "not due")
        const [delivery] = (yield* store.outbox.deliveries(org.id, w.id, { limit: 10 })).items
        assert.deepStrictEqual(
          { status: delivery!.status, attempts: delivery!.attempts, lastStatusCode: delivery!.lastStatusCode, next: delivery!.nextAttemptAt },
          { status: "pending", attempts: 1, lastStatusCode: 503, next: "2026-01-01T00:05:00.000Z" }
        )
        yield* store.outbox.recordAttempt(org.id, { ...attempt, attempt: 2, at: "2026-01-01T00:05:01.000Z" }, { status: "dead", nextAttemptAt: null })
        assert.deepStrictEqual((yield* store.outbox.attempts(org.id, e.id, w.id)).map((a) => a.attempt), [1, 2])
        const late = new Date("2026-01-02T00:00:00.000Z")
        assert.strictEqual(mine(yield* store.outbox.claim({ worker: "w3", now: late, leaseMs: 1000, limit: 1000 })).length, 0, "dead")
        assert.isFalse(yield* store.outbox.requeue(newId("organization"), e.id, w.id, late), "other org cannot replay")
        assert.isTrue(yield* store.outbox.requeue(org.id, e.id, w.id, late))
        const replayed = mine(yield* store.outbox.claim({ worker: "w3", now: late, leaseMs: 1000, limit: 1000 }))
        assert.strictEqual(replayed[0]?.event.id, e.id, "replay keeps the CloudEvent id")

        // the webhook was deleted while an attempt was in flight: nothing is recorded for it
        yield* store.webhooks.delete(org.id, w.id)
        yield* store.outbox.recordAttempt(org.id, { ...attempt, attempt: 3, at: "2026-01-02T00:00:01.000Z" }, { status: "succeeded", nextAttemptAt: null })
        assert.deepStrictEqual((yield* store.outbox.attempts(org.id, e.id, w.id)).map((a) => a.attempt), [1, 2], "no attempt without its delivery")
      })))

    it("scans: enqueue answers the branch's queued or running scan instead of adding a second", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const repo = yield* trackedRepository(org.id)
        const onboarding = yield* complete(org.id, scan(repo.id, "main", "onboarding"), succeeded([]))
        assert.deepStrictEqual(yield* branchStatuses(org.id, repo.id), ["succeeded", "queued"])
        const first = scan(repo.id, "main", "manual")
        assert.deepStrictEqual(yield* store.scans.enqueue(org.id, first), first)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.scans.get(org.id, first.id)), first)
        assert.deepStrictEqual(yield* branchStatuses(org.id, repo.id), ["queued", "queued"], "enqueue sets the branch queued")

        const second = scan(repo.id, "main", "manual")
        assert.deepStrictEqual(yield* store.scans.enqueue(org.id, second), first, "a queued scan answers")
        assert.isTrue(Option.isNone(yield* store.scans.get(org.id, second.id)), "no second row")
        const release = scan(repo.id, "release")
        assert.deepStrictEqual(yield* store.scans.enqueue(org.id, release), release, "another branch queues its own")

        const [claimed] = yield* claimOf([first.id], "w1", claimNow)
        assert.strictEqual(claimed?.scan.status, "running")
        const third = scan(repo.id, "main", "routine")
        assert.deepStrictEqual(yield* store.scans.enqueue(org.id, third), claimed!.scan, "a running scan answers")
        assert.isTrue(yield* store.scans.finish(org.id, first.id, "w1", succeeded([])))
        assert.deepStrictEqual(yield* store.scans.enqueue(org.id, third), third, "after it ended, a new scan is queued")
        // the claim took the release scan too (claims take every queued scan up to the limit)
        assert.deepStrictEqual(yield* branchStatuses(org.id, repo.id), ["queued", "running"])
        const main = yield* store.scans.list(org.id, repo.id, { limit: 50 }, { branchName: "main" })
        assert.deepStrictEqual(main.items.map((x) => x.id), [third.id, first.id, onboarding.id])
      })))

    it("scans: claim leases queued scans oldest first, sets them and their branches running; a leased scan is not claimed twice", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const repo = yield* trackedRepository(org.id)
        const older = scan(repo.id, "release", "onboarding")
        const newer = scan(repo.id, "main", "onboarding")
        yield* store.scans.enqueue(org.id, older)
        yield* store.scans.enqueue(org.id, newer)
        const ids = [older.id, newer.id]
        const now = new Date("2026-03-01T00:00:00.000Z")
        const claims = yield* claimOf(ids, "w1", now, 30_000)
        assert.deepStrictEqual(claims, [older, newer].map((x): ClaimedScan => ({
          orgId: org.id, scan: { ...x, status: "running", startedAt: now.toISOString(), attempts: 1 }
        })))
        assert.deepStrictEqual(yield* branchStatuses(org.id, repo.id), ["running", "running"])
        assert.deepStrictEqual(yield* claimOf(ids, "w2", new Date(now.getTime() + 29_000)), [], "leased")
        assert.strictEqual(Option.getOrThrow(yield* store.scans.get(org.id, older.id)).status, "running")
      })))

    it("scans: a claim whose clock was read before the scan was queued starts it when it was queued", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const repo = yield* trackedRepository(org.id)
        const queued = scan(repo.id, "main", "onboarding")
        yield* store.scans.enqueue(org.id, queued)
        const before = new Date(Date.parse(queued.queuedAt) - 5)
        const [claimed] = yield* claimOf([queued.id], "w1", before)
        assert.strictEqual(claimed?.scan.startedAt, queued.queuedAt)
        assert.strictEqual(Option.getOrThrow(yield* store.scans.get(org.id, queued.id)).startedAt, queued.queuedAt)
      })))

    it("scans: an expired lease lets another worker claim a running scan; the first worker's finish then writes nothing", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const repo = yield* trackedRepository(org.id)
        const s = scan(repo.id, "main")
        yield* store.scans.enqueue(org.id, s)
        const now = new Date("2026-03-02T00:00:00.000Z")
        assert.strictEqual((yield* claimOf([s.id], "crashed", now, 30_000)).length, 1)
        const resumed = yield* claimOf([s.id], "w2", new Date(now.getTime() + 31_000), 30_000)
        assert.strictEqual(resumed.length, 1, "the crashed worker's lease expired")
        assert.strictEqual(resumed[0]!.scan.startedAt, now.toISOString(), "startedAt is the first start")
        assert.strictEqual(resumed[0]!.scan.attempts, 2, "the second claim")

        assert.isFalse(yield* store.scans.finish(org.id, s.id, "crashed", succeeded([finding("Dockerfile", 1, 6)])))
        const still = Option.getOrThrow(yield* store.scans.get(org.id, s.id))
        assert.deepStrictEqual([still.status, still.finishedAt, still.findingCount], ["running", null, 0])
        assert.deepStrictEqual(yield* store.scans.allFindings(org.id, repo.id, "main"), [], "no findings written")
        assert.isTrue(Option.isNone(yield* store.scans.latestSucceeded(org.id, repo.id, "main")))
        assert.deepStrictEqual(yield* branchStatuses(org.id, repo.id), ["running", "queued"])

        const outcome = failed("provider-rate-limited")
        assert.isTrue(yield* store.scans.finish(org.id, s.id, "w2", outcome))
        assert.isFalse(yield* store.scans.finish(org.id, s.id, "w2", succeeded([])), "an ended scan cannot end again")
        assert.deepStrictEqual(Option.getOrThrow(yield* store.scans.get(org.id, s.id)), {
          ...s, status: "failed", failure: "provider-rate-limited", startedAt: now.toISOString(), finishedAt: outcome.at, attempts: 2
        })
        assert.deepStrictEqual(yield* claimOf([s.id], "w3", new Date(now.getTime() + 3_600_000)), [], "an ended scan is never claimed")
      })))

    it("scans: each claim counts an attempt; after maxScanAttempts expired leases the next claim abandons the scan and hands out the next one", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const repo = yield* trackedRepository(org.id)
        // older than every other test's scans, so claims with limit 1 see these first
        const prior = { ...scan(repo.id, "main"), queuedAt: "2000-01-01T00:00:00.000Z" }
        const kept = [finding("Dockerfile", 1, 6)]
        yield* complete(org.id, prior, succeeded(kept))
        const poison = { ...scan(repo.id, "main", "routine"), queuedAt: "2000-01-01T00:00:01.000Z" }
        const next = { ...scan(repo.id, "release"), queuedAt: "2000-01-01T00:00:02.000Z" }
        yield* store.scans.enqueue(org.id, poison)
        yield* store.scans.enqueue(org.id, next)

        const start = new Date("2026-04-01T00:00:00.000Z")
        const at = (ms: number) => new Date(start.getTime() + ms)
        const claimOne = (worker: string, now: Date) => store.scans.claim({ worker, now, leaseMs: 60_000, limit: 1 })
        assert.strictEqual(Scan.maxScanAttempts, 3)
        for (let attempt = 1; attempt <= Scan.maxScanAttempts; attempt++) {
          // each run hangs past its 60 s lease (or its worker dies): the scan is claimed again
          const claims = yield* claimOne(`w${attempt}`, at((attempt - 1) * 61_000))
          assert.deepStrictEqual(claims, [{
            orgId: org.id, scan: { ...poison, status: "running", startedAt: start.toISOString(), attempts: attempt }
          }], `claim ${attempt}`)
          assert.strictEqual(Option.getOrThrow(yield* store.scans.get(org.id, poison.id)).attempts, attempt)
        }
        assert.strictEqual(Option.getOrThrow(yield* store.scans.get(org.id, next.id)).status, "queued", "the newer scan waits behind it")

        const giveUp = at(Scan.maxScanAttempts * 61_000)
        const claims = yield* claimOne("w4", giveUp)
        assert.deepStrictEqual(claims, [{
          orgId: org.id, scan: { ...next, status: "running", startedAt: giveUp.toISOString(), attempts: 1 }
        }], "the abandoned scan is not handed out, and does not take the slot")
        const abandoned: Scan.BranchScan = {
          ...poison, status: "failed", failure: "abandoned", startedAt: start.toISOString(), finishedAt: giveUp.toISOString(),
          attempts: Scan.maxScanAttempts
        }
        assert.deepStrictEqual(Option.getOrThrow(yield* store.scans.get(org.id, poison.id)), abandoned)
        assert.deepStrictEqual(yield* branchStatuses(org.id, repo.id), ["failed", "running"])
        assert.deepStrictEqual(yield* store.scans.allFindings(org.id, repo.id, "main"), kept, "the previous findings are kept")
        assert.strictEqual(Option.getOrThrow(yield* store.scans.latestSucceeded(org.id, repo.id, "main")).id, prior.id)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.scans.latest(org.id, repo.id, "main")), abandoned)

        assert.isFalse(yield* store.scans.finish(org.id, poison.id, "w3", succeeded([])), "its last worker's lease is gone")
        assert.deepStrictEqual(Option.getOrThrow(yield* store.scans.get(org.id, poison.id)), abandoned)
        assert.deepStrictEqual(yield* claimOf([poison.id], "w5", at(86_400_000)), [], "a finished scan is never claimed again")
        assert.deepStrictEqual(Option.getOrThrow(yield* store.scans.get(org.id, poison.id)), abandoned)
        const again = scan(repo.id, "main", "manual")
        assert.deepStrictEqual(yield* store.scans.enqueue(org.id, again), again, "the branch can be scanned again")
      })))

    it("scans: a scan on its last attempt runs out its lease; if it finishes, no later claim touches it", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const repo = yield* trackedRepository(org.id)
        const s = scan(repo.id, "main")
        yield* store.scans.enqueue(org.id, s)
        const start = new Date("2026-04-02T00:00:00.000Z")
        const at = (ms: number) => new Date(start.getTime() + ms)
        for (let attempt = 1; attempt <= Scan.maxScanAttempts; attempt++) {
          const [claimed] = yield* claimOf([s.id], `w${attempt}`, at((attempt - 1) * 61_000))
          assert.strictEqual(claimed?.scan.attempts, attempt)
        }
        const last = `w${Scan.maxScanAttempts}`
        // still within the last lease: neither claimed nor abandoned
        assert.deepStrictEqual(yield* claimOf([s.id], "early", at((Scan.maxScanAttempts - 1) * 61_000 + 30_000)), [])
        assert.strictEqual(Option.getOrThrow(yield* store.scans.get(org.id, s.id)).status, "running")
        const outcome = succeeded([finding("Dockerfile", 2, 6)])
        assert.isTrue(yield* store.scans.finish(org.id, s.id, last, outcome))
        const done = Option.getOrThrow(yield* store.scans.get(org.id, s.id))
        assert.deepStrictEqual([done.status, done.failure, done.attempts], ["succeeded", null, Scan.maxScanAttempts])
        assert.deepStrictEqual(yield* claimOf([s.id], "later", at(86_400_000)), [])
        assert.deepStrictEqual(Option.getOrThrow(yield* store.scans.get(org.id, s.id)), done, "a finished scan is never abandoned")
        assert.deepStrictEqual(yield* branchStatuses(org.id, repo.id), ["succeeded", "queued"])
      })))

    it("scans: a succeeded finish replaces the branch's findings and counts; a failed one keeps the previous findings", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const repo = yield* trackedRepository(org.id)
        const firstFindings = [finding("b/Dockerfile", 3, 6), finding("a/Dockerfile", 1, 6, "node:20")]
        const o1 = succeeded(firstFindings, 4)
        const s1 = scan(repo.id, "main", "onboarding")
        const done = yield* complete(org.id, s1, o1)
        assert.deepStrictEqual(done, {
          ...s1, status: "succeeded", failure: null, commitSha: (o1 as { commitSha: string }).commitSha, fileCount: 4,
          findingCount: 2, attempts: 1, startedAt: claimNow.toISOString(), finishedAt: o1.at
        })
        assert.deepStrictEqual(yield* store.scans.allFindings(org.id, repo.id, "main"), [firstFindings[1]!, firstFindings[0]!])
        assert.deepStrictEqual(yield* branchStatuses(org.id, repo.id), ["succeeded", "queued"])

        const replacement = [finding("compose.yaml", 7, 12, "redis:7")]
        const s2 = yield* complete(org.id, scan(repo.id, "main"), succeeded(replacement, 1))
        assert.deepStrictEqual(yield* store.scans.allFindings(org.id, repo.id, "main"), replacement, "replaced whole")
        assert.strictEqual(s2.findingCount, 1)

        const s3 = yield* complete(org.id, scan(repo.id, "main", "routine"), failed("too-large"))
        assert.deepStrictEqual([s3.status, s3.failure, s3.commitSha, s3.fileCount, s3.findingCount], ["failed", "too-large", null, 0, 0])
        assert.deepStrictEqual(yield* store.scans.allFindings(org.id, repo.id, "main"), replacement, "a failed scan keeps the findings")
        assert.deepStrictEqual(yield* branchStatuses(org.id, repo.id), ["failed", "queued"])
        assert.deepStrictEqual(Option.getOrThrow(yield* store.scans.latest(org.id, repo.id, "main")), s3)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.scans.latestSucceeded(org.id, repo.id, "main")), s2)
        assert.deepStrictEqual(yield* store.scans.allFindings(org.id, repo.id, "release"), [], "findings are per branch")
        assert.isTrue(Option.isNone(yield* store.scans.latest(org.id, repo.id, "release")))

        // an empty success clears the findings
        yield* complete(org.id, scan(repo.id, "main"), succeeded([]))
        assert.deepStrictEqual(yield* store.scans.allFindings(org.id, repo.id, "main"), [])
      })))

    it("scans: finding text with NUL or a lone surrogate is stored with U+FFFD in its place, and the scan succeeds", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const repo = yield* trackedRepository(org.id)
        const raw: Scanner.Finding = {
          kind: "kubernetes", file: "k8s/odd.yaml", line: 2, column: 3, reference: "nginx:1\u0000x",
          unresolved: ["A\u0000B", "\ud800"], stage: "s\u0000", platform: "linux/amd64"
        }
        const s = yield* complete(org.id, scan(repo.id, "main"), succeeded([raw, finding("k8s/odd.yaml", 1, 1)]))
        assert.strictEqual(s.status, "succeeded")
        const [first, second] = yield* store.scans.allFindings(org.id, repo.id, "main")
        assert.deepStrictEqual(first, finding("k8s/odd.yaml", 1, 1))
        assert.deepStrictEqual(second, {
          kind: "kubernetes", file: "k8s/odd.yaml", line: 2, column: 3, reference: "nginx:1\uFFFDx",
          unresolved: ["A\uFFFDB", "\uFFFD"], stage: "s\uFFFD", platform: "linux/amd64"
        })
      })))

    it("scans: lists newest first by (queuedAt, id) with cursors, optionally of one branch", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const repo = yield* trackedRepository(org.id)
        const m1 = yield* complete(org.id, scan(repo.id, "main"), succeeded([]))
        const r1 = yield* complete(org.id, scan(repo.id, "release"), failed())
        const m2 = yield* complete(org.id, scan(repo.id, "main"), succeeded([]))
        const r2 = yield* store.scans.enqueue(org.id, scan(repo.id, "release"))
        const m3 = yield* store.scans.enqueue(org.id, scan(repo.id, "main"))
        const all = yield* allPages((p) => store.scans.list(org.id, repo.id, p), 2)
        assert.deepStrictEqual(all.items, [m3, r2, m2, r1, m1])
        assert.strictEqual(all.pages, 3)
        const main = yield* allPages((p) => store.scans.list(org.id, repo.id, p, { branchName: "main" }), 1)
        assert.deepStrictEqual(main.items.map((x) => x.id), [m3.id, m2.id, m1.id])
        assert.deepStrictEqual(Option.getOrThrow(yield* store.scans.latest(org.id, repo.id, "main")), m3)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.scans.latestSucceeded(org.id, repo.id, "main")), m2)
        assert.isTrue(Option.isNone(yield* store.scans.latestSucceeded(org.id, repo.id, "release")))
        const other = yield* trackedRepository(org.id)
        assert.deepStrictEqual((yield* store.scans.list(org.id, other.id, { limit: 50 })).items, [], "per repository")
      })))

    it("scans: findings page by (file, line, column) in byte order; findings at one position keep the scanner's order", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const repo = yield* trackedRepository(org.id)
        const input = [
          finding("b/Dockerfile", 3, 6, "nginx:1"),
          finding("a/compose.yml", 10, 12),
          finding("a/compose.yml", 2, 5),
          finding("a/compose.yml", 10, 3),
          finding("b/Dockerfile", 3, 6, "nginx:2"),
          finding("Dockerfile", 1, 6),
          finding("a/compose.yml", 9, 30)
        ]
        yield* complete(org.id, scan(repo.id, "main"), succeeded(input))
        const expected = [5, 2, 6, 3, 1, 0, 4].map((i) => input[i]!)
        const paged = yield* allPages((p) => store.scans.findings(org.id, repo.id, "main", p), 2)
        assert.deepStrictEqual(paged.items, expected)
        assert.strictEqual(paged.pages, 4)
        assert.deepStrictEqual(yield* store.scans.allFindings(org.id, repo.id, "main"), expected)
        const one = yield* allPages((p) => store.scans.findings(org.id, repo.id, "main", p), 1)
        assert.deepStrictEqual(one.items, expected, "ties are split across pages without loss")
        const whole = yield* store.scans.findings(org.id, repo.id, "main", { limit: 7 })
        assert.deepStrictEqual([whole.items.length, whole.nextCursor], [7, null])
      })))

    it("scans: routine targets are the tracked branches of repositories whose routine is active, with the last routine scan", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const active = { ...routine(null, "Every 3 days"), intervalDays: 3 }
        const paused = { ...routine(null, "Paused"), active: false }
        const repo = yield* trackedRepository(org.id, { routine: active })
        const idle = yield* trackedRepository(org.id, { routine: paused })
        const targets = () =>
          Effect.map(store.scans.routineTargets(), (all) => all.filter((t) => t.orgId === org.id))
        const expected = (main: string | null, release: string | null) =>
          [["main", main], ["release", release]].map(([branchName, lastRoutineScanAt]) => ({
            orgId: org.id, repositoryId: repo.id, branchName: branchName!, intervalDays: 3, trackedAt: repo.createdAt,
            lastRoutineScanAt
          }))
        assert.deepStrictEqual(yield* targets(), expected(null, null))
        yield* complete(org.id, scan(repo.id, "main", "onboarding"), succeeded([]))
        yield* complete(org.id, scan(repo.id, "release", "manual"), succeeded([]))
        assert.deepStrictEqual(yield* targets(), expected(null, null), "only routine scans count")
        const r1 = yield* complete(org.id, scan(repo.id, "main", "routine"), failed())
        assert.deepStrictEqual(yield* targets(), expected(r1.queuedAt, null))
        const r2 = yield* store.scans.enqueue(org.id, scan(repo.id, "main", "routine"))
        assert.deepStrictEqual(yield* targets(), expected(r2.queuedAt, null), "the newest routine scan, whatever its status")
        yield* complete(org.id, scan(idle.id, "main", "routine"), succeeded([]))
        assert.isFalse((yield* targets()).some((t) => t.repositoryId === idle.id), "an inactive routine has no targets")
      })))

    it("remediation requests: put inserts or replaces, get, latest per branch, list newest first", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const repo = yield* trackedRepository(org.id)
        const r1 = remediation(repo.id, "main")
        const r2: Remediation.RemediationRequest = {
          ...remediation(repo.id, "release", "failed"), failure: "permission-denied", number: null, url: null
        }
        const r3 = remediation(repo.id, "main")
        for (const r of [r1, r2, r3]) yield* store.remediations.put(org.id, r)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.get(org.id, r1.id)), r1)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.get(org.id, r2.id)), r2)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.latest(org.id, repo.id, "main")), r3)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.latest(org.id, repo.id, "release")), r2)
        assert.isTrue(Option.isNone(yield* store.remediations.latest(org.id, repo.id, "develop")))
        // the newest that did not fail: a failed request after an open one leaves the open one found
        const r4: Remediation.RemediationRequest = { ...remediation(repo.id, "main", "failed"), failure: "conflict", number: null, url: null }
        yield* store.remediations.put(org.id, r4)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.latest(org.id, repo.id, "main")), r4)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.latest(org.id, repo.id, "main", { excludeFailed: true })), r3)
        assert.isTrue(Option.isNone(yield* store.remediations.latest(org.id, repo.id, "release", { excludeFailed: true })))

        const superseded = { ...r1, status: "superseded" as const, updatedAt: stamp() }
        yield* store.remediations.put(org.id, superseded)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.remediations.get(org.id, r1.id)), superseded)
        const listed = yield* allPages((p) => store.remediations.list(org.id, repo.id, p), 2)
        assert.deepStrictEqual(listed.items, [r4, r3, r2, superseded])
        assert.strictEqual(listed.pages, 2)
        const other = yield* trackedRepository(org.id)
        assert.deepStrictEqual((yield* store.remediations.list(org.id, other.id, { limit: 50 })).items, [], "per repository")

        const withNul = remediation(repo.id, "main")
        yield* store.remediations.put(org.id, {
          ...withNul,
          url: "https://git.example/pr/1\u0000",
          changes: [{ ...withNul.changes[0]!, from: "nginx:\u00001" }]
        })
        const storedNul = Option.getOrThrow(yield* store.remediations.get(org.id, withNul.id))
        assert.strictEqual(storedNul.changes[0]!.from, "nginx:\uFFFD1")
        assert.strictEqual(storedNul.url, "https://git.example/pr/1\uFFFD", "the provider's URL too")
      })))

    it("scans and remediation requests: another organization's ids find nothing and change nothing", () =>
      run(Effect.gen(function*() {
        const a = yield* newOrg()
        const b = yield* newOrg()
        const repo = yield* trackedRepository(a.id)
        const done = yield* complete(a.id, scan(repo.id, "main"), succeeded([finding("Dockerfile", 1, 6)]))
        const r = remediation(repo.id, "main")
        yield* store.remediations.put(a.id, r)
        const pending = scan(repo.id, "release")
        yield* store.scans.enqueue(a.id, pending)
        yield* claimOf([pending.id], "w", claimNow)

        assert.isTrue(Option.isNone(yield* store.scans.get(b.id, done.id)))
        assert.isTrue(Option.isNone(yield* store.scans.latest(b.id, repo.id, "main")))
        assert.isTrue(Option.isNone(yield* store.scans.latestSucceeded(b.id, repo.id, "main")))
        assert.deepStrictEqual((yield* store.scans.list(b.id, repo.id, { limit: 50 })).items, [])
        assert.deepStrictEqual((yield* store.scans.findings(b.id, repo.id, "main", { limit: 50 })).items, [])
        assert.deepStrictEqual(yield* store.scans.allFindings(b.id, repo.id, "main"), [])
        assert.isFalse(yield* store.scans.finish(b.id, pending.id, "w", succeeded([])), "another org cannot end the scan")
        assert.strictEqual(Option.getOrThrow(yield* store.scans.get(a.id, pending.id)).status, "running")
        const theirs = scan(repo.id, "release")
        assert.deepStrictEqual(yield* store.scans.enqueue(b.id, theirs), theirs, "a's pending scan is not b's")
        assert.isTrue(Option.isNone(yield* store.remediations.get(b.id, r.id)))
        assert.isTrue(Option.isNone(yield* store.remediations.latest(b.id, repo.id, "main")))
        assert.deepStrictEqual((yield* store.remediations.list(b.id, repo.id, { limit: 50 })).items, [])
        assert.isTrue(yield* store.scans.finish(a.id, pending.id, "w", succeeded([])))
        assert.deepStrictEqual(yield* branchStatuses(a.id, repo.id), ["succeeded", "succeeded"])
      })))

    // a transaction's writes are seen whole or not at all by reads outside it (memory: such reads
    // wait for the store's lock, which an open transaction holds)
    const openTransaction = (org: Organization.Organization, teams: ReadonlyArray<Team.Team>, outcome: "commit" | "rollback") =>
      Effect.gen(function*() {
        const written = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const writer = yield* Effect.forkChild(Effect.result(store.transaction(Effect.gen(function*() {
          yield* store.teams.insert(org.id, teams[0]!)
          yield* Deferred.succeed(written, undefined)
          yield* Deferred.await(release)
          for (const t of teams.slice(1)) yield* store.teams.insert(org.id, t)
          if (outcome === "rollback") return yield* Effect.fail("rolled back" as const)
        }))))
        yield* Deferred.await(written)
        // reads that start while the transaction is open, and run while it stays open
        const reads = yield* Effect.forkChild(Effect.all([
          store.teams.get(org.id, teams[0]!.id),
          Effect.map(store.teams.list(org.id, { limit: 50 }), (page) => page.items.map((t) => t.id)),
          store.organizations.get(org.id)
        ]))
        for (let i = 0; i < 20; i++) yield* Effect.yieldNow
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(writer)
        const [got, listed, organization] = yield* Fiber.join(reads)
        assert.deepStrictEqual(Option.getOrThrow(organization), org)
        return { got, listed }
      })

    it("isolation: reads outside an open transaction never see its writes, even after a rollback", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const teams = [team("Uncommitted A"), team("Uncommitted B")]
        const { got, listed } = yield* openTransaction(org, teams, "rollback")
        assert.isTrue(Option.isNone(got))
        assert.deepStrictEqual(listed, [])
        assert.deepStrictEqual((yield* store.teams.list(org.id, { limit: 50 })).items, [])
      })))

    it("isolation: reads outside an open transaction see all of its writes or none", () =>
      run(Effect.gen(function*() {
        const org = yield* newOrg()
        const teams = [team("Committed A"), team("Committed B")]
        const { got, listed } = yield* openTransaction(org, teams, "commit")
        const ids = teams.map((t) => t.id as string).sort()
        // each read is before or after the commit (the two reads may fall on either side of it)
        if (listed.length > 0) assert.deepStrictEqual([...listed].sort(), ids)
        if (Option.isSome(got)) assert.deepStrictEqual(got.value, teams[0])
        assert.deepStrictEqual((yield* store.teams.list(org.id, { limit: 50 })).items.map((t) => t.id as string).sort(), ids)
      })))

    if (options.concurrency) {
      it("concurrency: parallel upserts of one draft key leave exactly one draft", () =>
        run(Effect.gen(function*() {
          const org = yield* newOrg()
          const phase = newId<Id.PhaseId>("phase")
          const g = group([phase])
          yield* store.policyGroups.insert(org.id, g)
          const writer = (n: number) =>
            store.transaction(Effect.gen(function*() {
              yield* store.policyGroups.lock(org.id, g.id)
              const existing = yield* store.drafts.findByKey(org.id, g.id, phase, "docker.io/library/nginx:1|")
              const base = Option.getOrElse(existing, () => draft(phase, "nginx:1", "nginx:1"))
              yield* store.drafts.put(org.id, g.id, { ...base, toImage: `nginx:1.${n}` })
            }))
          yield* Effect.all(Array.from({ length: 20 }, (_, n) => writer(n)), { concurrency: "unbounded" })
          const drafts = yield* store.drafts.listByGroup(org.id, g.id)
          assert.strictEqual(drafts.length, 1)
        })))

      it("concurrency: parallel onboarding of one repository tracks it once", () =>
        run(Effect.gen(function*() {
          const org = yield* newOrg()
          const c = connection()
          yield* store.vcsConnections.insert(org.id, c, null)
          const t = newId<Id.TeamId>("team")
          const r = newId<Id.RoutineId>("routine")
          const results = yield* Effect.all(
            Array.from({ length: 10 }, () =>
              Effect.result(store.transaction(store.repositories.insert(org.id, repository(c.id, "42", t, r))))),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(results.filter(Result.isSuccess).length, 1)
          assert.isTrue(results.filter(Result.isFailure).every((e) => e.failure instanceof Repository.RepositoryAlreadyTracked))
          assert.strictEqual((yield* store.repositories.list(org.id, { limit: 50 })).items.length, 1)
        })))

      it("concurrency: racing assignment replacements leave exactly one writer's complete set", () =>
        run(Effect.gen(function*() {
          const org = yield* newOrg()
          const c = connection()
          yield* store.vcsConnections.insert(org.id, c, null)
          const repo = repository(c.id, "7", newId("team"), newId("routine"))
          yield* store.repositories.insert(org.id, repo)
          const requests = Array.from({ length: 10 }, () =>
            [newId<Id.PolicyGroupId>("policyGroup"), newId<Id.PolicyGroupId>("policyGroup")].map((policyGroupId) => ({
              policyGroupId,
              branchNames: ["main", "release"]
            })))
          yield* Effect.all(
            requests.map((request) =>
              store.transaction(Effect.gen(function*() {
                yield* store.repositories.lock(org.id, repo.id)
                yield* store.assignments.get(org.id, repo.id)
                yield* store.assignments.replace(org.id, repo.id, request)
              }))),
            { concurrency: "unbounded" }
          )
          const final = yield* store.assignments.get(org.id, repo.id)
          assert.isTrue(requests.some((r) => JSON.stringify(r) === JSON.stringify(final)), "one request, whole")
        })))

      it("concurrency: parallel enqueues of one branch keep one pending scan and all answer it", () =>
        run(Effect.gen(function*() {
          const org = yield* newOrg()
          const repo = yield* trackedRepository(org.id)
          const answers = yield* Effect.all(
            Array.from({ length: 10 }, () => store.transaction(store.scans.enqueue(org.id, scan(repo.id, "main")))),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(new Set(answers.map((x) => x.id)).size, 1)
          assert.deepStrictEqual((yield* store.scans.list(org.id, repo.id, { limit: 50 })).items, [answers[0]!])
        })))

      it("concurrency: two workers claiming scans get disjoint sets, and every claimed branch is running", () =>
        run(Effect.gen(function*() {
          const org = yield* newOrg()
          const branches = Array.from({ length: 40 }, (_, i) => `b${i}`)
          const repo = yield* trackedRepository(org.id, { branches })
          const ours = branches.map((b) => scan(repo.id, b))
          for (const s of ours) yield* store.scans.enqueue(org.id, s)
          const ids = ours.map((s) => s.id as string)
          const claim = (worker: string) =>
            Effect.map(claimOf(ids, worker, new Date("2026-07-01T00:00:00.000Z")), (cs) => cs.map((c) => c.scan.id as string))
          const [x, y] = yield* Effect.all([claim("x"), claim("y")], { concurrency: 2 })
          assert.deepStrictEqual(x.filter((id) => y.includes(id)), [])
          assert.strictEqual(x.length + y.length, 40)
          assert.isTrue((yield* branchStatuses(org.id, repo.id)).every((status) => status === "running"), "no lost branch update")
        })))

      it("concurrency: two workers claiming the same deliveries get disjoint sets", () =>
        run(Effect.gen(function*() {
          const org = yield* newOrg()
          const w = webhook()
          yield* store.webhooks.insert(org.id, w)
          const events = Array.from({ length: 50 }, () => event("2020-01-01T00:00:00.000Z"))
          yield* store.outbox.append(org.id, events.map((e) => ({ event: e, destinations: [w.id] })))
          const ours = new Set(events.map((e) => e.id as string))
          const now = new Date("2020-01-01T00:01:00.000Z")
          const claim = (worker: string) =>
            Effect.map(store.outbox.claim({ worker, now, leaseMs: 60_000, limit: 30 }), (cs) =>
              cs.filter((c) => ours.has(c.event.id)).map((c) => c.event.id as string))
          const [a, b] = yield* Effect.all([claim("a"), claim("b")], { concurrency: 2 })
          const overlap = a.filter((id) => b.includes(id))
          assert.deepStrictEqual(overlap, [])
        })))
    }
  })
