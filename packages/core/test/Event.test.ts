import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import * as Event from "../src/Event.js"
import { prop } from "./support/fcProp.js"

const snoozeData = {
  snooze_request_id: "snz_1",
  previous_status: null,
  current_status: "pending",
  action: "created",
  repository_id: "repo_1",
  changed_at: "2026-01-01T00:00:00.000Z"
} as const

describe("Event (spec 6, contracts 6)", () => {
  it("the catalog lists the 12 contracted types, each with a JSON Schema of its data", () => {
    const catalog = Event.catalog()
    assert.deepStrictEqual(catalog.map((e) => e.type).sort(), [
      "service.policy_group.published",
      "service.policy_group.updated",
      "service.policy_mapping.created",
      "service.policy_mapping.removed",
      "service.policy_mapping.updated",
      "service.remediation_pull_request.created",
      "service.remediation_pull_request.failed",
      "service.snooze_request.created",
      "service.snooze_request.reopened",
      "service.snooze_request.reviewed",
      "service.snooze_request.status_changed",
      "service.webhook.test"
    ])
    for (const entry of catalog) assert.strictEqual((entry.dataSchema as any).type, "object")
  })

  it("snooze created data has exactly the spec's fields and subject exception_review/<id>", () => {
    const event = Result.getOrThrow(Event.buildEvent("service.snooze_request.created", snoozeData))
    assert.deepStrictEqual(Object.keys(event.data).sort(), [
      "action",
      "changed_at",
      "current_status",
      "previous_status",
      "repository_id",
      "snooze_request_id"
    ])
    assert.strictEqual(event.subject, "exception_review/snz_1")
  })

  prop("extra keys (secrets, e-mails, actors, paths, errors) never reach the data", [
    fc.dictionary(fc.constantFrom(...Event.forbiddenDataKeys, "anything", "endpointUrl"), fc.string())
  ], ([extra]) => {
    const event = Result.getOrThrow(Event.buildEvent("service.snooze_request.created", { ...extra, ...snoozeData }))
    for (const key of Object.keys(extra)) assert.notProperty(event.data, key)
  })

  it("each data schema is a closed draft-07 object; an optional key is absent (not null) and not required", () => {
    for (const { dataSchema } of Event.catalog()) {
      const schema = dataSchema as {
        $schema: string
        additionalProperties: boolean
        required: Array<string>
        properties: Record<string, unknown>
      }
      assert.strictEqual(schema.$schema, "http://json-schema.org/draft-07/schema#")
      assert.strictEqual(schema.additionalProperties, false)
      assert.includeMembers(Object.keys(schema.properties), schema.required)
    }
    const failed = Event.catalog().find((e) => e.type === "service.remediation_pull_request.failed")!.dataSchema as any
    assert.deepStrictEqual(failed.properties.pull_request_url, { type: "string" })
    assert.deepStrictEqual(failed.properties.failure_kind.enum, ["provider-unavailable", "permission-denied", "conflict", "rate-limited"])
    assert.notInclude(failed.required, "pull_request_url")
    assert.notInclude(failed.required, "failure_kind")
    // only a field the contract makes nullable has a null branch
    const created = Event.catalog().find((e) => e.type === "service.snooze_request.created")!.dataSchema as any
    const nullable = Object.keys(created.properties).filter((k) => JSON.stringify(created.properties[k]).includes("\"null\""))
    assert.deepStrictEqual(nullable, ["previous_status"])
  })

  it("invalid data is a typed error, not a throw", () => {
    assert.isTrue(Result.isFailure(Event.buildEvent("service.snooze_request.created", { snooze_request_id: 1 })))
  })

  it("CloudEvent attributes follow contracts 6", () => {
    const attrs = Event.cloudEventAttributes({
      id: "evt_1",
      type: "service.webhook.test",
      orgId: "org_1",
      subject: "webhook/wh_1",
      time: "2026-01-01T00:00:00.000Z",
      publicUrl: "https://policy.example.com/",
      correlationId: "c1"
    })
    assert.strictEqual(attrs.source, "/api/v1/org/org_1")
    assert.strictEqual(attrs.dataschema, "https://policy.example.com/api/v1/event-types/service.webhook.test")
    assert.strictEqual(attrs.specversion, "1.0")
    for (const k of Object.keys(attrs)) assert.match(k, /^[a-z0-9]+$/)
  })
})
