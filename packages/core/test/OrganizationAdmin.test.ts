/**
 * The rules of organization administration (issue 15): routine and settings patches, a tracked
 * repository's update with onboarding's rules, and the settings of connections made through the API.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import * as Id from "../src/Id.js"
import * as Onboarding from "../src/Onboarding.js"
import * as Organization from "../src/Organization.js"
import type * as Repository from "../src/Repository.js"
import * as Routine from "../src/Routine.js"
import * as VcsConnection from "../src/VcsConnection.js"
import { prop } from "./support/fcProp.js"

const id = <A>(kind: Id.Kind, n: number) => Id.make(kind, new Uint8Array(16).fill(n)) as A
const teamA = id<Id.TeamId>("team", 2)
const teamB = id<Id.TeamId>("team", 3)
const routineA = id<Id.RoutineId>("routine", 4)
const routineB = id<Id.RoutineId>("routine", 6)

const routineOfA: Routine.Routine = { id: routineA, teamId: teamA, name: "Weekly", active: true, intervalDays: 7 }
const routineOfB: Routine.Routine = { id: routineB, teamId: teamB, name: "Daily", active: true, intervalDays: 1 }
const repository: Repository.Repository = {
  id: id("repository", 5),
  vcsConnectionId: id("vcsConnection", 1),
  externalRepoId: "1001",
  fullName: "acme/api",
  defaultBranch: "main",
  assignedTeamId: teamA,
  assignedRoutineId: routineA,
  branches: [
    { branchName: "main", scan: { status: "succeeded" } },
    { branchName: "release", scan: { status: "failed" } }
  ],
  createdAt: "2026-01-01T00:00:00.000Z"
}
const onProvider = ["main", "release", "dev", "hotfix"].map((name) => ({ name, isDefault: name === "main" }))

const branchNameArb = fc.constantFrom("main", "release", "dev", "hotfix", "gone")
const routineArb = fc.record({
  id: fc.constant(routineA),
  teamId: fc.constantFrom(teamA, teamB, null),
  name: fc.string({ minLength: 1, maxLength: 10 }),
  active: fc.boolean(),
  intervalDays: fc.integer({ min: 1, max: 365 })
})
const routinePatchArb = fc.record(
  { name: fc.string({ minLength: 1, maxLength: 10 }), active: fc.boolean(), intervalDays: fc.integer({ min: 1, max: 365 }) },
  { requiredKeys: [] }
)

describe("Routine.applyPatch", () => {
  prop(
    "the given fields change, every other field (id, team) stays; an empty patch changes nothing",
    [routineArb, routinePatchArb],
    ([routine, patch]) => {
      const next = Routine.applyPatch(routine, patch)
      assert.strictEqual(next.id, routine.id)
      assert.strictEqual(next.teamId, routine.teamId)
      assert.strictEqual(next.name, patch.name ?? routine.name)
      assert.strictEqual(next.active, patch.active ?? routine.active)
      assert.strictEqual(next.intervalDays, patch.intervalDays ?? routine.intervalDays)
      assert.deepStrictEqual(Routine.applyPatch(routine, {}), routine)
    }
  )

  it("intervalDays is 1..365 whole days", () => {
    const decode = Schema.decodeUnknownResult(Routine.RoutinePatch)
    for (const ok of [1, 7, 365]) assert.isTrue(Result.isSuccess(decode({ intervalDays: ok })), String(ok))
    for (const bad of [0, 366, 1.5, -1]) assert.isTrue(Result.isFailure(decode({ intervalDays: bad })), String(bad))
  })
})

describe("Organization settings", () => {
  const org: Organization.Organization = {
    id: id("organization", 9),
    name: "Acme",
    edition: "team",
    grants: [{ feature: "automation-api", expiresAt: null }],
    defaultNotificationTeamId: teamA,
    cooldownSeconds: 60
  }
  const patchArb = fc.record({
    defaultNotificationTeamId: fc.constantFrom(teamA, teamB, null),
    cooldownSeconds: fc.integer({ min: 0, max: Organization.maxCooldownSeconds })
  }, { requiredKeys: [] })

  prop("a patch changes only the team and cooldown it names; edition, grants, name and id never change", [patchArb], ([patch]) => {
    const next = Organization.applySettings(org, patch)
    assert.deepStrictEqual({ ...next, defaultNotificationTeamId: org.defaultNotificationTeamId, cooldownSeconds: org.cooldownSeconds }, org)
    assert.strictEqual(
      next.defaultNotificationTeamId,
      patch.defaultNotificationTeamId !== undefined ? patch.defaultNotificationTeamId : org.defaultNotificationTeamId
    )
    assert.strictEqual(next.cooldownSeconds, patch.cooldownSeconds ?? org.cooldownSeconds)
    assert.deepStrictEqual(Organization.applySettings(next, patch), next, "applying it twice equals once")
  })

  it("the patch schema has no edition or grants (a strict decode refuses them)", () => {
    const decode = Schema.decodeUnknownResult(Organization.SettingsPatch)
    assert.isTrue(Result.isFailure(decode({ edition: "enterprise" }, { onExcessProperty: "error" })))
    assert.isTrue(Result.isFailure(decode({ cooldownSeconds: Organization.maxCooldownSeconds + 1 })))
  })
})

describe("Onboarding.validateRepositoryPatch (onboarding's rules, spec 4.2)", () => {
  const patchArb = fc.record({
    assignedTeamId: fc.constantFrom(teamA, teamB),
    assignedRoutineId: fc.constantFrom(routineA, routineB),
    branchNames: fc.array(branchNameArb, { maxLength: 5 })
  }, { requiredKeys: [] })
  const routineFor = (patch: Onboarding.RepositoryPatch) =>
    (patch.assignedRoutineId ?? repository.assignedRoutineId) === routineA ? routineOfA : routineOfB

  prop(
    "a valid patch keeps the default branch, tracks exactly branchNames, keeps kept branches' status and queues added ones",
    [patchArb],
    ([patch]) => {
      const result = Onboarding.validateRepositoryPatch({ repository, patch, routine: routineFor(patch), providerBranches: onProvider })
      if (Result.isFailure(result)) return
      const plan = result.success
      const names = plan.repository.branches.map((b) => b.branchName)
      assert.include(names, repository.defaultBranch)
      assert.deepStrictEqual(names, [...(patch.branchNames ?? repository.branches.map((b) => b.branchName))])
      for (const b of plan.repository.branches) {
        const before = repository.branches.find((x) => x.branchName === b.branchName)
        assert.deepStrictEqual(b.scan, before?.scan ?? { status: "queued" })
      }
      assert.deepStrictEqual([...plan.added], names.filter((n) => !repository.branches.some((b) => b.branchName === n)))
      assert.deepStrictEqual([...plan.removed], repository.branches.map((b) => b.branchName).filter((n) => !names.includes(n)))
      assert.deepStrictEqual([...plan.added], [...Onboarding.addedBranches(repository, patch)])
      // the routine always belongs to the repository's team
      assert.strictEqual(routineFor(patch).teamId, plan.repository.assignedTeamId)
      assert.deepStrictEqual({ ...plan.repository, branches: [], assignedTeamId: teamA, assignedRoutineId: routineA }, {
        ...repository,
        branches: []
      })
    }
  )

  prop("it fails exactly when a rule of onboarding fails, with onboarding's error", [patchArb], ([patch]) => {
    const result = Onboarding.validateRepositoryPatch({ repository, patch, routine: routineFor(patch), providerBranches: onProvider })
    const names = patch.branchNames
    const duplicate = names !== undefined && new Set(names).size !== names.length
    const noDefault = names !== undefined && !names.includes("main")
    const unknown = names !== undefined && names.includes("gone")
    const teamId = patch.assignedTeamId ?? repository.assignedTeamId
    const mismatch = (patch.assignedTeamId !== undefined || patch.assignedRoutineId !== undefined) && routineFor(patch).teamId !== teamId
    const expected = duplicate
      ? "DuplicateBranchName"
      : noDefault
      ? "DefaultBranchNotIncluded"
      : unknown
      ? "BranchNotAvailable"
      : mismatch
      ? "RoutineTeamMismatch"
      : undefined
    assert.strictEqual(Result.isFailure(result) ? result.failure._tag : undefined, expected)
  })

  it("a routine without team is refused; kept branches need no provider listing; a first pass without it skips only that check", () => {
    const loose: Routine.Routine = { ...routineOfA, teamId: null }
    const r = Onboarding.validateRepositoryPatch({
      repository,
      patch: { assignedRoutineId: routineA },
      routine: loose,
      providerBranches: undefined
    })
    assert.isTrue(Result.isFailure(r) && r.failure._tag === "RoutineWithoutTeam")
    const kept = Onboarding.validateRepositoryPatch({
      repository,
      patch: { branchNames: ["main"] },
      routine: undefined,
      providerBranches: []
    })
    assert.isTrue(Result.isSuccess(kept) && kept.success.removed.join() === "release")
    const firstPass = Onboarding.validateRepositoryPatch({
      repository,
      patch: { branchNames: ["main", "gone"] },
      routine: undefined,
      providerBranches: undefined
    })
    assert.isTrue(Result.isSuccess(firstPass))
    const checked = Onboarding.validateRepositoryPatch({
      repository,
      patch: { branchNames: ["main", "gone"] },
      routine: undefined,
      providerBranches: onProvider
    })
    assert.isTrue(Result.isFailure(checked) && checked.failure._tag === "BranchNotAvailable" && checked.failure.path === "branchNames[1]")
  })
})

describe("VcsConnection settings of API connections", () => {
  const connection: VcsConnection.VcsConnection = {
    id: id("vcsConnection", 1),
    provider: "gitlab",
    externalAccountName: "acme",
    status: "active"
  }

  it("a connection without baseUrl reaches the provider's public API; the stored shape is the seed files'", () => {
    assert.deepStrictEqual(VcsConnection.apiSettings({ provider: "gitlab" }, { token: "v1.t", webhookSecret: undefined }), {
      kind: "api",
      baseUrl: "https://gitlab.com/api/v4",
      sealedToken: "v1.t"
    })
    assert.deepStrictEqual(
      VcsConnection.apiSettings({ provider: "github", baseUrl: "https://ghe.example.com/api/v3" }, {
        token: "v1.t",
        webhookSecret: "v1.w"
      }),
      { kind: "api", baseUrl: "https://ghe.example.com/api/v3", sealedToken: "v1.t", sealedWebhookSecret: "v1.w" }
    )
  })

  const settingsArb = fc.record({
    kind: fc.constant("api" as const),
    baseUrl: fc.constant("https://api.github.com"),
    tokenEnv: fc.string(),
    sealedToken: fc.string(),
    webhookSecretEnv: fc.string(),
    sealedWebhookSecret: fc.string()
  }, { requiredKeys: ["kind", "baseUrl"] })

  prop(
    "replacing the token keeps one source of it (the sealed one) and every other setting",
    [settingsArb, fc.string({ minLength: 1 })],
    ([settings, sealed]) => {
      const next = VcsConnection.withToken(settings, sealed)
      assert.isDefined(next)
      assert.strictEqual(next!.sealedToken, sealed)
      assert.isFalse("tokenEnv" in next!)
      const { sealedToken: _a, tokenEnv: _b, ...rest } = settings
      const { sealedToken: _c, ...restNext } = next!
      assert.deepStrictEqual(restNext, rest)
      assert.isTrue(VcsConnection.toDetails(connection, next).tokenConfigured)
    }
  )

  prop("reads never hold a secret or a variable's name", [settingsArb], ([settings]) => {
    const details = VcsConnection.toDetails(connection, settings)
    assert.deepStrictEqual(Object.keys(details).sort(), [
      "baseUrl",
      "externalAccountName",
      "id",
      "provider",
      "source",
      "status",
      "tokenConfigured",
      "webhookSecretConfigured"
    ])
    assert.strictEqual(details.source, "api")
  })

  it("fixture connections have no token: withToken refuses them", () => {
    const fixture = { kind: "fixture", repositories: [], webhookSecret: "fixture-push-secret-for-tests" }
    assert.isUndefined(VcsConnection.withToken(fixture, "v1.x"))
    assert.deepStrictEqual(VcsConnection.toDetails(connection, fixture), {
      ...connection,
      source: "fixture",
      baseUrl: null,
      tokenConfigured: false,
      webhookSecretConfigured: true
    })
  })

  it("requests: base URLs without credentials, query or fragment; tokens and secrets printable without spaces, never quoted back", () => {
    const decode = Schema.decodeUnknownResult(VcsConnection.CreateVcsConnectionRequest)
    const base = { provider: "github", externalAccountName: "acme", token: "ghp_x" }
    assert.isTrue(Result.isSuccess(decode({ ...base, baseUrl: "https://ghe.example.com/api/v3" })))
    for (const bad of ["ftp://x", "https://user:pw@ghe.example.com", "https://ghe.example.com/?q=1", "https://x/#a", "ghe.example.com"]) {
      assert.isTrue(Result.isFailure(decode({ ...base, baseUrl: bad })), bad)
    }
    const secret = "has a space inside"
    const refused = decode({ ...base, token: secret })
    assert.isTrue(Result.isFailure(refused))
    if (Result.isFailure(refused)) assert.notInclude(String(refused.failure), secret)
    assert.isTrue(Result.isFailure(decode({ ...base, webhookSecret: "short" })))
  })
})
