/**
 * What the scan workflow tests share (scanWorkflows.*.test.ts): an organization with a team, a weekly
 * routine, a fixture connection whose acme/api repository has real-world files, a policy group and a
 * team-scoped webhook; `run` gives each test a fresh memory store, seeded ids and the fixture provider.
 */
import { Id, type Ids, type Stores, VcsProvider, Workflows } from "@image-policy/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/testing/TestClock"
import * as MemoryStore from "../../src/storage/memory/MemoryStore.js"
import * as FixtureVcs from "../../src/vcs/Fixture.js"
import { layerSeeded } from "./seededIds.js"
import { type AllStores, allStores } from "./stores.js"

export const id = <A>(kind: Id.Kind, n: number) => Id.make(kind, new Uint8Array(16).fill(n)) as A
export const orgId = id<Id.OrgId>("organization", 1)
export const team = id<Id.TeamId>("team", 1)
export const routineId = id<Id.RoutineId>("routine", 1)
export const connectionId = id<Id.VcsConnectionId>("vcsConnection", 1)
export const groupId = id<Id.PolicyGroupId>("policyGroup", 1)
export const phaseId = id<Id.PhaseId>("phase", 1)
export const hookId = id<Id.WebhookId>("webhook", 1)
export const caller: Workflows.Caller.Caller = {
  orgId,
  actor: { kind: "apiKey", apiKeyId: id("apiKey", 1), serviceAccountId: id("serviceAccount", 1) },
  correlationId: "req-1"
}
export const day = 86_400_000
export const start = Date.parse("2026-02-01T00:00:00Z")

export const dockerfile = [
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
export const compose = [
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
export const deployment = [
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
export const workflow = [
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

export const huge = Object.fromEntries(Array.from({ length: 5_001 }, (_, i) => [`k8s/m${i}.yaml`, "kind: ConfigMap\n"]))
export const settings = {
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

export const seed = (store: AllStores) =>
  Effect.gen(function*() {
    yield* store.organizations.insert({
      id: orgId,
      name: "Acme",
      edition: "enterprise",
      grants: [],
      defaultNotificationTeamId: team,
      cooldownSeconds: 0
    })
    yield* store.teams.insert(orgId, { id: team, name: "Platform" })
    yield* store.routines.insert(orgId, { id: routineId, teamId: team, name: "Weekly", active: true, intervalDays: 7 })
    yield* store.vcsConnections.insert(
      orgId,
      { id: connectionId, provider: "github", externalAccountName: "acme", status: "active" },
      settings
    )
    yield* store.policyGroups.insert(orgId, {
      id: groupId,
      name: "Base images",
      applyToAllRepos: true,
      notificationRouting: { kind: "inherit" },
      cooldownSeconds: null,
      phases: [{ id: phaseId, name: "Curated", sourceType: "internal", position: 0 }]
    })
    yield* store.webhooks.insert(orgId, {
      id: hookId,
      name: "platform",
      type: "generic",
      endpointSealed: "sealed",
      endpointPreview: "https://h.example/…/abcd",
      signingSecretSealed: "sealed",
      audienceTeamId: team,
      scope: { kind: "team", teamId: team },
      events: ["service.remediation_pull_request.created", "service.remediation_pull_request.failed"],
      status: "active",
      disabledReason: null,
      createdAt: "2026-01-01T00:00:00.000Z"
    })
  })

export type Fixture = ReturnType<typeof FixtureVcs.make>

/** A fresh store, ids and fixture provider; `provider` may replace some of the fixture's methods. */
export const run = <A, E>(
  f: (store: AllStores, fixture: Fixture) => Effect.Effect<A, E, Stores | Ids | VcsProvider>,
  provider: (fixture: Fixture) => typeof VcsProvider.Service = (fixture) => fixture.provider
) => {
  const fixture = FixtureVcs.make()
  const layer = Layer.mergeAll(MemoryStore.layer, layerSeeded(7), Layer.succeed(VcsProvider, provider(fixture)))
  return Effect.gen(function*() {
    const store = yield* allStores
    yield* TestClock.setTime(start)
    yield* seed(store)
    return yield* f(store, fixture)
  }).pipe(Effect.provide(layer))
}

export const onboard = (branchNames: ReadonlyArray<string> = ["main", "release"]) =>
  Workflows.Onboarding.createRepository(caller, {
    vcsConnectionId: connectionId,
    externalRepoId: "1001",
    assignedTeamId: team,
    assignedRoutineId: routineId,
    branchNames
  })

export const publish = (mappings: ReadonlyArray<readonly [string, string]>) =>
  Effect.gen(function*() {
    for (const [fromImage, toImage] of mappings) {
      yield* Workflows.Policy.upsertDraftMapping(caller, groupId, phaseId, { fromImage, toImage, reason: "patched base" })
    }
    yield* Workflows.Policy.publishPolicyGroup(caller, groupId)
  })

export const claimAll = (store: AllStores, worker = "w1") =>
  Effect.flatMap(Clock.currentTimeMillis, (ms) => store.scans.claim({ worker, now: new Date(ms), leaseMs: 60_000, limit: 10 }))

/** Claims every queued scan and runs it, as the scan worker does. */
export const runQueued = (store: AllStores, worker = "w1") =>
  Effect.flatMap(claimAll(store, worker), (claimed) => Effect.forEach(claimed, (c) => Workflows.Scans.runScan(c, worker)))

export const events = (store: AllStores) =>
  Effect.gen(function*() {
    const deliveries = yield* store.outbox.deliveries(orgId, hookId, { limit: 50 })
    const out = []
    for (const d of deliveries.items) out.push(Option.getOrThrow(yield* store.outbox.getEvent(orgId, d.eventId)))
    return out.sort((a, b) => a.time.localeCompare(b.time))
  })

export const standardMappings = [
  ["node:20", "node:20.11.1"],
  ["redis:7", "redis:7.4"],
  ["ghcr.io/acme/migrate:1.4", "ghcr.io/acme/migrate:1.5"]
] as const
/** Onboards, publishes, scans, waits a routine interval, ticks and runs the routine scans. */
export const routineRun = (store: AllStores) =>
  Effect.gen(function*() {
    yield* TestClock.adjust(7 * day)
    const queued = yield* Workflows.Scans.routineTick
    const scans = yield* runQueued(store)
    return { queued, scans }
  })
