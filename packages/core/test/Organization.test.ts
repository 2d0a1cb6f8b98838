import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as Id from "../src/Id.js"
import * as Organization from "../src/Organization.js"

const now = Date.parse("2026-06-01T00:00:00Z")
const org = (edition: Organization.Edition, grants: Organization.Organization["grants"] = []): Organization.Organization => ({
  id: Id.make("organization", new Uint8Array(16)) as Id.OrgId,
  name: "Acme",
  edition,
  grants,
  defaultNotificationTeamId: null,
  cooldownSeconds: 0
})

describe("Organization.checkAutomationApi (contracts 3, edition gate)", () => {
  it("enterprise always has the Automation API", () => {
    assert.isTrue(Result.isSuccess(Organization.checkAutomationApi(org("enterprise"), now)))
  })
  it("free and team editions need an unexpired automation-api grant", () => {
    assert.isTrue(Result.isFailure(Organization.checkAutomationApi(org("free"), now)))
    assert.isTrue(Result.isFailure(Organization.checkAutomationApi(org("team"), now)))
    const valid = org("team", [{ feature: "automation-api", expiresAt: "2026-07-01T00:00:00Z" }])
    assert.isTrue(Result.isSuccess(Organization.checkAutomationApi(valid, now)))
    const unlimited = org("free", [{ feature: "automation-api", expiresAt: null }])
    assert.isTrue(Result.isSuccess(Organization.checkAutomationApi(unlimited, now)))
  })
  it("an expired grant (or one expiring exactly now) does not open the API", () => {
    const expired = org("team", [{ feature: "automation-api", expiresAt: "2026-05-31T23:59:59Z" }])
    assert.isTrue(Result.isFailure(Organization.checkAutomationApi(expired, now)))
    const atNow = org("team", [{ feature: "automation-api", expiresAt: "2026-06-01T00:00:00Z" }])
    assert.isTrue(Result.isFailure(Organization.checkAutomationApi(atNow, now)))
  })
})
