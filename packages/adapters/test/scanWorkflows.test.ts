/**
 * Branch scans and remediation (issue 7) through the core's workflows, on the memory store and the
 * fixture provider: onboarding queues scans, a worker runs them, the routine's tick queues routine
 * scans when due, and a routine scan ends in one remediation request with the expected diff, its
 * audit row and its webhook event.
 */
import { assert, describe, it } from "@effect/vitest"
import { Id, type Ids, RepositoryStore, ScanStore, type Stores, VcsProvider, VcsProviderError, Workflows } from "@image-policy/core"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/testing/TestClock"
import * as RandomIds from "../src/crypto/RandomIds.js"
import * as MemoryStore from "../src/storage/memory/MemoryStore.js"
import * as FixtureVcs from "../src/vcs/Fixture.js"
import { allStores, type AllStores } from "./support/stores.js"

const id = <A>(kind: Id.Kind, n: number) => Id.make(kind, new Uint8Array(16).fill(n)) as A
const orgId = id<Id.OrgId>("organization", 1)
const team = id<Id.TeamId>("team", 1)
const routineId = id<Id.RoutineId>("routine", 1)
const connectionId = id<Id.VcsConnectionId>("vcsConnection", 1)
const groupId = id<Id.PolicyGroupId>("policyGroup", 1)
const phaseId = id<Id.PhaseId>("phase", 1)
const hookId = id<Id.WebhookId>("webhook", 1)
const caller: Workflows.Caller.Caller = {
  orgId,
  actor: { kind: "apiKey", apiKeyId: id("apiKey", 1), serviceAccountId: id("serviceAccount", 1) },
  correlationId: "req-1"
}
const day = 86_400_000
const start = Date.parse("2026-02-01T00:00:00Z")

const dockerfile = [
  "# syntax=docker/dockerfile:1.7",
  "ARG NODE_VERSION=20",
  "FROM node:${NODE_VERSION} AS deps   # from an ARG: reported, never rewritten",
  "RUN npm ci",
  "",
  "FROM node:20 AS build  # pinned by hand",
  "COPY --from=deps /app /app",
  "",
  "FROM gcr.io/distroless/nodejs20-debian12",
  ""
].join("\r\n")
const compose = [
  "x-worker: &worker",
  "  image: \"redis:7\"   # shared by both workers",
  "  restart: unless-stopped",
  "services:",
  "  worker-a:",
  "    <<: *worker",
  "  worker-b:",
  "    <<: *worker",
  ""
].join("\n")
const deployment = [
  "apiVersion: apps/v1",
  "kind: Deployment",
  "metadata: { name: api }",
  "spec:",
  "  template:",
  "    spec:",
  "      initContainers:",
  "        - name: migrate",
  "          image: ghcr.io/acme/migrate:1.4",
  "      containers:",
  "        - name: api",
  "          image: 'ghcr.io/acme/api:2.0.1'",
  ""
].join("\n")
const workflow = [
  "name: CI",
  "on: [push]",
  "jobs:",
  "  test:",
  "    runs-on: ubuntu-latest",
  "    container: node:20",
  "    steps:",
  "      - uses: actions/checkout@v4",
  ""
].join("\n")

const huge = Object.fromEntries(Array.from({ length: 5_001 }, (_, i) => [`k8s/m${i}.yaml`, "kind: ConfigMap\n"]))
const settings = {
  kind: "fixture",
  repositories: [{
    externalRepoId: "1001",
    fullName: "acme/api",
    defaultBranch: "main",
    branches: ["main", "release", "huge"],
    files: {
      main: {
        "Dockerfile": dockerfile,
        "docker-compose.yml": compose,
        "deploy/api.yaml": deployment,
        ".github/workflows/ci.yml": workflow,
        "README.md": "FROM node:20 is not read from a README\n"
      },
      release: { "Dockerfile": "FROM node:20\n" },
      huge
    }
  }]
}

const seed = (store: AllStores) =>
  Effect.gen(function*() {
    yield* store.organizations.insert({ id: orgId, name: "Acme", edition: "enterprise", grants: [], defaultNotificationTeamId: team, cooldownSeconds: 0 })
    yield* store.teams.insert(orgId, { id: team, name: "Platform" })
    yield* store.routines.insert(orgId, { id: routineId, teamId: team, name: "Weekly", active: true, intervalDays: 7 })
    yield* store.vcsConnections.insert(orgId, { id: connectionId, provider: "github", externalAccountName: "acme", status: "active" }, settings)
    yield* store.policyGroups.insert(orgId, {
      id: groupId, name: "Base images", applyToAllRepos: true, notificationRouting: { kind: "inherit" }, cooldownSeconds: null,
      phases: [{ id: phaseId, name: "Curated", sourceType: "internal", position: 0 }]
    })
    yield* store.webhooks.insert(orgId, {
      id: hookId, name: "platform", type: "generic", endpointSealed: "sealed", endpointPreview: "https://h.example/…/abcd",
      signingSecretSealed: "sealed", audienceTeamId: team, scope: { kind: "team", teamId: team },
      events: ["service.remediation_pull_request.created", "service.remediation_pull_request.failed"],
      status: "active", disabledReason: null, createdAt: "2026-01-01T00:00:00.000Z"
    })
  })

type Fixture = ReturnType<typeof FixtureVcs.make>

/** A fresh store, ids and fixture provider; `provider` may replace some of the fixture's methods. */
const run = <A, E>(
  f: (store: AllStores, fixture: Fixture) => Effect.Effect<A, E, Stores | Ids | VcsProvider>,
  provider: (fixture: Fixture) => typeof VcsProvider.Service = (fixture) => fixture.provider
) => {
  const fixture = FixtureVcs.make()
  const layer = Layer.mergeAll(MemoryStore.layer, RandomIds.layerSeeded(7), Layer.succeed(VcsProvider, provider(fixture)))
  return Effect.gen(function*() {
    const store = yield* allStores
    yield* TestClock.setTime(start)
    yield* seed(store)
    return yield* f(store, fixture)
  }).pipe(Effect.provide(layer))
}

const onboard = (branchNames: ReadonlyArray<string> = ["main", "release"]) =>
  Workflows.Onboarding.createRepository(caller, {
    vcsConnectionId: connectionId,
    externalRepoId: "1001",
    assignedTeamId: team,
    assignedRoutineId: routineId,
    branchNames
  })

const publish = (mappings: ReadonlyArray<readonly [string, string]>) =>
  Effect.gen(function*() {
    for (const [fromImage, toImage] of mappings) {
      yield* Workflows.Policy.upsertDraftMapping(caller, groupId, phaseId, { fromImage, toImage, reason: "patched base" })
    }
    yield* Workflows.Policy.publishPolicyGroup(caller, groupId)
  })

const claimAll = (store: AllStores, worker = "w1") =>
  Effect.flatMap(Clock.currentTimeMillis, (ms) => store.scans.claim({ worker, now: new Date(ms), leaseMs: 60_000, limit: 10 }))

/** Claims every queued scan and runs it, as the scan worker does. */
const runQueued = (store: AllStores, worker = "w1") =>
  Effect.flatMap(claimAll(store, worker), (claimed) => Effect.forEach(claimed, (c) => Workflows.Scans.runScan(c, worker)))

const events = (store: AllStores) =>
  Effect.gen(function*() {
    const deliveries = yield* store.outbox.deliveries(orgId, hookId, { limit: 50 })
    const out = []
    for (const d of deliveries.items) out.push(Option.getOrThrow(yield* store.outbox.getEvent(orgId, d.eventId)))
    return out.sort((a, b) => a.time.localeCompare(b.time))
  })

const standardMappings = [
  ["node:20", "node:20.11.1"],
  ["redis:7", "redis:7.4"],
  ["ghcr.io/acme/migrate:1.4", "ghcr.io/acme/migrate:1.5"]
] as const

describe("branch scans", () => {
  it.effect("onboarding queues one scan per tracked branch with the repository; the answer is unchanged", () =>
    run((store) =>
      Effect.gen(function*() {
        const result = yield* onboard()
        assert.deepStrictEqual(result.scans, [{ branchName: "main", status: "queued" }, { branchName: "release", status: "queued" }])
        const scans = yield* store.scans.list(orgId, result.repository.id, { limit: 10 })
        assert.sameMembers(scans.items.map((s) => `${s.branchName} ${s.trigger} ${s.status}`), ["main onboarding queued", "release onboarding queued"])
        const [view] = (yield* Workflows.Onboarding.listRepositories(caller, { limit: 10 }, {})).items
        assert.deepStrictEqual(view!.branches.map((b) => b.scan.status), ["queued", "queued"])
      })))

  it.effect("the findings route answers the scan its findings come from, even when a scan succeeds while it reads", () =>
    run((store, fixture) =>
      Effect.gen(function*() {
        const { repository } = yield* onboard(["main"])
        yield* runQueued(store)
        const first = Option.getOrThrow(yield* store.scans.latestSucceeded(orgId, repository.id, "main"))
        fixture.files.setFile(
          { orgId, vcsConnectionId: connectionId, fullName: "acme/api", branch: "main", path: "Dockerfile" },
          "FROM node:22\n"
        )
        yield* TestClock.adjust(1_000)
        yield* Workflows.Scans.requestScans(caller, repository.id, { branchNames: ["main"] })
        const [claimed] = yield* claimAll(store)
        // the next scan finishes just after the route read the previous scan's findings
        let raced = false
        const services = yield* Effect.context<Stores | Ids | VcsProvider>()
        const racing: typeof ScanStore.Service = {
          ...store.scans,
          findings: (...args) =>
            Effect.tap(store.scans.findings(...args), () =>
              raced
                ? Effect.void
                : Effect.andThen(Effect.sync(() => (raced = true)), Workflows.Scans.runScan(claimed!, "w1").pipe(Effect.provide(services))))
        }
        const page = yield* Workflows.Scans.listFindings(caller, repository.id, {}, { limit: 50 }).pipe(Effect.provideService(ScanStore, racing))
        assert.isTrue(raced)
        assert.notStrictEqual(page.scan?.id, first.id)
        assert.strictEqual(page.scan?.id, claimed!.scan.id)
        assert.deepStrictEqual(page.items.filter((f) => f.file === "Dockerfile").map((f) => f.reference), ["node:22"])
      })))

  it.effect("a worker runs a claimed scan: findings with the mapping that applies and why; nothing is remediated", () =>
    run((store, fixture) =>
      Effect.gen(function*() {
        const { repository } = yield* onboard()
        yield* publish(standardMappings)
        const claimed = yield* claimAll(store)
        assert.strictEqual(claimed.length, 2)
        const finished = yield* Effect.forEach(claimed, (c) => Workflows.Scans.runScan(c, "w1"))
        const main = finished.find((s) => s?.branchName === "main")!
        assert.strictEqual(main.status, "succeeded")
        assert.strictEqual(main.fileCount, 4, "the four scannable files, not the README")
        assert.strictEqual(main.findingCount, 7)
        assert.match(main.commitSha!, /^[0-9a-f]{40}$/)
        assert.isNotNull(main.finishedAt)

        const page = yield* Workflows.Scans.listFindings(caller, repository.id, {}, { limit: 50 })
        assert.strictEqual(page.branchName, "main")
        assert.strictEqual(page.scan?.id, main.id)
        assert.deepStrictEqual(page.items.map((f) => `${f.file}:${f.line} ${f.reference} -> ${f.resolution?.toImage ?? "-"}`), [
          ".github/workflows/ci.yml:6 node:20 -> node:20.11.1",
          "Dockerfile:3 node:${NODE_VERSION} -> node:20.11.1",
          "Dockerfile:6 node:20 -> node:20.11.1",
          "Dockerfile:9 gcr.io/distroless/nodejs20-debian12 -> -",
          "deploy/api.yaml:9 ghcr.io/acme/migrate:1.4 -> ghcr.io/acme/migrate:1.5",
          "deploy/api.yaml:12 ghcr.io/acme/api:2.0.1 -> -",
          "docker-compose.yml:2 redis:7 -> redis:7.4"
        ])
        assert.strictEqual(page.items[0]!.resolution!.reason, "selected: exact match")
        assert.strictEqual(page.items[0]!.resolution!.mappingReason, "patched base")
        assert.strictEqual(page.items[0]!.resolution!.policyGroupId, groupId)

        const release = yield* Workflows.Scans.listFindings(caller, repository.id, { branch: "release" }, { limit: 50 })
        assert.deepStrictEqual(release.items.map((f) => f.reference), ["node:20"])
        const untracked = yield* Effect.result(Workflows.Scans.listFindings(caller, repository.id, { branch: "hotfix" }, { limit: 50 }))
        assert.isTrue(Result.isFailure(untracked) && untracked.failure._tag === "InvalidReferenceInBody" && untracked.failure.path === "branch")

        const [view] = (yield* Workflows.Onboarding.listRepositories(caller, { limit: 10 }, {})).items
        assert.deepStrictEqual(view!.branches.map((b) => b.scan.status), ["succeeded", "succeeded"])
        // publish and onboarding scans open no request (spec 3)
        assert.deepStrictEqual(fixture.remediations("acme/api"), [])
        assert.strictEqual((yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items.length, 0)
        // the lease ended with the scan: finishing it again is refused and changes nothing
        assert.isUndefined(yield* Workflows.Scans.runScan(claimed[0]!, "w1"))
      })))

  it.effect("a scan whose lease another worker took over writes nothing", () =>
    run((store) =>
      Effect.gen(function*() {
        yield* onboard(["main"])
        const [claimed] = yield* claimAll(store, "w1")
        yield* TestClock.adjust(61_000)
        const [taken] = yield* claimAll(store, "w2")
        assert.strictEqual(taken!.scan.id, claimed!.scan.id, "the expired lease is resumed by another worker")
        assert.isUndefined(yield* Workflows.Scans.runScan(claimed!, "w1"))
        const done = yield* Workflows.Scans.runScan(taken!, "w2")
        assert.strictEqual(done?.status, "succeeded")
      })))

  it.effect("a provider error fails the scan with its reason, never the worker", () =>
    run(
      (store) =>
        Effect.gen(function*() {
          const { repository } = yield* onboard(["main"])
          const [scan] = yield* runQueued(store)
          assert.strictEqual(scan?.status, "failed")
          assert.strictEqual(scan?.failure, "provider-rate-limited")
          assert.strictEqual(scan?.findingCount, 0)
          const [view] = (yield* Workflows.Onboarding.listRepositories(caller, { limit: 10 }, {})).items
          assert.strictEqual(view!.branches[0]!.scan.status, "failed")
          const page = yield* Workflows.Scans.listFindings(caller, repository.id, {}, { limit: 50 })
          assert.deepStrictEqual([page.scan, page.items], [null, []])
        }),
      (fixture) => ({ ...fixture.provider, listFiles: () => Effect.fail(new VcsProviderError({ reason: "rate-limited", retryAfterSeconds: 30 })) })
    ))

  it.effect("a branch over the scan limits fails too-large; an inactive connection fails provider-not-configured", () =>
    run((store) =>
      Effect.gen(function*() {
        yield* onboard(["main", "huge"])
        const scans = yield* runQueued(store)
        assert.deepStrictEqual(scans.map((s) => `${s?.branchName} ${s?.status} ${s?.failure}`).sort(), ["huge failed too-large", "main succeeded null"])

        yield* store.vcsConnections.setStatus(orgId, connectionId, "inactive")
        const { scans: queued } = yield* Workflows.Scans.requestScans(caller, scans[0]!.repositoryId, { branchNames: ["main"] })
        assert.deepStrictEqual(queued.map((s) => `${s.branchName} ${s.trigger} ${s.status}`), ["main manual queued"])
        const [again] = yield* runQueued(store)
        assert.strictEqual(again?.failure, "provider-not-configured")
      })))

  it.effect("scans on request: all tracked branches or the named ones; an untracked name is refused at its index", () =>
    run((store) =>
      Effect.gen(function*() {
        const { repository } = yield* onboard()
        yield* runQueued(store)
        const refused = yield* Effect.result(Workflows.Scans.requestScans(caller, repository.id, { branchNames: ["main", "nope"] }))
        assert.isTrue(Result.isFailure(refused) && refused.failure._tag === "InvalidReferenceInBody" && refused.failure.path === "branchNames[1]")
        const { scans } = yield* Workflows.Scans.requestScans(caller, repository.id, {})
        assert.deepStrictEqual(scans.map((s) => `${s.branchName} ${s.trigger}`), ["main manual", "release manual"])
        const again = yield* Workflows.Scans.requestScans(caller, repository.id, { branchNames: ["release"] })
        assert.strictEqual(again.scans[0]!.id, scans[1]!.id, "a pending scan is answered, not queued twice")
        const listed = yield* Workflows.Scans.listScans(caller, repository.id, { branch: "release" }, { limit: 10 })
        assert.deepStrictEqual(listed.items.map((s) => s.trigger), ["manual", "onboarding"])
        const audit = yield* store.audit.list(orgId, { limit: 50 })
        assert.include(audit.items.map((a) => a.action), "repository.scan")
      })))
})

describe("the routine", () => {
  it.effect("a branch gets a routine scan intervalDays after tracking, not a millisecond before, and once", () =>
    run((store) =>
      Effect.gen(function*() {
        yield* onboard()
        yield* runQueued(store)
        assert.strictEqual(yield* Workflows.Scans.routineTick, 0)
        yield* TestClock.adjust(7 * day - 1)
        assert.strictEqual(yield* Workflows.Scans.routineTick, 0)
        yield* TestClock.adjust(1)
        assert.strictEqual(yield* Workflows.Scans.routineTick, 2)
        assert.strictEqual(yield* Workflows.Scans.routineTick, 0, "a queued routine scan is not queued again")
        yield* runQueued(store)
        yield* TestClock.adjust(7 * day - 1)
        assert.strictEqual(yield* Workflows.Scans.routineTick, 0)
        yield* TestClock.adjust(1)
        assert.strictEqual(yield* Workflows.Scans.routineTick, 2)
      })))

  it.effect("an inactive routine schedules nothing", () =>
    run((store) =>
      Effect.gen(function*() {
        const other = id<Id.RoutineId>("routine", 2)
        yield* store.routines.insert(orgId, { id: other, teamId: team, name: "Paused", active: false, intervalDays: 1 })
        yield* Workflows.Onboarding.createRepository(caller, {
          vcsConnectionId: connectionId, externalRepoId: "1001", assignedTeamId: team, assignedRoutineId: other, branchNames: ["main"]
        })
        yield* runQueued(store)
        yield* TestClock.adjust(30 * day)
        assert.strictEqual(yield* Workflows.Scans.routineTick, 0)
      })))
})

/** Onboards, publishes, scans, waits a routine interval, ticks and runs the routine scans. */
const routineRun = (store: AllStores) =>
  Effect.gen(function*() {
    yield* TestClock.adjust(7 * day)
    const queued = yield* Workflows.Scans.routineTick
    const scans = yield* runQueued(store)
    return { queued, scans }
  })

describe("remediation", () => {
  it.effect("after a routine scan: one request with the expected diff, its audit row and its event", () =>
    run((store, fixture) =>
      Effect.gen(function*() {
        const { repository } = yield* onboard(["main"])
        yield* publish(standardMappings)
        yield* runQueued(store)
        assert.deepStrictEqual(fixture.remediations("acme/api"), [], "onboarding scans remediate nothing")

        const { queued, scans } = yield* routineRun(store)
        assert.strictEqual(queued, 1)
        assert.strictEqual(scans[0]?.trigger, "routine")
        const [opened] = fixture.remediations("acme/api")
        assert.strictEqual(opened?.head, "image-policy/remediate/main")
        assert.strictEqual(opened?.base, "main")
        assert.strictEqual(opened?.title, "Update container images on main")
        const files = Object.fromEntries(opened!.files.map((f) => [f.path, f.content]))
        assert.deepStrictEqual(Object.keys(files).sort(), [".github/workflows/ci.yml", "Dockerfile", "deploy/api.yaml", "docker-compose.yml"])
        assert.strictEqual(files["Dockerfile"], dockerfile.replace("FROM node:20 AS build", "FROM node:20.11.1 AS build"))
        assert.strictEqual(files["docker-compose.yml"], compose.replace("\"redis:7\"", "\"redis:7.4\""))
        assert.strictEqual(files["deploy/api.yaml"], deployment.replace("migrate:1.4", "migrate:1.5"))
        assert.strictEqual(files[".github/workflows/ci.yml"], workflow.replace("container: node:20", "container: node:20.11.1"))
        assert.include(opened!.body, "`Dockerfile:6`: `node:20` -> `node:20.11.1`")
        assert.include(opened!.body, "`docker-compose.yml:2`: `redis:7` -> `redis:7.4`")

        const [request] = (yield* Workflows.Remediation.listRemediationRequests(caller, repository.id, { limit: 10 })).items
        assert.strictEqual(request?.status, "open")
        assert.strictEqual(request?.number, opened!.number)
        assert.strictEqual(request?.url, opened!.url)
        assert.strictEqual(request?.scanId, scans[0]!.id)
        assert.deepStrictEqual(request?.changes.map((c) => `${c.file}:${c.line}:${c.column} ${c.from} -> ${c.to}`), [
          ".github/workflows/ci.yml:6:16 node:20 -> node:20.11.1",
          "Dockerfile:6:6 node:20 -> node:20.11.1",
          "deploy/api.yaml:9:18 ghcr.io/acme/migrate:1.4 -> ghcr.io/acme/migrate:1.5",
          "docker-compose.yml:2:11 redis:7 -> redis:7.4"
        ])

        const audit = (yield* store.audit.list(orgId, { limit: 50 })).items.find((a) => a.action === "remediation.open")
        assert.deepStrictEqual(audit?.actor, { kind: "system", name: "routine-worker" })
        assert.strictEqual(audit?.resourceId, request!.id)
        const [event] = yield* events(store)
        assert.strictEqual(event?.type, "service.remediation_pull_request.created")
        assert.deepStrictEqual(event?.data, {
          repository_id: repository.id,
          pull_request_url: opened!.url,
          action: "created",
          changed_at: new Date(start + 7 * day).toISOString()
        })
      })))

  it.effect("a later run updates the open request instead of opening a second; a closed one is superseded", () =>
    run((store, fixture) =>
      Effect.gen(function*() {
        const { repository } = yield* onboard(["main"])
        yield* publish(standardMappings)
        yield* runQueued(store)
        yield* routineRun(store)
        const [first] = (yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items

        // the branch moved: a new file with an old image
        fixture.files.setFile({ orgId, vcsConnectionId: connectionId, fullName: "acme/api", branch: "main", path: "worker.Dockerfile" }, "FROM redis:7\n")
        yield* routineRun(store)
        assert.strictEqual(fixture.remediations("acme/api").length, 1)
        assert.strictEqual(fixture.remediations("acme/api")[0]!.writes, 2)
        const updated = (yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items
        assert.strictEqual(updated.length, 1)
        assert.strictEqual(updated[0]!.id, first!.id)
        assert.strictEqual(updated[0]!.changes.length, 5)
        assert.notStrictEqual(updated[0]!.updatedAt, first!.updatedAt)

        fixture.closeRemediation("acme/api", first!.number!)
        yield* routineRun(store)
        const after = (yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items
        assert.deepStrictEqual(after.map((r) => `${r.number} ${r.status}`), ["2 open", "1 superseded"])
        assert.deepStrictEqual((yield* events(store)).map((e) => e.type), Array(3).fill("service.remediation_pull_request.created"))
      })))

  it.effect("an approved snooze suppresses its image's change until it expires; nothing to change opens nothing", () =>
    run((store, fixture) =>
      Effect.gen(function*() {
        const { repository } = yield* onboard(["main"])
        yield* publish([["node:20", "node:20.11.1"]])
        yield* runQueued(store)
        const snooze = yield* Workflows.SnoozeRequests.createSnoozeRequest(caller, {
          repositoryId: repository.id, fromImage: "docker.io/library/node:20", reason: "certification", until: "2026-02-12T00:00:00Z"
        })
        const pendingScan = Option.getOrThrow(yield* store.scans.latest(orgId, repository.id, "main"))
        const target = { orgId, repositoryId: repository.id, branchName: "main", scanId: pendingScan.id }
        assert.isTrue(Option.isSome(yield* Workflows.Remediation.remediateBranch(target)), "a pending snooze suppresses nothing")
        fixture.closeRemediation("acme/api", 1)

        yield* Workflows.SnoozeRequests.reviewSnoozeRequest(caller, snooze.id, { decision: "approve" })
        yield* TestClock.adjust(day)
        assert.isTrue(Option.isNone(yield* Workflows.Remediation.remediateBranch(target)))
        assert.strictEqual(fixture.remediations("acme/api").length, 1, "no new request while snoozed")
        yield* TestClock.adjust(10 * day) // past `until`
        const after = yield* Workflows.Remediation.remediateBranch(target)
        assert.strictEqual(Option.getOrThrow(after).number, 2)
      })))

  it.effect("a refused write records a failed request, its audit row and the .failed event; the next run opens one", () =>
    run((store, fixture) =>
      Effect.gen(function*() {
        const { repository } = yield* onboard(["main"])
        yield* publish(standardMappings)
        yield* runQueued(store)
        const scan = Option.getOrThrow(yield* store.scans.latest(orgId, repository.id, "main"))
        const target = { orgId, repositoryId: repository.id, branchName: "main", scanId: scan.id }

        fixture.failNextWrite("forbidden")
        const failed = Option.getOrThrow(yield* Workflows.Remediation.remediateBranch(target))
        assert.deepStrictEqual([failed.status, failed.failure, failed.number, failed.url], ["failed", "permission-denied", null, null])
        assert.strictEqual(failed.changes.length, 4)
        const audit = (yield* store.audit.list(orgId, { limit: 50 })).items.find((a) => a.action === "remediation.fail")
        assert.deepStrictEqual([audit?.outcome, audit?.detail], ["rejected", "permission-denied"])
        const [event] = yield* events(store)
        assert.deepStrictEqual(event?.data, {
          repository_id: repository.id,
          action: "failed",
          failure_kind: "permission-denied",
          changed_at: new Date(start).toISOString()
        })
        // the same scan run again (its worker died after recording) with the same outcome: nothing new
        fixture.failNextWrite("forbidden")
        assert.strictEqual(Option.getOrThrow(yield* Workflows.Remediation.remediateBranch(target)).id, failed.id)
        assert.strictEqual((yield* events(store)).length, 1)

        yield* TestClock.adjust(60_000)
        fixture.failNextWrite("rate-limited")
        assert.strictEqual(Option.getOrThrow(yield* Workflows.Remediation.remediateBranch(target)).failure, "rate-limited")
        yield* TestClock.adjust(60_000)
        fixture.failNextWrite("conflict")
        assert.strictEqual(Option.getOrThrow(yield* Workflows.Remediation.remediateBranch(target)).failure, "conflict")
        yield* TestClock.adjust(60_000)
        const opened = Option.getOrThrow(yield* Workflows.Remediation.remediateBranch(target))
        assert.strictEqual(opened.status, "open")
        const rows = (yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items
        assert.deepStrictEqual(rows.map((r) => r.status), ["open", "failed", "failed", "failed"])
        assert.deepStrictEqual((yield* events(store)).map((e) => e.type.split(".").pop()), ["failed", "failed", "failed", "created"])
        // run again for the same scan: the provider's request is updated with the same changes, and
        // nothing new is recorded, audited or told
        yield* TestClock.adjust(60_000)
        assert.deepStrictEqual(Option.getOrThrow(yield* Workflows.Remediation.remediateBranch(target)), opened)
        assert.deepStrictEqual((yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items.map((r) => r.status), ["open", "failed", "failed", "failed"])
        assert.strictEqual((yield* events(store)).length, 4)
        assert.strictEqual((yield* store.audit.list(orgId, { limit: 50 })).items.filter((a) => a.action === "remediation.update").length, 0)
      })))

  it.effect("a file that moved since the scan keeps its text: only the changes still in place are made", () =>
    run((store, fixture) =>
      Effect.gen(function*() {
        const { repository } = yield* onboard(["main"])
        yield* publish(standardMappings)
        yield* runQueued(store)
        const at = { orgId, vcsConnectionId: connectionId, fullName: "acme/api", branch: "main" }
        fixture.files.setFile({ ...at, path: "Dockerfile" }, "# rewritten since\nFROM node:20\n")
        const scan = Option.getOrThrow(yield* store.scans.latest(orgId, repository.id, "main"))
        const request = Option.getOrThrow(yield* Workflows.Remediation.remediateBranch({ orgId, repositoryId: repository.id, branchName: "main", scanId: scan.id }))
        assert.deepStrictEqual(request.changes.map((c) => c.file), [".github/workflows/ci.yml", "deploy/api.yaml", "docker-compose.yml"])
        assert.notInclude(fixture.remediations("acme/api")[0]!.files.map((f) => f.path), "Dockerfile")
      })))
})

describe("remediation within the routine scan", () => {
  /** Claims the queued scans and runs each, answering each run's exit (a defect does not stop the others). */
  const runQueuedExits = (store: AllStores, worker: string) =>
    Effect.flatMap(claimAll(store, worker), (claimed) => Effect.forEach(claimed, (c) => Effect.exit(Workflows.Scans.runScan(c, worker))))

  it.effect("a crash after the provider opened the request leaves the scan running; the next claim records the request once", () => {
    let crashes = 1
    return run(
      (store, fixture) =>
        Effect.gen(function*() {
          const { repository } = yield* onboard(["main"])
          yield* publish(standardMappings)
          yield* runQueued(store)
          yield* TestClock.adjust(7 * day)
          assert.strictEqual(yield* Workflows.Scans.routineTick, 1)

          const [first] = yield* runQueuedExits(store, "w1")
          assert.isTrue(first !== undefined && Exit.isFailure(first) && Cause.hasDies(first.cause), "the worker's run died")
          const scan = Option.getOrThrow(yield* store.scans.latest(orgId, repository.id, "main"))
          assert.deepStrictEqual([scan.trigger, scan.status, scan.attempts], ["routine", "running", 1])
          assert.strictEqual(fixture.remediations("acme/api").length, 1, "the provider opened the request before the crash")
          assert.deepStrictEqual((yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items, [])
          assert.deepStrictEqual(yield* events(store), [])
          // running the routine now while it is pending answers the same scan: no second remediation
          const again = yield* Workflows.Scans.requestScans(caller, repository.id, { remediate: true })
          assert.deepStrictEqual(again.scans.map((s) => s.id), [scan.id])

          yield* TestClock.adjust(61_000) // the lease expires
          const [second] = yield* runQueuedExits(store, "w2")
          assert.isTrue(second !== undefined && Exit.isSuccess(second) && second.value?.status === "succeeded")
          const finished = Option.getOrThrow(yield* store.scans.get(orgId, scan.id))
          assert.deepStrictEqual([finished.status, finished.attempts], ["succeeded", 2])

          const opened = fixture.remediations("acme/api")
          assert.deepStrictEqual(opened.map((r) => `${r.number} ${r.state} ${r.writes}`), ["1 open 2"], "the open request was updated, not duplicated")
          const rows = (yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items
          assert.deepStrictEqual(rows.map((r) => `${r.number} ${r.status} ${r.scanId}`), [`1 open ${scan.id}`])
          assert.strictEqual(rows[0]!.changes.length, 4)
          const audit = (yield* store.audit.list(orgId, { limit: 50 })).items.filter((a) => a.action.startsWith("remediation."))
          assert.deepStrictEqual(audit.map((a) => a.action), ["remediation.open"])
          assert.deepStrictEqual((yield* events(store)).map((e) => e.type), ["service.remediation_pull_request.created"])
        }),
      (fixture) => ({
        ...fixture.provider,
        openRemediation: (ctx, write) =>
          Effect.flatMap(fixture.provider.openRemediation(ctx, write), (opened) => crashes-- > 0 ? Effect.die("worker crashed") : Effect.succeed(opened))
      })
    )
  })

  it.effect("a remediation that dies on every run is given up with its scan after 3 claims", () =>
    run(
      (store) =>
        Effect.gen(function*() {
          const { repository } = yield* onboard(["main"])
          yield* publish(standardMappings)
          yield* runQueued(store)
          yield* TestClock.adjust(7 * day)
          yield* Workflows.Scans.routineTick
          for (let i = 0; i < 3; i++) {
            const [exit] = yield* runQueuedExits(store, `w${i}`)
            assert.isTrue(exit !== undefined && Exit.isFailure(exit), `run ${i + 1} died`)
            yield* TestClock.adjust(61_000)
          }
          assert.deepStrictEqual(yield* claimAll(store, "w9"), [])
          const scan = Option.getOrThrow(yield* store.scans.latest(orgId, repository.id, "main"))
          assert.deepStrictEqual([scan.status, scan.failure, scan.attempts], ["failed", "abandoned", 3])
          assert.deepStrictEqual((yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items, [])
        }),
      (fixture) => ({ ...fixture.provider, openRemediation: () => Effect.die("worker crashed") })
    ))

  it.effect("the routine scan remediates from the findings it just read, not the previous scan's", () =>
    run((store, fixture) =>
      Effect.gen(function*() {
        const { repository } = yield* onboard(["main"])
        yield* publish(standardMappings)
        yield* runQueued(store)
        // changed between the onboarding scan and the routine scan: the old image moved to line 1
        fixture.files.setFile({ orgId, vcsConnectionId: connectionId, fullName: "acme/api", branch: "main", path: "Dockerfile" }, "FROM node:20\nRUN true\n")
        const { scans } = yield* routineRun(store)
        assert.strictEqual(scans[0]?.status, "succeeded")
        const [request] = (yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items
        assert.strictEqual(request?.scanId, scans[0]!.id)
        assert.include(request!.changes.map((c) => `${c.file}:${c.line}:${c.column} ${c.from} -> ${c.to}`), "Dockerfile:1:6 node:20 -> node:20.11.1")
        const files = Object.fromEntries(fixture.remediations("acme/api")[0]!.files.map((f) => [f.path, f.content]))
        assert.strictEqual(files["Dockerfile"], "FROM node:20.11.1\nRUN true\n")
      })))

  it.effect("a provider that refuses the write: a failed request is recorded and the routine scan still succeeds", () =>
    run((store, fixture) =>
      Effect.gen(function*() {
        const { repository } = yield* onboard(["main"])
        yield* publish(standardMappings)
        yield* runQueued(store)
        fixture.failNextWrite("forbidden")
        const { scans } = yield* routineRun(store)
        assert.deepStrictEqual([scans[0]?.trigger, scans[0]?.status], ["routine", "succeeded"])
        const rows = (yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items
        assert.deepStrictEqual(rows.map((r) => `${r.status} ${r.failure}`), ["failed permission-denied"])
        assert.deepStrictEqual((yield* events(store)).map((e) => e.type), ["service.remediation_pull_request.failed"])
        assert.deepStrictEqual(yield* claimAll(store), [], "nothing left to retry")
      })))
})

describe("connection health (every provider call through a connection)", () => {
  type Method = keyof typeof VcsProvider.Service

  /**
   * The fixture provider with a switch per method: while `refuse` names a reason for a method, its
   * calls fail with that `VcsProviderError`. `calls` counts the calls that reached the provider.
   */
  const switchable = () => {
    const refuse: { [K in Method]?: VcsProviderError["reason"] } = {}
    const calls: { [K in Method]?: number } = {}
    const provider = (fixture: Fixture): typeof VcsProvider.Service => {
      const p = fixture.provider
      const gate = <A, E>(method: Method, call: () => Effect.Effect<A, E>) =>
        Effect.suspend((): Effect.Effect<A, E | VcsProviderError> => {
          calls[method] = (calls[method] ?? 0) + 1
          const reason = refuse[method]
          return reason === undefined ? call() : Effect.fail(new VcsProviderError({ reason }))
        })
      return {
        listRepositories: (ctx, options) => gate("listRepositories", () => p.listRepositories(ctx, options)),
        listBranches: (ctx, repository) => gate("listBranches", () => p.listBranches(ctx, repository)),
        readFile: (ctx, file) => gate("readFile", () => p.readFile(ctx, file)),
        listFiles: (ctx, at) => gate("listFiles", () => p.listFiles(ctx, at)),
        openRemediation: (ctx, write) => gate("openRemediation", () => p.openRemediation(ctx, write))
      }
    }
    return { refuse, calls, provider }
  }

  const statusOf = (store: AllStores) => Effect.map(store.vcsConnections.get(orgId, connectionId), (c) => Option.getOrThrow(c).status)

  /** The repository store, recording every connection status written through it in `writes`. */
  const recordingWrites = (store: AllStores, writes: Array<string>): typeof RepositoryStore.Service => ({
    repositories: store.repositories,
    assignments: store.assignments,
    vcsConnections: {
      ...store.vcsConnections,
      setHealth: (org, id, status) => Effect.andThen(Effect.sync(() => writes.push(status)), store.vcsConnections.setHealth(org, id, status))
    }
  })

  it.effect("a scan refused with unauthorized fails provider-unauthorized and marks the connection error; the next answered scan marks it active", () => {
    const provider = switchable()
    return run(
      (store) =>
        Effect.gen(function*() {
          const { repository } = yield* onboard(["main"])
          provider.refuse.listFiles = "unauthorized"
          const [refused] = yield* runQueued(store)
          assert.deepStrictEqual([refused?.status, refused?.failure], ["failed", "provider-unauthorized"])
          assert.strictEqual(yield* statusOf(store), "error")
          const [view] = (yield* Workflows.Onboarding.listVcsConnections(caller, { limit: 10 })).items
          assert.strictEqual(view?.status, "error", "the connections route shows it")

          delete provider.refuse.listFiles
          yield* Workflows.Scans.requestScans(caller, repository.id, { branchNames: ["main"] })
          const [answered] = yield* runQueued(store)
          assert.strictEqual(answered?.status, "succeeded")
          assert.strictEqual(yield* statusOf(store), "active")
        }),
      provider.provider
    )
  })

  it.effect("the reads of one scan all refused with unauthorized write the status once; a connection already error is not written again", () => {
    const provider = switchable()
    return run(
      (store) =>
        Effect.gen(function*() {
          const { repository } = yield* onboard(["main"])
          provider.refuse.readFile = "unauthorized"
          const writes: Array<string> = []
          const [refused] = yield* runQueued(store).pipe(Effect.provideService(RepositoryStore, recordingWrites(store, writes)))
          assert.strictEqual(refused?.failure, "provider-unauthorized")
          assert.isAbove(provider.calls.readFile ?? 0, 0)
          assert.deepStrictEqual(writes, ["error"])

          provider.refuse.listFiles = "unauthorized"
          yield* Workflows.Scans.requestScans(caller, repository.id, { branchNames: ["main"] })
          const [again] = yield* runQueued(store).pipe(Effect.provideService(RepositoryStore, recordingWrites(store, writes)))
          assert.strictEqual(again?.failure, "provider-unauthorized")
          assert.deepStrictEqual(writes, ["error"], "refused again: nothing new to write")
          assert.strictEqual(yield* statusOf(store), "error")
        }),
      provider.provider
    )
  })

  it.effect("a rate-limited or unreachable provider leaves the status as it was", () => {
    const provider = switchable()
    return run(
      (store) =>
        Effect.gen(function*() {
          const { repository } = yield* onboard(["main"])
          yield* runQueued(store)
          for (const [start, reason] of [["active", "rate-limited"], ["error", "rate-limited"], ["error", "unavailable"]] as const) {
            yield* store.vcsConnections.setStatus(orgId, connectionId, start)
            provider.refuse.listFiles = reason
            yield* Workflows.Scans.requestScans(caller, repository.id, { branchNames: ["main"] })
            const writes: Array<string> = []
            const [scan] = yield* runQueued(store).pipe(Effect.provideService(RepositoryStore, recordingWrites(store, writes)))
            assert.strictEqual(scan?.failure, `provider-${reason}`)
            assert.deepStrictEqual(writes, [])
            assert.strictEqual(yield* statusOf(store), start)
          }
        }),
      provider.provider
    )
  })

  it.effect("an inactive connection stays inactive, whatever the provider answers", () => {
    const provider = switchable()
    return run(
      (store) =>
        Effect.gen(function*() {
          const { repository } = yield* onboard(["main"])
          yield* runQueued(store)
          yield* store.vcsConnections.setStatus(orgId, connectionId, "inactive")
          yield* Workflows.Scans.requestScans(caller, repository.id, { branchNames: ["main"] })
          const [scan] = yield* runQueued(store)
          assert.strictEqual(scan?.failure, "provider-not-configured")
          // the available-repositories route still asks the provider of an inactive connection
          provider.refuse.listRepositories = "unauthorized"
          const refused = yield* Effect.result(Workflows.Onboarding.listAvailableRepositories(caller, connectionId, { refresh: true }))
          assert.isTrue(Result.isFailure(refused) && refused.failure._tag === "VcsProviderError" && refused.failure.reason === "unauthorized")
          assert.strictEqual(yield* statusOf(store), "inactive")
          delete provider.refuse.listRepositories
          assert.strictEqual((yield* Workflows.Onboarding.listAvailableRepositories(caller, connectionId, { refresh: true })).length, 1)
          assert.strictEqual(yield* statusOf(store), "inactive")
        }),
      provider.provider
    )
  })

  it.effect("the onboarding lists apply the rule; onboarding refuses an error connection before asking the provider", () => {
    const provider = switchable()
    return run(
      (store) =>
        Effect.gen(function*() {
          provider.refuse.listRepositories = "unauthorized"
          const refused = yield* Effect.result(Workflows.Onboarding.listAvailableRepositories(caller, connectionId, { refresh: false }))
          assert.isTrue(Result.isFailure(refused) && refused.failure._tag === "VcsProviderError" && refused.failure.reason === "unauthorized")
          assert.strictEqual(yield* statusOf(store), "error")

          const asked = provider.calls.listRepositories
          const notActive = yield* Effect.result(onboard(["main"]))
          assert.isTrue(Result.isFailure(notActive) && notActive.failure._tag === "ConnectionNotActive")
          assert.strictEqual(provider.calls.listRepositories, asked, "no provider call for a connection that is not active")

          // the token was renewed: lists that may come from the adapter's cache prove nothing ...
          delete provider.refuse.listRepositories
          const branches = yield* Workflows.Onboarding.listAvailableBranches(caller, connectionId, { fullName: "acme/api", defaultBranch: "main" })
          assert.deepStrictEqual(branches.map((b) => b.name).sort(), ["huge", "main", "release"])
          yield* Workflows.Onboarding.listAvailableRepositories(caller, connectionId, { refresh: false })
          assert.strictEqual(yield* statusOf(store), "error", "a list that may be cached does not restore the connection")
          // ... a refreshed repository list asks the provider, and its answer marks the connection active again
          yield* Workflows.Onboarding.listAvailableRepositories(caller, connectionId, { refresh: true })
          assert.strictEqual(yield* statusOf(store), "active")
          assert.deepStrictEqual((yield* onboard(["main"])).scans, [{ branchName: "main", status: "queued" }])

          yield* store.vcsConnections.setStatus(orgId, connectionId, "error")
          provider.refuse.listBranches = "not-found"
          const unknown = yield* Effect.result(Workflows.Onboarding.listAvailableBranches(caller, connectionId, { fullName: "acme/gone", defaultBranch: "main" }))
          assert.isTrue(Result.isFailure(unknown) && unknown.failure._tag === "VcsProviderError" && unknown.failure.reason === "not-found")
          assert.strictEqual(yield* statusOf(store), "active", "not-found is an answer: the credentials were accepted")
        }),
      provider.provider
    )
  })

  it.effect("a routine remediation refused with unauthorized marks the connection error, after its scan marked it active", () =>
    run((store, fixture) =>
      Effect.gen(function*() {
        const { repository } = yield* onboard(["main"])
        yield* publish(standardMappings)
        yield* runQueued(store)
        // the scan reads through an error connection (it marks it active), then the write is refused
        yield* store.vcsConnections.setStatus(orgId, connectionId, "error")
        fixture.failNextWrite("unauthorized")
        const { scans } = yield* routineRun(store)
        assert.deepStrictEqual([scans[0]?.trigger, scans[0]?.status], ["routine", "succeeded"])
        const [request] = (yield* store.remediations.list(orgId, repository.id, { limit: 10 })).items
        assert.deepStrictEqual([request?.status, request?.failure], ["failed", "permission-denied"])
        assert.strictEqual(yield* statusOf(store), "error")

        // a write refused for its content was still answered with the credentials accepted
        fixture.failNextWrite("conflict")
        const target = { orgId, repositoryId: repository.id, branchName: "main", scanId: scans[0]!.id }
        assert.strictEqual(Option.getOrThrow(yield* Workflows.Remediation.remediateBranch(target)).failure, "conflict")
        assert.strictEqual(yield* statusOf(store), "active")
        fixture.failNextWrite("unauthorized")
        yield* TestClock.adjust(60_000)
        assert.strictEqual(Option.getOrThrow(yield* Workflows.Remediation.remediateBranch(target)).failure, "permission-denied")
        assert.strictEqual(yield* statusOf(store), "error")
      })))
})
