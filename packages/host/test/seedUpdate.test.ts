/**
 * `seed --update` on memory, PGlite and PostgreSQL: a seed applied to an organization that exists
 * creates what it lacks, changes what differs (through the API's workflows, audited as `seed`),
 * deletes nothing it does not name, and a second application changes nothing (no audit row, no
 * event).
 */
import { assert, describe, it } from "@effect/vitest"
import { MemoryStore } from "@image-policy/adapters"
import { type Id, OrganizationStore, OutboxStore, type Stores, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import { afterAll } from "vitest"
import * as PgClient from "../../adapters/src/storage/sql/PgClient.js"
import * as PgliteClient from "../../adapters/src/storage/sql/PgliteClient.js"
import * as StoreConfig from "../../adapters/src/storage/StoreConfig.js"
import { freshPglite } from "../../adapters/test/support/pglite.js"
import { pgDescribe } from "../../adapters/test/support/postgres.js"
import { allStores } from "../../adapters/test/support/stores.js"
import * as App from "../src/App.js"
import * as Seed from "../src/seed/Seed.js"

const parseOk = (seed: unknown): Seed.SeedFile => {
  const parsed = Seed.parse(JSON.stringify(seed))
  if (Result.isFailure(parsed)) assert.fail(parsed.failure.message)
  return Result.getOrThrow(parsed)
}

const fixture = { repositories: [{ externalRepoId: "1", fullName: "acme/api", defaultBranch: "main", branches: ["main"] }] }

const first = (orgId: string) => ({
  organizations: [{
    id: orgId,
    name: "Update Test",
    edition: "enterprise",
    teams: [{ name: "Platform", routines: [{ name: "Weekly", intervalDays: 7 }] }],
    vcsConnections: [{ provider: "github", externalAccountName: "acme", fixture }],
    policyGroups: [{ name: "Base", phases: [{ name: "Curated", source: "internal" }] }],
    users: [{ email: "ada@example.com", role: "Read Only", password: "a demo password 1" }]
  }]
})

const second = (orgId: string) => ({
  organizations: [{
    id: orgId,
    name: "Update Test",
    edition: "enterprise",
    defaultNotificationTeam: "Payments",
    cooldownSeconds: 600,
    teams: [
      { name: "Platform", routines: [{ name: "Weekly", intervalDays: 14, active: false }, { name: "Daily", intervalDays: 1 }] },
      { name: "Payments" }
    ],
    routinesWithoutTeam: [{ name: "Loose", intervalDays: 30 }],
    vcsConnections: [
      { provider: "github", externalAccountName: "acme", status: "inactive", fixture },
      { provider: "gitlab", externalAccountName: "other", fixture: { repositories: [] } }
    ],
    policyGroups: [
      {
        name: "Base",
        cooldownSeconds: 60,
        notificationTeam: "Payments",
        phases: [
          { name: "Curated", source: "internal" },
          { name: "From repo", source: "external", file: { connection: "acme", repository: "acme/api", branch: "main", path: "m.json" } }
        ]
      },
      { name: "New group", applyToAllRepos: true, phases: [{ name: "Only", source: "internal" }] }
    ],
    apiKeys: [{ name: "ci", secret: "seed-update-owner-0123456789abcdefghijklmnop", role: "Owner", expiresInDays: 30 }],
    roles: [{ name: "Auditor", permissions: ["audit:read", "teams:read"] }],
    users: [
      { email: "ADA@example.com", role: "Auditor" },
      { email: "bob@example.com", name: "Bob", permissions: ["teams:read"] }
    ]
  }]
})

/** Loads `seed` with `update`, counting the events its workflows append to the outbox. */
const loadCounting = (seed: Seed.SeedFile) =>
  Effect.gen(function*() {
    const outbox = yield* OutboxStore
    let events = 0
    const counting: typeof outbox = {
      ...outbox,
      append: (orgId, rows) => {
        events += rows.length
        return outbox.append(orgId, rows)
      }
    }
    const seeded = yield* Seed.load(seed, { update: true }).pipe(Effect.provideService(OutboxStore, counting))
    return { seeded, events }
  })

const auditRows = (orgId: Id.OrgId) =>
  Effect.flatMap(allStores, (store) => Effect.map(store.audit.list(orgId, { limit: 500 }), (page) => page.items))

const suite = (storeName: string, makeStore: () => Layer.Layer<Stores, unknown>) =>
  describe(`Seed.load with update (${storeName})`, () => {
    it.effect("creates what the organization lacks, changes what differs, deletes nothing, and is idempotent", () =>
      Effect.gen(function*() {
        const orgId = `org_upd${storeName}` as Id.OrgId
        const [created] = yield* Seed.load(parseOk(first(orgId)))
        assert.isFalse(created!.existing)
        // something made through the API, which the seed does not name
        const caller = { orgId, actor: { kind: "system", name: "test" }, correlationId: "t" } as const
        const apiTeam = yield* Workflows.Teams.createTeam(caller, { name: "Made by API" })
        const before = (yield* auditRows(orgId)).length

        const { events, seeded: [updated] } = yield* loadCounting(parseOk(second(orgId)))
        assert.isTrue(updated!.existing)
        assert.isAbove(events, 0)
        const store = yield* allStores
        const org = Option.getOrThrow(yield* (yield* OrganizationStore).organizations.get(orgId))
        assert.strictEqual(org.cooldownSeconds, 600)
        assert.strictEqual(org.defaultNotificationTeamId, updated!.teams["Payments"] as Id.TeamId)
        assert.strictEqual(updated!.teams["Platform"], created!.teams["Platform"])
        const weekly = Option.getOrThrow(yield* store.routines.get(orgId, created!.routines["Platform/Weekly"] as Id.RoutineId))
        assert.deepStrictEqual([weekly.intervalDays, weekly.active], [14, false])
        assert.isDefined(updated!.routines["Platform/Daily"])
        assert.isTrue(Option.isSome(yield* store.teams.get(orgId, apiTeam.id)))
        const acme = Option.getOrThrow(yield* store.vcsConnections.get(orgId, created!.vcsConnections["acme"] as Id.VcsConnectionId))
        assert.strictEqual(acme.status, "inactive")
        const base = Option.getOrThrow(yield* store.policyGroups.get(orgId, created!.policyGroups["Base"]!.id as Id.PolicyGroupId))
        assert.strictEqual(base.cooldownSeconds, 60)
        assert.deepStrictEqual(base.notificationRouting, { kind: "team", teamId: updated!.teams["Payments"] as Id.TeamId })
        assert.deepStrictEqual(base.phases.map((p) => p.name), ["Curated", "From repo"])
        assert.strictEqual(base.phases[0]!.id, created!.policyGroups["Base"]!.phases["Curated"])
        const fresh = Option.getOrThrow(yield* store.policyGroups.get(orgId, updated!.policyGroups["New group"]!.id as Id.PolicyGroupId))
        assert.isTrue(fresh.applyToAllRepos)
        const roles = yield* store.roles.all(orgId)
        assert.deepStrictEqual(roles.map((r) => r.name), ["Auditor"])
        const ada = Option.getOrThrow(yield* store.members.get(orgId, created!.members["ada@example.com"] as Id.MemberId))
        assert.strictEqual(ada.role, roles[0]!.id)
        const bob = Option.getOrThrow(yield* store.members.get(orgId, updated!.members["bob@example.com"] as Id.MemberId))
        assert.deepStrictEqual([bob.name, bob.role, bob.permissions], ["Bob", null, ["teams:read"]])
        assert.notInclude(JSON.stringify([ada, bob]), "not stored")
        // every change is audited as the seed
        const rows = yield* auditRows(orgId)
        assert.isAbove(rows.length - before, 10)
        const actors = rows.map((r) => r.actor.kind === "system" ? r.actor.name : r.actor.kind)
        assert.deepStrictEqual(actors.filter((name) => name !== "seed"), ["test"])

        // the same seed again: the same ids, no audit row, no event
        const again = yield* loadCounting(parseOk(second(orgId)))
        assert.strictEqual(again.events, 0)
        assert.strictEqual((yield* auditRows(orgId)).length, rows.length)
        assert.deepStrictEqual(again.seeded, [updated])
      }).pipe(Effect.provide(App.services(makeStore()))))

    it.effect("without update an existing organization is left as it is", () =>
      Effect.gen(function*() {
        const orgId = `org_keep${storeName}` as Id.OrgId
        yield* Seed.load(parseOk(first(orgId)))
        const before = (yield* auditRows(orgId)).length
        const [kept] = yield* Seed.load(parseOk(second(orgId)))
        assert.deepStrictEqual(kept!.teams, {})
        assert.strictEqual((yield* auditRows(orgId)).length, before)
        assert.strictEqual(Option.getOrThrow(yield* (yield* OrganizationStore).organizations.get(orgId)).cooldownSeconds, 0)
      }).pipe(Effect.provide(App.services(makeStore()))))
  })

describe("Seed.parse: users and roles", () => {
  it("checks every user and role at its path", () => {
    const parsed = Seed.parse(JSON.stringify({
      organizations: [{
        name: "Access",
        edition: "enterprise",
        roles: [{ name: "Auditor", permissions: ["audit:read"] }, { name: "Auditor", permissions: ["teams:read"] }, {
          name: "Owner",
          permissions: ["teams:read"]
        }],
        users: [
          { email: "a@example.com", role: "Auditor", password: "secret-never-echoed" },
          { email: "A@example.com", role: "Read Only" },
          { email: "b@example.com", role: "Nobody" },
          { email: "c@example.com", role: "Read Only", permissions: ["teams:read"] }
        ]
      }]
    }))
    assert.isTrue(Result.isFailure(parsed))
    if (Result.isSuccess(parsed)) return
    const problems = parsed.failure.problems.map((p) => `${p.path}: ${p.message}`)
    assert.deepStrictEqual(problems, [
      "$.organizations[0].roles[1].name: duplicate role \"Auditor\"",
      "$.organizations[0].roles[2].name: is the name of a built-in role",
      "$.organizations[0].users[1].email: duplicate email \"a@example.com\"",
      "$.organizations[0].users[2].role: must be a built-in role or the name of one of the seed's roles",
      "$.organizations[0].users[3]: give exactly one of `role` or `permissions`"
    ])
    assert.notInclude(parsed.failure.message, "secret-never-echoed")
  })

  it("refuses a user's password under 12 characters at its path, without echoing it", () => {
    const parsed = Seed.parse(JSON.stringify({
      organizations: [{
        name: "Access",
        edition: "enterprise",
        users: [{ email: "d@example.com", role: "Read Only", password: "tiny-pw" }]
      }]
    }))
    assert.isTrue(Result.isFailure(parsed))
    if (Result.isSuccess(parsed)) return
    assert.deepStrictEqual(parsed.failure.problems.map((p) => `${p.path}: ${p.message}`), [
      "$.organizations[0].users[0].password: must be a string of 12 to 1024 characters"
    ])
    assert.notInclude(JSON.stringify(parsed.failure.problems), "tiny-pw")
  })
})

describe("Seed.load with update: a seed the organization refuses", () => {
  it.effect("fails naming the seed's path and the reason, and writes nothing", () =>
    Effect.gen(function*() {
      const orgId = "org_refused" as Id.OrgId
      yield* Seed.load(
        parseOk({
          organizations: [{ id: orgId, name: "Refused", edition: "enterprise", roles: [{ name: "Auditor", permissions: ["audit:read"] }] }]
        })
      )
      const before = (yield* auditRows(orgId)).length
      // a role named like an existing one but for case: the roles' own rule refuses it
      const failure = yield* Seed.load(
        parseOk({
          organizations: [{
            id: orgId,
            name: "Refused",
            edition: "enterprise",
            teams: [{ name: "Written first" }],
            roles: [{ name: "AUDITOR", permissions: ["teams:read"] }]
          }]
        }),
        { update: true }
      ).pipe(Effect.flip)
      assert.strictEqual(failure._tag, "SeedRejected")
      assert.strictEqual((failure as Seed.SeedRejected).path, "$.organizations[0].roles[0]")
      assert.strictEqual((yield* auditRows(orgId)).length, before)
      const store = yield* allStores
      assert.deepStrictEqual((yield* store.teams.list(orgId, { limit: 10 })).items, [])
    }).pipe(Effect.provide(App.services(MemoryStore.layer))))
})

suite("memory", () => MemoryStore.layer)
const pglite = await freshPglite()
afterAll(() => pglite.close())
suite("pglite", () => StoreConfig.migrated(PgliteClient.layerFromInstance(pglite)))
await pgDescribe("seed-update", (url) => {
  suite("postgres", () => StoreConfig.migrated(PgClient.layerFromUrl(url, { maxConnections: 4 })))
})
