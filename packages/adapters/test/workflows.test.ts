/**
 * The core's workflows over a real store: state, audit row and outbox events commit together; a
 * rejected request changes nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import { Id, type Ids, type Stores, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as TestClock from "effect/testing/TestClock"
import * as ApiKeyHash from "../src/crypto/ApiKeyHash.js"
import * as MemoryStore from "../src/storage/memory/MemoryStore.js"
import { layerSeeded } from "./support/seededIds.js"
import { type AllStores, allStores } from "./support/stores.js"

const id = <A>(kind: Id.Kind, n: number) => Id.make(kind, new Uint8Array(16).fill(n)) as A
const orgId = id<Id.OrgId>("organization", 1)
const team = id<Id.TeamId>("team", 1)
const groupId = id<Id.PolicyGroupId>("policyGroup", 1)
const allReposGroup = id<Id.PolicyGroupId>("policyGroup", 2)
const internal = id<Id.PhaseId>("phase", 1)
const external = id<Id.PhaseId>("phase", 2)
const repoId = id<Id.RepositoryId>("repository", 1)
const hookId = id<Id.WebhookId>("webhook", 1)
const caller: Workflows.Caller.Caller = {
  orgId,
  actor: { kind: "apiKey", apiKeyId: id("apiKey", 1), serviceAccountId: id("serviceAccount", 1) },
  correlationId: "req-1"
}

const seed = (store: AllStores) =>
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
    yield* store.policyGroups.insert(orgId, {
      id: groupId,
      name: "Base images",
      applyToAllRepos: false,
      notificationRouting: { kind: "inherit" },
      cooldownSeconds: null,
      phases: [
        { id: internal, name: "Curated", sourceType: "internal", position: 0 },
        {
          id: external,
          name: "Repo",
          sourceType: "external",
          position: 1,
          external: {
            vcsConnectionId: id("vcsConnection", 1),
            repositoryFullName: "acme/policy",
            branch: "main",
            path: "service-mappings.json",
            pollIntervalSeconds: 60,
            lastSyncedAt: null,
            lastError: null,
            lastVersion: null
          }
        }
      ]
    })
    yield* store.policyGroups.insert(orgId, {
      id: allReposGroup,
      name: "Everywhere",
      applyToAllRepos: true,
      notificationRouting: { kind: "none" },
      cooldownSeconds: null,
      phases: []
    })
    yield* store.repositories.insert(orgId, {
      id: repoId,
      vcsConnectionId: id("vcsConnection", 1),
      externalRepoId: "1001",
      fullName: "acme/api",
      defaultBranch: "main",
      assignedTeamId: team,
      assignedRoutineId: id("routine", 1),
      branches: [{ branchName: "main", scan: { status: "queued" } }, { branchName: "release", scan: { status: "queued" } }],
      createdAt: "2026-01-01T00:00:00.000Z"
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
      events: ["service.policy_group.published", "service.policy_mapping.created", "service.snooze_request.created"],
      status: "active",
      disabledReason: null,
      createdAt: "2026-01-01T00:00:00.000Z"
    })
  })

const TestLayer = Layer.merge(MemoryStore.layer, layerSeeded(7))
const withStore = <A, E>(f: (store: AllStores) => Effect.Effect<A, E, Stores | Ids>) =>
  Effect.gen(function*() {
    const store = yield* allStores
    yield* seed(store)
    yield* TestClock.setTime(Date.parse("2026-02-01T00:00:00Z"))
    return yield* f(store)
  }).pipe(Effect.provide(TestLayer))

describe("workflows", () => {
  it.effect("a draft mapping posted twice is one draft; publishing makes it live and emits routed events", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const input = { fromImage: "nginx:1", toImage: "nginx:1.27", reason: "CVE fix" }
        const first = yield* Workflows.Policy.upsertDraftMapping(caller, groupId, internal, input)
        const second = yield* Workflows.Policy.upsertDraftMapping(caller, groupId, internal, {
          ...input,
          fromImage: "docker.io/library/nginx:1"
        })
        const third = yield* Workflows.Policy.upsertDraftMapping(caller, groupId, internal, {
          ...input,
          fromImage: "docker.io/library/nginx:1"
        })
        assert.deepStrictEqual([first.outcome, second.outcome, third.outcome], ["created", "updated", "unchanged"])
        assert.strictEqual(second.mapping.id, first.mapping.id)
        assert.strictEqual((yield* store.drafts.listByGroup(orgId, groupId)).length, 1)
        assert.strictEqual((yield* store.published.listByGroup(orgId, groupId)).length, 0, "drafts are not live")

        const published = yield* Workflows.Policy.publishPolicyGroup(caller, groupId)
        assert.strictEqual(published.changes.created.length, 1)
        assert.strictEqual((yield* store.published.listByGroup(orgId, groupId))[0]!.toImage, "nginx:1.27")
        const deliveries = yield* store.outbox.deliveries(orgId, hookId, { limit: 50 })
        assert.strictEqual(deliveries.items.length, 2, "group published + mapping created, to the group's inherited team")
        const audit = yield* store.audit.list(orgId, { limit: 50 })
        // the test clock stands still, so the three rows share a timestamp: compare as a set
        assert.sameMembers(audit.items.map((a) => a.action), ["policy_group.publish", "mapping.updated", "mapping.created"])
        for (const row of audit.items) assert.deepStrictEqual(row.actor, caller.actor)
      })
    ))

  it.effect("mapping edits on an external phase are refused and change nothing (rule 7)", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const result = yield* Effect.result(
          Workflows.Policy.upsertDraftMapping(caller, groupId, external, { fromImage: "nginx:1", toImage: "nginx:2" })
        )
        assert.isTrue(Result.isFailure(result) && result.failure._tag === "ExternalPhaseReadOnly")
        const bad = yield* Effect.result(
          Workflows.Policy.upsertDraftMapping(caller, groupId, internal, { fromImage: "nginx:1", toImage: "nginx" })
        )
        assert.isTrue(Result.isFailure(bad) && bad.failure._tag === "InvalidMapping")
        assert.strictEqual((yield* store.drafts.listByGroup(orgId, groupId)).length, 0)
        assert.strictEqual((yield* store.audit.list(orgId, { limit: 10 })).items.length, 0)
      })
    ))

  it.effect("assignment replacement equals the request; all-repos groups and untracked branches are refused", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const view = yield* Workflows.Assignments.replaceAssignments(caller, repoId, {
          assignments: [{ policyGroupId: groupId, branchNames: ["release"] }]
        })
        assert.deepStrictEqual(view.trackedBranchNames, ["main", "release"])
        assert.deepStrictEqual(view.items.map((i) => [i.name, i.source, i.branchNames]), [
          ["Everywhere", "all_repositories", ["main", "release"]],
          ["Base images", "repository_assignment", ["release"]]
        ])
        const refused = yield* Effect.result(Workflows.Assignments.replaceAssignments(caller, repoId, {
          assignments: [{ policyGroupId: groupId, branchNames: ["hotfix"] }]
        }))
        assert.isTrue(Result.isFailure(refused) && refused.failure._tag === "BranchNotTracked")
        assert.deepStrictEqual(yield* store.assignments.get(orgId, repoId), [{ policyGroupId: groupId, branchNames: ["release"] }])
        const cleared = yield* Workflows.Assignments.replaceAssignments(caller, repoId, { assignments: [] })
        assert.deepStrictEqual(cleared.items.map((i) => i.source), ["all_repositories"])
      })
    ))

  it.effect("an embedder's typed input is checked against the request schemas: InvalidInput naming each field, nothing written", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const fieldsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
          Effect.map(Effect.flip(effect), (e: any) => {
            assert.strictEqual(e._tag, "InvalidInput")
            return (e.errors as ReadonlyArray<{ path: string }>).map((x) => x.path)
          })
        assert.deepStrictEqual(
          yield* fieldsOf(Workflows.SnoozeRequests.createSnoozeRequest(caller, {
            repositoryId: repoId,
            fromImage: "nginx:1.25\u0000",
            reason: "vendor\ud800",
            until: "2026-02-30T00:00:00Z"
          })),
          ["fromImage", "reason", "until"]
        )
        // assignments name only tracked branches (BranchNotTracked), so no other text reaches the store
        const tooMany = Array.from({ length: 501 }, () => ({ policyGroupId: groupId, branchNames: ["main"] }))
        assert.deepStrictEqual(yield* fieldsOf(Workflows.Assignments.replaceAssignments(caller, repoId, { assignments: tooMany })), [
          "assignments"
        ])
        // a union (role or permissions): each form says why; both name the field
        assert.include(
          yield* fieldsOf(
            Effect.provide(
              Workflows.ApiKeys.createApiKey(caller, { name: "deploy\u0000", role: "Owner", expiresInDays: 30 }),
              ApiKeyHash.layer
            )
          ),
          "name"
        )
        assert.deepStrictEqual((yield* store.snoozeRequests.list(orgId, { limit: 10 })).items, [])
        assert.deepStrictEqual(yield* store.assignments.get(orgId, repoId), [])
        assert.strictEqual((yield* store.audit.list(orgId, { limit: 10 })).items.length, 0)
      })
    ))

  it.effect("creating a snooze request emits service.snooze_request.created with exactly the spec's data", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const request = yield* Workflows.SnoozeRequests.createSnoozeRequest(caller, {
          repositoryId: repoId,
          fromImage: "nginx:1.25",
          reason: "vendor certification",
          until: "2026-03-01T00:00:00Z"
        })
        assert.strictEqual(request.status, "pending")
        const [delivery] = (yield* store.outbox.deliveries(orgId, hookId, { limit: 10 })).items
        const event = yield* store.outbox.getEvent(orgId, delivery!.eventId)
        assert.isTrue(event._tag === "Some")
        if (event._tag === "Some") {
          assert.strictEqual(event.value.type, "service.snooze_request.created")
          assert.strictEqual(event.value.subject, `exception_review/${request.id}`)
          assert.deepStrictEqual(event.value.data, {
            snooze_request_id: request.id,
            previous_status: null,
            current_status: "pending",
            action: "created",
            repository_id: repoId,
            changed_at: "2026-02-01T00:00:00.000Z"
          })
        }
        const unknown = yield* Effect.result(Workflows.SnoozeRequests.createSnoozeRequest(caller, {
          repositoryId: id("repository", 9),
          fromImage: "nginx:1",
          reason: "x",
          until: "2026-03-01T00:00:00Z"
        }))
        assert.isTrue(Result.isFailure(unknown) && unknown.failure._tag === "InvalidReferenceInBody")
        const approved = yield* Workflows.SnoozeRequests.reviewSnoozeRequest(caller, request.id, { decision: "approve" })
        assert.strictEqual(approved.status, "approved")
        const reopen = yield* Effect.result(Workflows.SnoozeRequests.reopenSnoozeRequest(caller, request.id))
        assert.isTrue(Result.isFailure(reopen) && reopen.failure._tag === "InvalidSnoozeTransition")
      })
    ))
})

describe("API key workflows", () => {
  const AuthLayer = Layer.mergeAll(MemoryStore.layer, layerSeeded(9), ApiKeyHash.layer)
  const setup = Effect.gen(function*() {
    const store = yield* allStores
    yield* seed(store)
    yield* TestClock.setTime(Date.parse("2026-02-01T00:00:00Z"))
    return store
  })

  it.effect("the secret is shown once, authenticates, is never stored, and revocation keeps the metadata", () =>
    Effect.gen(function*() {
      const store = yield* setup
      const created = yield* Workflows.ApiKeys.createApiKey(caller, { name: "ci", role: "Policy Automation", expiresInDays: 30 })
      assert.match(created.secret, /^ipk_/)
      assert.strictEqual(created.expiresAt, "2026-03-03T00:00:00.000Z")
      const stored = (yield* store.apiKeys.list(orgId, { limit: 10 })).items[0]!
      assert.notInclude(JSON.stringify(stored), created.secret)
      const listed = yield* Workflows.ApiKeys.listApiKeys(caller, { limit: 10 })
      assert.notProperty(listed.items[0]!, "secret")
      assert.strictEqual(listed.items[0]!.status, "active")

      const principal = yield* Workflows.ApiKeys.authenticate(created.secret, orgId, ["mappings:write"])
      assert.strictEqual(principal.apiKeyId, created.id)
      const fail = (secret: string | undefined, org: string, perms: ReadonlyArray<any>) =>
        Effect.map(Effect.flip(Workflows.ApiKeys.authenticate(secret, org, perms)), (e) => e._tag)
      assert.strictEqual(yield* fail(undefined, orgId, []), "Unauthenticated")
      assert.strictEqual(yield* fail("ipk_" + "a".repeat(52), orgId, []), "Unauthenticated")
      assert.strictEqual(yield* fail(created.secret, id("organization", 2), []), "OrganizationNotFound")
      assert.strictEqual(yield* fail(created.secret, orgId, ["webhooks:manage"]), "PermissionDenied")

      yield* TestClock.setTime(Date.parse("2026-03-03T00:00:00Z"))
      const expired = yield* Effect.flip(Workflows.ApiKeys.authenticate(created.secret, orgId, []))
      assert.isTrue(expired._tag === "Unauthenticated" && expired.reason === "expired")
      const revoked = yield* Workflows.ApiKeys.revokeApiKey(caller, created.id)
      assert.strictEqual(revoked.status, "revoked")
      assert.strictEqual(revoked.name, "ci")
      const after = yield* Effect.flip(Workflows.ApiKeys.authenticate(created.secret, orgId, []))
      assert.isTrue(after._tag === "Unauthenticated" && after.reason === "revoked")
    }).pipe(Effect.provide(AuthLayer)))

  it.effect("the edition gate answers 403 before permissions are looked at", () =>
    Effect.gen(function*() {
      const store = yield* setup
      const created = yield* Workflows.ApiKeys.createApiKey(caller, { name: "ci", permissions: ["policy:read"], expiresInDays: null })
      yield* store.organizations.insert({
        id: orgId,
        name: "Acme",
        edition: "team",
        grants: [],
        defaultNotificationTeamId: team,
        cooldownSeconds: 0
      })
      const gated = yield* Effect.flip(Workflows.ApiKeys.authenticate(created.secret, orgId, ["webhooks:manage"]))
      assert.strictEqual(gated._tag, "AutomationApiNotIncluded")
    }).pipe(Effect.provide(AuthLayer)))
})
