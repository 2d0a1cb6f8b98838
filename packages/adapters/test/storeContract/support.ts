/**
 * What every file of the storage contract shares: the stores under test (`support/stores.ts`:
 * every store port of the layer) and the rows the tests write. `storeContract.ts` builds one of
 * these per store and registers every file's tests on it, with the `it` of a `layer(...)` block:
 * one store for the whole suite, opened before its first test and closed after its last.
 */
import { assert, type Vitest } from "@effect/vitest"
import type { Page, PageRequest, ScanOutcome } from "@image-policy/core"
import { Id, type Stores } from "@image-policy/core"
import type {
  ApiKey,
  Audit,
  Mapping,
  Organization,
  Outbox,
  PolicyGroup,
  Remediation,
  Repository,
  Routine,
  Scan,
  Scanner,
  Team,
  VcsConnection,
  Webhook
} from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type AllStores, allStores } from "../support/stores.js"

let counter = 0
export const randomBytes = () => {
  const b = new Uint8Array(16)
  globalThis.crypto.getRandomValues(b)
  return b
}
export const newId = <A>(kind: Id.Kind): A => Id.make(kind, randomBytes()) as A
/** Monotonic timestamps so (createdAt, id) order is the insertion order. */
export const stamp = () => new Date(Date.UTC(2026, 0, 1) + ++counter * 1000).toISOString()
/** A fresh number for names and external ids. */
export const next = () => ++counter

const orgFixture = (): Organization.Organization => ({
  id: newId("organization"),
  name: "Acme",
  edition: "enterprise",
  grants: [{ feature: "automation-api", expiresAt: "2030-01-01T00:00:00.000Z" }],
  defaultNotificationTeamId: null,
  cooldownSeconds: 0
})

export const allPages = <A>(list: (page: PageRequest) => Effect.Effect<Page<A>>, limit: number) =>
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

/** What each file of the contract registers its tests with: `it.effect` runs over the suite's stores. */
export type ContractIt = Vitest.MethodsNonLive<Stores>

/**
 * The fixtures over one store. `store` holds its stores once `opened` is built: `storeContract.ts`
 * builds it with the store's layer, before the first test.
 */
export const make = (options: ContractOptions) => {
  const store = {} as AllStores
  const opened = Layer.effectDiscard(Effect.map(allStores, (stores) => {
    Object.assign(store, stores)
  }))
  const newOrg = () =>
    Effect.gen(function*() {
      const org = orgFixture()
      yield* store.organizations.insert(org)
      return org
    })

  const team = (name: string): Team.Team => ({ id: newId("team"), name })
  const routine = (teamId: Id.TeamId | null, name = "Weekly"): Routine.Routine => ({
    id: newId("routine"),
    teamId,
    name,
    active: true,
    intervalDays: 7
  })
  const connection = (status: VcsConnection.VcsConnection["status"] = "active"): VcsConnection.VcsConnection => ({
    id: newId("vcsConnection"),
    provider: "github",
    externalAccountName: `acme-${next()}`,
    status
  })
  const repository = (
    vcsConnectionId: Id.VcsConnectionId,
    externalRepoId: string,
    t: Id.TeamId,
    r: Id.RoutineId
  ): Repository.Repository => ({
    id: newId("repository"),
    vcsConnectionId,
    externalRepoId,
    fullName: `acme/r${externalRepoId}`,
    defaultBranch: "main",
    assignedTeamId: t,
    assignedRoutineId: r,
    branches: [{ branchName: "main", scan: { status: "queued" } }, { branchName: "release", scan: { status: "queued" } }],
    createdAt: stamp()
  })
  const group = (phaseIds: Array<Id.PhaseId>, name = `G${next()}`): PolicyGroup.PolicyGroup => ({
    id: newId("policyGroup"),
    name,
    applyToAllRepos: false,
    notificationRouting: { kind: "inherit" },
    cooldownSeconds: null,
    phases: phaseIds.map((id, position) => ({ id, name: `P${position}`, sourceType: "internal" as const, position }))
  })
  const draft = (phaseId: Id.PhaseId, from: string, to: string): Mapping.DraftMapping => {
    const at = stamp()
    return {
      id: newId("mapping"),
      key: `docker.io/library/${from}|`,
      fromImage: from,
      toImage: to,
      reason: "pin",
      createdAt: at,
      updatedAt: at,
      phaseId
    } as Mapping.Mapping & { phaseId: Id.PhaseId }
  }
  const apiKey = (secretHash: string): ApiKey.ApiKey => ({
    id: newId("apiKey"),
    serviceAccountId: newId("serviceAccount"),
    name: "ci",
    prefix: "ipk_abcdefgh",
    secretHash,
    role: "Policy Automation",
    permissions: [],
    expiresAt: null,
    revokedAt: null,
    lastUsedAt: null,
    createdAt: stamp()
  })
  const webhook = (): Webhook.WebhookDestination => ({
    id: newId("webhook"),
    name: "ops",
    type: "generic",
    endpointSealed: "v1.iv.ct",
    endpointPreview: "https://h.example/…/abcd",
    signingSecretSealed: "v1.iv.ss",
    audienceTeamId: null,
    scope: { kind: "organization" },
    events: ["service.policy_group.published"],
    status: "active",
    disabledReason: null,
    createdAt: stamp()
  })
  const audit = (action: string): Audit.AuditEvent => ({
    id: newId("audit"),
    at: stamp(),
    actor: { kind: "system", name: "test" },
    action,
    resourceType: "team",
    resourceId: null,
    outcome: "success",
    detail: null
  })
  const event = (time = stamp()): Outbox.OutboxEvent => ({
    id: newId("event"),
    type: "service.policy_group.published",
    subject: "policy_group/pg_x",
    time,
    correlationId: "c1",
    data: { policy_group_id: "pg_x", action: "published", mapping_count: 1, changed_at: time }
  })

  const scan = (
    repositoryId: Id.RepositoryId,
    branchName: string,
    trigger: Scan.ScanTrigger = "manual"
  ): Scan.BranchScan => ({
    id: newId("scan"),
    repositoryId,
    branchName,
    trigger,
    status: "queued",
    failure: null,
    commitSha: null,
    fileCount: 0,
    findingCount: 0,
    attempts: 0,
    queuedAt: stamp(),
    startedAt: null,
    finishedAt: null
  })
  const finding = (file: string, line: number, column: number, reference = "nginx:1.25"): Scanner.Finding => ({
    kind: "dockerfile",
    file,
    line,
    column,
    reference,
    image: reference,
    normalized: `docker.io/library/${reference}`
  })
  const succeeded = (findings: ReadonlyArray<Scanner.Finding>, fileCount = 3): ScanOutcome => ({
    status: "succeeded",
    at: stamp(),
    commitSha: `c${next()}`,
    fileCount,
    findings
  })
  const failed = (failure: Scan.ScanFailure = "provider-unavailable"): ScanOutcome => ({ status: "failed", at: stamp(), failure })
  const remediation = (
    repositoryId: Id.RepositoryId,
    branchName: string,
    status: Remediation.RemediationStatus = "open"
  ): Remediation.RemediationRequest => {
    const at = stamp()
    return {
      id: newId("remediation"),
      repositoryId,
      branchName,
      headBranch: `image-policy/remediate/${branchName}`,
      status,
      failure: null,
      number: next(),
      url: `https://github.example/acme/api/pull/${counter}`,
      scanId: newId("scan"),
      changes: [{
        file: "Dockerfile",
        line: 1,
        column: 6,
        from: "nginx:1.25",
        to: "registry.example/nginx:1.25.4",
        policyGroupId: newId("policyGroup"),
        phaseId: newId("phase"),
        mappingId: newId("mapping"),
        reason: "pinned by Base"
      }],
      createdAt: at,
      updatedAt: at,
      mergedAt: status === "merged" ? at : null
    }
  }
  /** A tracked repository (branches `main` and `release`, or `branches`) with its team, routine and connection. */
  const trackedRepository = (
    orgId: Id.OrgId,
    options: { readonly routine?: Routine.Routine; readonly branches?: ReadonlyArray<string> } = {}
  ) =>
    Effect.gen(function*() {
      const t = team("Platform")
      const r = options.routine ?? routine(t.id)
      const c = connection()
      yield* store.teams.insert(orgId, t)
      yield* store.routines.insert(orgId, r)
      yield* store.vcsConnections.insert(orgId, c, null)
      const repo = repository(c.id, `${next()}`, t.id, r.id)
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
    Effect.map(store.scans.claim({ worker, now, leaseMs, limit: 10_000 }), (claims) => claims.filter((c) => ids.includes(c.scan.id)))
  const claimNow = new Date("2026-06-01T00:00:00.000Z")
  /** Queues, claims and finishes one scan; answers it as stored. */
  const complete = (orgId: Id.OrgId, s: Scan.BranchScan, outcome: ScanOutcome) =>
    Effect.gen(function*() {
      assert.strictEqual((yield* store.scans.enqueue(orgId, s)).id, s.id)
      assert.strictEqual((yield* claimOf([s.id], "finisher", claimNow)).length, 1)
      assert.isTrue(yield* store.scans.finish(orgId, s.id, "finisher", outcome))
      return Option.getOrThrow(yield* store.scans.get(orgId, s.id))
    })

  return {
    options,
    opened,
    store,
    newOrg,
    team,
    routine,
    connection,
    repository,
    group,
    draft,
    apiKey,
    webhook,
    audit,
    event,
    scan,
    finding,
    succeeded,
    failed,
    remediation,
    trackedRepository,
    branchStatuses,
    claimOf,
    claimNow,
    complete
  }
}

export type Contract = ReturnType<typeof make>
