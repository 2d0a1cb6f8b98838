import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import * as Id from "../src/Id.js"
import * as Input from "../src/Input.js"
import * as Webhook from "../src/Webhook.js"
import { prop } from "./support/fcProp.js"

const id = <A>(kind: Id.Kind, n: number) => Id.make(kind, new Uint8Array(16).fill(n)) as A
const teamA = id<Id.TeamId>("team", 1)
const teamB = id<Id.TeamId>("team", 2)
const group = id<Id.PolicyGroupId>("policyGroup", 3)
const otherGroup = id<Id.PolicyGroupId>("policyGroup", 4)

const destination = (
  n: number,
  scope: Webhook.WebhookScope,
  overrides: Partial<Webhook.WebhookDestination> = {}
): Webhook.WebhookDestination => ({
  id: id<Id.WebhookId>("webhook", n),
  name: `d${n}`,
  type: "generic",
  endpointSealed: "sealed",
  endpointPreview: "https://example.com/…/abcd",
  signingSecretSealed: "sealed",
  audienceTeamId: null,
  scope,
  events: ["service.policy_group.published", "service.snooze_request.created"],
  status: "active",
  disabledReason: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  ...overrides
})

const orgWide = destination(1, { kind: "organization" })
const toTeamA = destination(2, { kind: "team", teamId: teamA })
const toTeamB = destination(3, { kind: "team", teamId: teamB })
const toGroup = destination(4, { kind: "policyGroup", policyGroupId: group })
const toOtherGroup = destination(5, { kind: "policyGroup", policyGroupId: otherGroup })
const disabled = destination(6, { kind: "organization" }, { status: "disabled" })
const notSubscribed = destination(7, { kind: "organization" }, { events: ["service.webhook.test"] })
const all = [orgWide, toTeamA, toTeamB, toGroup, toOtherGroup, disabled, notSubscribed]

describe("Webhook.route (contracts section 5, Routing)", () => {
  it("sends policy events to the organization, the group's notification team and the group's destinations", () => {
    const ids = Webhook.route(
      "service.policy_group.published",
      { family: "policy", policyGroupId: group, notificationTeamId: teamA },
      all
    )
    assert.deepStrictEqual(ids, [orgWide.id, toTeamA.id, toGroup.id])
  })

  it("sends policy events of a group with routing `none` to organization and group destinations only", () => {
    const team = Webhook.notificationTeam({ kind: "none" }, teamA)
    const ids = Webhook.route("service.policy_group.published", { family: "policy", policyGroupId: group, notificationTeamId: team }, all)
    assert.deepStrictEqual(ids, [orgWide.id, toGroup.id])
  })

  it("resolves `inherit` to the organization's default team and `team` to the chosen one", () => {
    assert.strictEqual(Webhook.notificationTeam({ kind: "inherit" }, teamB), teamB)
    assert.strictEqual(Webhook.notificationTeam({ kind: "team", teamId: teamA }, teamB), teamA)
  })

  it("sends snooze events to the organization and the repository's team, never to group destinations", () => {
    const ids = Webhook.route("service.snooze_request.created", { family: "snooze", repositoryTeamId: teamB }, all)
    assert.deepStrictEqual(ids, [orgWide.id, toTeamB.id])
  })

  it("sends a test event only to its own destination, whatever it subscribed to", () => {
    const ids = Webhook.route("service.webhook.test", { family: "webhook", webhookId: notSubscribed.id }, all)
    assert.deepStrictEqual(ids, [notSubscribed.id])
  })

  prop("never routes to a disabled destination or one that did not select the type", [
    fc.constantFrom("service.policy_group.published", "service.snooze_request.created", "service.policy_mapping.created"),
    fc.boolean()
  ], ([type, policy]) => {
    const ids = Webhook.route(
      type,
      policy
        ? { family: "policy", policyGroupId: group, notificationTeamId: teamA }
        : { family: "snooze", repositoryTeamId: teamA },
      all
    )
    for (const routed of ids) {
      const d = all.find((x) => x.id === routed)!
      assert.strictEqual(d.status, "active")
      assert.isTrue(d.events.includes(type))
    }
  })
})

describe("Webhook chat platforms (docs/webhooks.md, Chat destinations)", () => {
  const request = (type: Webhook.WebhookType, chatPlatform?: Webhook.ChatPlatform) => ({
    name: "d",
    type,
    ...(chatPlatform !== undefined ? { chatPlatform } : {}),
    endpointUrl: "https://hooks.example.com/x",
    scope: { kind: "organization" },
    events: ["service.webhook.test"]
  })
  const decode = Schema.decodeUnknownExit(Webhook.WebhookCreateRequest)
  const platform = fc.option(fc.constantFrom(...Webhook.ChatPlatform.literals), { nil: undefined })

  prop("a create request names a chat platform only for a chat destination, and then any of them or none", [
    fc.constantFrom(...Webhook.WebhookType.literals),
    platform
  ], ([type, chatPlatform]) => {
    const exit = decode(request(type, chatPlatform))
    const refused = type === "generic" && chatPlatform !== undefined
    assert.strictEqual(Exit.isFailure(exit), refused)
    assert.strictEqual(Webhook.chatPlatformIssue({ type, chatPlatform })?.path.join("."), refused ? "chatPlatform" : undefined)
    if (refused && Exit.isFailure(exit)) {
      const error = Cause.findErrorOption(exit.cause)
      assert.isTrue(Option.isSome(error))
      if (Option.isSome(error)) {
        assert.deepStrictEqual(Input.fieldErrors(error.value).map((e) => e.path), ["chatPlatform"])
      }
    }
  })

  it("refuses a platform that is not one of slack, teams, google-chat", () => {
    assert.isTrue(Exit.isFailure(decode({ ...request("chat"), chatPlatform: "discord" })))
  })

  prop("every destination has exactly one format: chat ones a platform (slack when none was stored), generic ones none", [
    fc.constantFrom(...Webhook.WebhookType.literals),
    platform
  ], ([type, chatPlatform]) => {
    const d = destination(9, { kind: "organization" }, { type, ...(chatPlatform !== undefined ? { chatPlatform } : {}) })
    const format = Webhook.chatPlatformOf(d)
    assert.strictEqual(format, type === "generic" ? null : chatPlatform ?? "slack")
    const view = Webhook.toView(d)
    assert.strictEqual(view.chatPlatform, format ?? undefined)
    assert.strictEqual("chatPlatform" in view, type === "chat")
  })
})
