import { assert, describe, it } from "@effect/vitest"
import { FixtureVcs, MemoryStore } from "@image-policy/adapters"
import { SecretBox, Workflows } from "@image-policy/core"
import type { Id } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { allStores } from "../../adapters/test/support/stores.js"
import * as App from "../src/App.js"
import * as Seed from "../src/seed/Seed.js"

const problemsOf = (seed: unknown): ReadonlyArray<Seed.SeedProblem> => {
  const parsed = Seed.parse(JSON.stringify(seed))
  assert.isTrue(Result.isFailure(parsed), "the seed should be rejected")
  return Result.isFailure(parsed) ? parsed.failure.problems : []
}

const hasProblem = (problems: ReadonlyArray<Seed.SeedProblem>, path: string, message: RegExp) =>
  assert.isTrue(
    problems.some((p) => p.path === path && message.test(p.message)),
    `expected a problem at ${path} matching ${message}, got:\n${problems.map((p) => `${p.path}: ${p.message}`).join("\n")}`
  )

const parseOk = (seed: unknown): Seed.SeedFile => {
  const parsed = Seed.parse(JSON.stringify(seed))
  if (Result.isFailure(parsed)) assert.fail(parsed.failure.message)
  return Result.getOrThrow(parsed)
}

const ownerSecret = "seed-test-owner-0123456789abcdefghijklmnopqr"

const validSeed = {
  organizations: [{
    id: "org_seedtest",
    name: "Seed Test",
    edition: "enterprise",
    defaultNotificationTeam: "Platform",
    teams: [
      { name: "Platform", routines: [{ name: "Weekly", active: true, intervalDays: 7 }] },
      { name: "Payments" }
    ],
    routinesWithoutTeam: [{ name: "Loose", intervalDays: 30 }],
    vcsConnections: [{
      provider: "github",
      externalAccountName: "acme",
      fixture: { repositories: [{ externalRepoId: "1", fullName: "acme/api", defaultBranch: "main", branches: ["main"] }] }
    }],
    policyGroups: [{
      name: "Base images",
      notificationTeam: "Payments",
      phases: [
        { name: "Curated", source: "internal" },
        {
          name: "From repo",
          source: "external",
          file: { connection: "acme", repository: "acme/api", branch: "main", path: "service-mappings.json" }
        }
      ]
    }],
    apiKeys: [{ name: "ci", secret: ownerSecret, role: "Owner", expiresInDays: 90 }]
  }, {
    name: "Second, random id",
    edition: "free"
  }]
}

const services = App.services(MemoryStore.layer)

describe("Seed.parse", () => {
  it("names the JSON path of every schema problem at once", () => {
    const problems = problemsOf({
      organizations: [
        { name: "A", edition: "gold", colour: "red" },
        { name: "B", edition: "team", teams: [{ name: "T", routines: [{ name: "R", intervalDays: 0 }] }] }
      ]
    })
    hasProblem(problems, "$.organizations[0].colour", /unexpected/)
    hasProblem(problems, "$.organizations[0].edition", /gold/)
    hasProblem(problems, "$.organizations[1].teams[0].routines[0].intervalDays", /1|365/)
  })

  it("names the JSON path of every reference and uniqueness problem at once", () => {
    const problems = problemsOf({
      organizations: [{
        name: "A",
        edition: "enterprise",
        defaultNotificationTeam: "Nobody",
        teams: [{ name: "Platform" }, { name: "Platform" }],
        policyGroups: [
          { name: "G", notificationTeam: "Ghosts", phases: [{ name: "Ext", source: "external" }] },
          {
            name: "G",
            phases: [{ name: "P", source: "external", file: { connection: "nope", repository: "a/b", branch: "main", path: "m.json" } }]
          }
        ],
        apiKeys: [{ name: "both", secret: ownerSecret, role: "Owner", permissions: ["audit:read"], expiresInDays: 30 }]
      }]
    })
    hasProblem(problems, "$.organizations[0].defaultNotificationTeam", /no team named "Nobody"/)
    hasProblem(problems, "$.organizations[0].teams[1].name", /duplicate team "Platform"/)
    hasProblem(problems, "$.organizations[0].policyGroups[0].notificationTeam", /team name/)
    hasProblem(problems, "$.organizations[0].policyGroups[0].phases[0].file", /external phase needs its file/)
    hasProblem(problems, "$.organizations[0].policyGroups[1].name", /duplicate policy group "G"/)
    hasProblem(problems, "$.organizations[0].policyGroups[1].phases[0].file.connection", /no VCS connection/)
    hasProblem(problems, "$.organizations[0].apiKeys[0]", /exactly one of `role` or `permissions`/)
    assert.strictEqual(problems.length, 7)
  })

  it("checks an external phase's pollIntervalSeconds: whole seconds from 10 to 86400", () => {
    const withInterval = (...values: Array<unknown>) => ({
      organizations: [{
        name: "A",
        edition: "enterprise",
        vcsConnections: [{ provider: "github", externalAccountName: "acme", fixture: { repositories: [] } }],
        policyGroups: [{
          name: "G",
          phases: values.map((pollIntervalSeconds, i) => ({
            name: `P${i}`,
            source: "external",
            file: { connection: "acme", repository: "acme/policy", branch: "main", path: "m.json", pollIntervalSeconds }
          }))
        }]
      }]
    })
    const problems = problemsOf(withInterval(9, 86_401, 30.5, "60", 10, 86_400))
    for (const i of [0, 1, 2, 3]) hasProblem(problems, `$.organizations[0].policyGroups[0].phases[${i}].file.pollIntervalSeconds`, /./)
    hasProblem(problems, "$.organizations[0].policyGroups[0].phases[0].file.pollIntervalSeconds", /10 to 86400/)
    assert.strictEqual(problems.length, 4)
    const ok = parseOk(withInterval(10, 86_400))
    assert.deepStrictEqual(ok.organizations[0]!.policyGroups[0]!.phases.map((p) => p.file?.pollIntervalSeconds), [10, 86_400])
  })

  it("refuses text no store can hold, at its path, before anything else (PostgreSQL refuses it)", () => {
    const problems = problemsOf({
      organizations: [{
        name: "A",
        edition: "enterprise",
        teams: [{ name: "Plat\u0000form" }, { name: "ok" }],
        vcsConnections: [{
          provider: "github",
          externalAccountName: "acme",
          fixture: {
            repositories: [{
              externalRepoId: "1",
              fullName: "acme/api",
              defaultBranch: "main",
              branches: ["main"],
              files: { main: { "Dockerfile": "FROM x\ud800" } }
            }]
          }
        }]
      }]
    })
    hasProblem(problems, "$.organizations[0].teams[0].name", /NUL/)
    hasProblem(problems, "$.organizations[0].vcsConnections[0].fixture.repositories[0].files.main.Dockerfile", /surrogate/)
    assert.strictEqual(problems.length, 2)
    const deep = Seed.parse(`{"organizations":${"[".repeat(100)}${"]".repeat(100)}}`)
    assert.isTrue(Result.isFailure(deep) && /nests more than/.test(deep.failure.problems[0]!.message))
  })

  it("bounds what it turns into instants: cooldowns at most a year, grants' expiresAt a full ISO 8601 date-time", () => {
    const problems = problemsOf({
      organizations: [{
        name: "A",
        edition: "team",
        cooldownSeconds: 9e15,
        grants: [{ feature: "automation-api", expiresAt: "1" }],
        policyGroups: [{ name: "G", cooldownSeconds: 31_536_001 }]
      }]
    })
    hasProblem(problems, "$.organizations[0].cooldownSeconds", /31536000/)
    hasProblem(problems, "$.organizations[0].grants[0].expiresAt", /ISO 8601/)
    hasProblem(problems, "$.organizations[0].policyGroups[0].cooldownSeconds", /./)
    assert.deepStrictEqual(
      parseOk({ organizations: [{ name: "A", edition: "enterprise", cooldownSeconds: 31_536_000 }] }).organizations[0]!.cooldownSeconds,
      31_536_000
    )
  })

  it("rejects text that is not JSON at the root path", () => {
    const parsed = Seed.parse("{ organizations: [")
    assert.isTrue(Result.isFailure(parsed))
    if (Result.isFailure(parsed)) assert.deepStrictEqual(parsed.failure.problems, [{ path: "$", message: "not valid JSON" }])
  })

  it("never echoes an API key secret in a problem", () => {
    const secret = "duplicated-secret-0123456789abcdefghijklmnop"
    const problems = problemsOf({
      organizations: [{
        name: "A",
        edition: "enterprise",
        apiKeys: [
          { name: "one", secret, role: "Owner", expiresInDays: 30 },
          { name: "two", secret, role: "Owner", expiresInDays: 30 }
        ]
      }]
    })
    hasProblem(problems, "$.organizations[0].apiKeys[1].secret", /another key/)
    assert.isFalse(problems.some((p) => p.message.includes(secret)))
  })
})

describe("Seed.parse: an API connection's token and webhook secret", () => {
  const token = "ghp_SEEDSECRETTOKEN0123456789abcdef"
  const hookSecret = "seed-secret-webhook-0123456789"
  const withApi = (...apis: Array<Record<string, unknown>>) => ({
    organizations: [{
      name: "A",
      edition: "enterprise",
      vcsConnections: apis.map((api, i) => ({
        provider: "github",
        externalAccountName: `c${i}`,
        api: { baseUrl: "https://ghe.example.com/api/v3", ...api }
      }))
    }]
  })
  const at = (i: number) => `$.organizations[0].vcsConnections[${i}].api`
  const neverEchoes = (problems: ReadonlyArray<Seed.SeedProblem>, ...values: Array<string>) => {
    const text = JSON.stringify(problems)
    for (const value of values) assert.notInclude(text, value)
  }

  it("takes exactly one of token or tokenEnv, at most one of webhookSecret or webhookSecretEnv; the paths name the connection's api", () => {
    const problems = problemsOf(withApi(
      { token, tokenEnv: "GITHUB_TOKEN" },
      {},
      { token, webhookSecret: hookSecret, webhookSecretEnv: "HOOK_SECRET" },
      { webhookSecretEnv: "HOOK_SECRET" }
    ))
    hasProblem(problems, at(0), /exactly one of `token` or `tokenEnv`/)
    hasProblem(problems, at(1), /exactly one of `token` or `tokenEnv`/)
    hasProblem(problems, at(2), /at most one of `webhookSecret` or `webhookSecretEnv`/)
    hasProblem(problems, at(3), /exactly one of `token` or `tokenEnv`/)
    assert.strictEqual(problems.length, 4)
    neverEchoes(problems, token, hookSecret)

    const ok = parseOk(
      withApi({ token }, { token, webhookSecret: hookSecret }, { tokenEnv: "GITHUB_TOKEN", webhookSecretEnv: "HOOK_SECRET" })
    )
    assert.deepStrictEqual(ok.organizations[0]!.vcsConnections.map((c) => c.api?.token), [token, token, undefined])
    assert.isTrue(Seed.sealsSecrets(ok))
    assert.isFalse(Seed.sealsSecrets(parseOk(withApi({ tokenEnv: "GITHUB_TOKEN", webhookSecretEnv: "HOOK_SECRET" }))))
  })

  it("rejects wrong types and shapes at their paths without repeating the value", () => {
    const problems = problemsOf(withApi(
      { token: 12345678901234 },
      { token: "has a space-SEEDSECRET" },
      { token: "" },
      { token, webhookSecret: ["SEEDSECRET-in-an-array"] },
      { token, webhookSecret: "short-SEEDSECR" },
      // a token pasted where the variable's name belongs
      { tokenEnv: token, webhookSecretEnv: hookSecret }
    ))
    hasProblem(problems, `${at(0)}.token`, /must be the token/)
    hasProblem(problems, `${at(1)}.token`, /without spaces/)
    hasProblem(problems, `${at(2)}.token`, /must be the token/)
    hasProblem(problems, `${at(3)}.webhookSecret`, /16 to 4096 characters/)
    hasProblem(problems, `${at(4)}.webhookSecret`, /16 to 4096 characters/)
    hasProblem(problems, `${at(5)}.tokenEnv`, /name of an environment variable/)
    hasProblem(problems, `${at(5)}.webhookSecretEnv`, /name of an environment variable/)
    assert.strictEqual(problems.length, 7, problems.map((p) => `${p.path}: ${p.message}`).join("\n"))
    neverEchoes(problems, "12345678901234", "SEEDSECRET", token, hookSecret)
  })
})

describe("Seed.load", () => {
  it.effect("writes a valid seed and answers the ids by name", () =>
    Effect.gen(function*() {
      const [org, second] = yield* Seed.load(parseOk(validSeed))
      assert.strictEqual(org!.id, "org_seedtest")
      assert.isFalse(org!.existing)
      assert.match(second!.id, /^org_/)
      assert.notStrictEqual(second!.id, org!.id)

      const store = yield* allStores
      const orgId = org!.id as Id.OrgId
      const teams = yield* store.teams.list(orgId, { limit: 50 })
      assert.deepStrictEqual(
        Object.fromEntries(teams.items.map((t) => [t.name, t.id])),
        org!.teams
      )
      const stored = Option.getOrThrow(yield* store.organizations.get(orgId))
      assert.strictEqual(stored.defaultNotificationTeamId, org!.teams["Platform"])
      const group = Option.getOrThrow(yield* store.policyGroups.get(orgId, org!.policyGroups["Base images"]!.id as Id.PolicyGroupId))
      assert.deepStrictEqual(group.phases.map((p) => [p.name, p.id]), Object.entries(org!.policyGroups["Base images"]!.phases))
      assert.deepStrictEqual(group.notificationRouting, { kind: "team", teamId: org!.teams["Payments"] as Id.TeamId })
      // an external phase without pollIntervalSeconds polls every 60 s
      assert.deepStrictEqual(group.phases.find((p) => p.name === "From repo")!.external, {
        vcsConnectionId: org!.vcsConnections["acme"] as Id.VcsConnectionId,
        repositoryFullName: "acme/api",
        branch: "main",
        path: "service-mappings.json",
        pollIntervalSeconds: 60,
        lastSyncedAt: null,
        lastError: null,
        lastVersion: null
      })
      assert.strictEqual(Object.keys(org!.routines).sort().join(","), "Loose,Platform/Weekly")
      assert.match(org!.vcsConnections["acme"]!, /^vcs_/)

      // the seeded secret was stored as a hash and now authenticates as its key
      const principal = yield* Workflows.ApiKeys.authenticate(ownerSecret, orgId, ["teams:read"])
      assert.strictEqual(principal.apiKeyId, org!.apiKeys["ci"])
      const key = Option.getOrThrow(yield* store.apiKeys.get(orgId, org!.apiKeys["ci"] as Id.ApiKeyId))
      assert.notInclude(JSON.stringify(key), ownerSecret)
    }).pipe(Effect.provide(services)))

  it.effect("seals an API connection's token and webhook secret: only the sealed form is stored", () =>
    Effect.gen(function*() {
      const token = "glpat-SEEDLOADTOKEN0123456789"
      const hookSecret = "seed-load-webhook-secret-0123456789"
      const [org] = yield* Seed.load(parseOk({
        organizations: [{
          name: "Sealed",
          edition: "enterprise",
          vcsConnections: [
            {
              provider: "gitlab",
              externalAccountName: "sealed",
              api: { baseUrl: "https://gitlab.example.com/api/v4", token, webhookSecret: hookSecret }
            },
            { provider: "github", externalAccountName: "env", api: { baseUrl: "https://ghe.example.com/api/v3", tokenEnv: "GHE_TOKEN" } }
          ]
        }]
      }))
      const store = yield* allStores
      const orgId = org!.id as Id.OrgId
      const raw = Option.getOrThrow(yield* store.vcsConnections.settings(orgId, org!.vcsConnections["sealed"] as Id.VcsConnectionId))
      const text = JSON.stringify(raw)
      assert.notInclude(text, token)
      assert.notInclude(text, hookSecret)
      const settings = Schema.decodeUnknownSync(FixtureVcs.ConnectionSettings)(raw)
      assert.strictEqual(settings.kind, "api")
      if (settings.kind !== "api") return
      assert.deepStrictEqual(Object.keys(settings).sort(), ["baseUrl", "kind", "sealedToken", "sealedWebhookSecret"])
      assert.match(settings.sealedToken!, /^v1\./)
      const box = yield* SecretBox
      assert.strictEqual(yield* box.open(settings.sealedToken!), token)
      assert.strictEqual(yield* box.open(settings.sealedWebhookSecret!), hookSecret)
      // a variable's name is kept as given
      assert.deepStrictEqual(
        Option.getOrThrow(yield* store.vcsConnections.settings(orgId, org!.vcsConnections["env"] as Id.VcsConnectionId)),
        { kind: "api", baseUrl: "https://ghe.example.com/api/v3", tokenEnv: "GHE_TOKEN" }
      )
    }).pipe(Effect.provide(services)))

  it.effect("leaves an organization whose fixed id exists untouched", () =>
    Effect.gen(function*() {
      const first = yield* Seed.load(parseOk({
        organizations: [{ id: "org_fixed", name: "Original", edition: "enterprise", teams: [{ name: "Keep" }] }]
      }))
      const again = yield* Seed.load(parseOk({
        organizations: [{
          id: "org_fixed",
          name: "Changed",
          edition: "free",
          teams: [{ name: "New" }],
          apiKeys: [{ name: "late", secret: ownerSecret, role: "Owner", expiresInDays: 30 }]
        }]
      }))
      assert.deepStrictEqual(again.map((o) => [o.id, o.existing, Object.keys(o.teams).length]), [["org_fixed", true, 0]])

      const store = yield* allStores
      const orgId = "org_fixed" as Id.OrgId
      const org = Option.getOrThrow(yield* store.organizations.get(orgId))
      assert.strictEqual(org.name, "Original")
      assert.strictEqual(org.edition, "enterprise")
      const teams = yield* store.teams.list(orgId, { limit: 50 })
      assert.deepStrictEqual(teams.items.map((t) => [t.name, t.id]), [["Keep", first[0]!.teams["Keep"]]])
      assert.deepStrictEqual((yield* store.apiKeys.list(orgId, { limit: 50 })).items, [])
    }).pipe(Effect.provide(services)))
})
