/** Storage contract: the `Transaction` every store writes through: atomicity, nesting and isolation. */
import { assert } from "@effect/vitest"
import type { Organization, Team } from "@image-policy/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type { Contract, ContractIt } from "./support.js"

export const transactions = (it: ContractIt, { store, newOrg, team, webhook, audit, event }: Contract) => {
  it.effect("crash safety: a failed transaction leaves no state, no audit row and no outbox row", () =>
    Effect.gen(function*() {
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
    }))

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

  it.effect("isolation: reads outside an open transaction never see its writes, even after a rollback", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const teams = [team("Uncommitted A"), team("Uncommitted B")]
      const { got, listed } = yield* openTransaction(org, teams, "rollback")
      assert.isTrue(Option.isNone(got))
      assert.deepStrictEqual(listed, [])
      assert.deepStrictEqual((yield* store.teams.list(org.id, { limit: 50 })).items, [])
    }))

  it.effect("isolation: reads outside an open transaction see all of its writes or none", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      const teams = [team("Committed A"), team("Committed B")]
      const { got, listed } = yield* openTransaction(org, teams, "commit")
      const ids = teams.map((t) => t.id as string).sort()
      // each read is before or after the commit (the two reads may fall on either side of it)
      if (listed.length > 0) assert.deepStrictEqual([...listed].sort(), ids)
      if (Option.isSome(got)) assert.deepStrictEqual(got.value, teams[0])
      assert.deepStrictEqual((yield* store.teams.list(org.id, { limit: 50 })).items.map((t) => t.id as string).sort(), ids)
    }))
}
