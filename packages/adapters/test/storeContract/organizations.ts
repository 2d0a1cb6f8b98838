/** Storage contract: organizations, teams and routines (`OrganizationStore`). */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { allPages, type Contract, type ContractIt, newId } from "./support.js"

export const organizations = (it: ContractIt, { store, newOrg, team, routine }: Contract) => {
  it.effect("organizations: insert and get; unknown org is None", () =>
    Effect.gen(function*() {
      const org = yield* newOrg()
      assert.deepStrictEqual(Option.getOrThrow(yield* store.organizations.get(org.id)), org)
      assert.isTrue(Option.isNone(yield* store.organizations.get(newId("organization"))))
    }))

  it.effect("teams and routines: round trip, name order, keyset pages, routine filter by team", () =>
    Effect.gen(function*() {
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
    }))
}
