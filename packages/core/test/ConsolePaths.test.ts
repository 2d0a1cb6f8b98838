import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as ConsolePaths from "../src/ConsolePaths.js"
import * as Event from "../src/Event.js"
import { prop } from "./support/fcProp.js"

describe("ConsolePaths", () => {
  it("names each console page once, under /console/org/:orgId", () => {
    for (const pattern of Object.values(ConsolePaths.patterns)) assert.match(pattern, /^\/console\/org\/:orgId(\/|$)/)
    assert.strictEqual(ConsolePaths.path("policyGroup", { orgId: "org_1", policyGroupId: "pg_2" }), "/console/org/org_1/policy-groups/pg_2")
    assert.strictEqual(
      ConsolePaths.path("phase", { orgId: "org_1", policyGroupId: "pg_2", phaseId: "ph_3" }),
      "/console/org/org_1/policy-groups/pg_2/phases/ph_3"
    )
    assert.strictEqual(
      ConsolePaths.url("https://policy.example.com/base//", "/console/org/o"),
      "https://policy.example.com/base/console/org/o"
    )
  })

  it("opens the resource each event family is about", () => {
    const cases: ReadonlyArray<readonly [string, unknown, string]> = [
      ["service.policy_group.published", { policy_group_id: "pg" }, "/console/org/o/policy-groups/pg"],
      ["service.policy_mapping.removed", { policy_group_id: "pg", phase_id: "ph" }, "/console/org/o/policy-groups/pg/phases/ph"],
      ["service.policy_mapping.removed", { policy_group_id: "pg" }, "/console/org/o/policy-groups/pg"],
      ["service.snooze_request.reviewed", { snooze_request_id: "snz", repository_id: "r" }, "/console/org/o/snooze-requests/snz"],
      ["service.remediation_pull_request.created", { repository_id: "r" }, "/console/org/o/repositories/r"],
      ["service.webhook.test", { webhook_id: "wh" }, "/console/org/o/webhooks/wh"],
      ["service.webhook.test", {}, "/console/org/o"],
      ["service.something.new", { policy_group_id: "pg" }, "/console/org/o"],
      ["service.policy_group.updated", ["pg"], "/console/org/o"],
      // a dot segment is no page id: a browser would resolve it away
      ["service.policy_group.updated", { policy_group_id: ".." }, "/console/org/o"],
      ["service.webhook.test", { webhook_id: "." }, "/console/org/o"]
    ]
    for (const [type, data, expected] of cases) assert.strictEqual(ConsolePaths.forEvent("o", type, data), expected, type)
  })

  prop("a page's path holds each id as exactly one segment, whatever the id, and never points at the API", [
    fc.constantFrom(...Event.eventTypes, "service.other"),
    // an organization id is never a dot segment (Id.ts patterns); ids in event data may be anything
    fc.string({ minLength: 1 }).filter((id) => id !== "." && id !== ".."),
    fc.dictionary(
      fc.constantFrom("policy_group_id", "phase_id", "repository_id", "snooze_request_id", "webhook_id"),
      fc.oneof(fc.string(), fc.constantFrom(".", ".."))
    )
  ], ([type, orgId, data]) => {
    const path = ConsolePaths.forEvent(orgId, type, data)
    const segments = path.split("/")
    assert.deepStrictEqual(segments.slice(0, 4), ["", "console", "org", ConsolePaths.path("organization", { orgId }).split("/")[3]!])
    assert.strictEqual(decodeURIComponent(segments[3]!), orgId)
    assert.isFalse(path.includes("/api/"))
    const resolved = new URL(path, "https://policy.example.com")
    assert.strictEqual(resolved.pathname, path, "no segment is resolved away (., ..) or re-encoded")
    assert.isTrue(segments.slice(1).every((s) => s !== "" && s !== "." && s !== ".."))
  })
})
