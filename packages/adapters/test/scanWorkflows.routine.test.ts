/** The routine's tick through the core's workflows (issue 7): routine scans are queued when due. */
import { assert, describe, it } from "@effect/vitest"
import { Id, Workflows } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/testing/TestClock"
import { caller, connectionId, day, id, onboard, orgId, run, runQueued, team } from "./support/scanWorkflows.js"

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
      })
    ))

  it.effect("an inactive routine schedules nothing", () =>
    run((store) =>
      Effect.gen(function*() {
        const other = id<Id.RoutineId>("routine", 2)
        yield* store.routines.insert(orgId, { id: other, teamId: team, name: "Paused", active: false, intervalDays: 1 })
        yield* Workflows.Onboarding.createRepository(caller, {
          vcsConnectionId: connectionId,
          externalRepoId: "1001",
          assignedTeamId: team,
          assignedRoutineId: other,
          branchNames: ["main"]
        })
        yield* runQueued(store)
        yield* TestClock.adjust(30 * day)
        assert.strictEqual(yield* Workflows.Scans.routineTick, 0)
      })
    ))
})
