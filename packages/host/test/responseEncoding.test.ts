/**
 * A response that does not fit its own schema is the host's bug, not the caller's: it answers a 500
 * problem with a correlation id (Effect 3 answered such a failure as the caller's 400), and the
 * same route still answers a bad request with the 400 validation problem.
 */
import { MemoryStore } from "@image-policy/adapters"
import { OrganizationStore } from "@image-policy/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost } from "./support/harness.js"
import { expectNoLeak, expectProblem } from "./support/problem.js"

// the memory store, except that a team list carries a row no store should hold (a numeric name)
const brokenTeams = Layer.effectContext(
  Effect.map(MemoryStore.make, (stores) => {
    const store = Context.get(stores, OrganizationStore)
    return Context.add(stores, OrganizationStore, {
      ...store,
      teams: {
        ...store.teams,
        list: (orgId, page) =>
          Effect.map(store.teams.list(orgId, page), (listed) => ({
            ...listed,
            items: listed.items.map((team) => ({ ...team, name: 987_654_321 as unknown as string }))
          }))
      }
    })
  })
)

describe("a response that fails to encode", () => {
  let host: TestHost
  beforeAll(async () => {
    host = await startTestHost({ store: brokenTeams })
  })
  afterAll(() => host?.stop())

  it("answers 500 internal-error with a correlation id, without the refused value or a stack", async () => {
    const answer = await host.request("GET", "/api/v1/org/org_acme/teams")
    const body = expectProblem(answer, 500, { type: "/problems/internal-error" })
    expect(body.correlationId).toEqual(expect.any(String))
    expect(body.errors).toBeUndefined()
    expect(answer.text).not.toContain("987654321")
    expect(Object.keys(body).sort()).toEqual(["correlationId", "detail", "status", "title", "type"])
    expectNoLeak(answer)
  })

  it("still answers the caller's own mistakes on that route with 400", async () => {
    const answer = await host.request("GET", "/api/v1/org/org_acme/teams?limit=0")
    expectProblem(answer, 400, { type: "/problems/validation-error", paths: ["limit"] })
  })
})
