/**
 * Chat messages (spec 6 "Delivery", chat type) on each platform: Slack blocks, a Microsoft Teams
 * Adaptive Card, a Google Chat `cardsV2` card. Golden files (test/golden/chat/<platform>.json)
 * hold the exact message of one event of every catalog type; after a deliberate format change,
 * regenerate them with `UPDATE_GOLDEN=1 vitest run packages/adapters/test/webhooks.chat.test.ts`
 * and review the diff.
 */
import { assert, describe, it } from "@effect/vitest"
import { Event, type Outbox, type Webhook } from "@image-policy/core"
import * as fc from "fast-check"
import { readFileSync, writeFileSync } from "node:fs"
import { prop } from "../../core/test/support/fcProp.js"
import * as ChatMessage from "../src/webhooks/ChatMessage.js"
import * as ChatSummary from "../src/webhooks/ChatSummary.js"
import * as GoogleChatMessage from "../src/webhooks/GoogleChatMessage.js"
import * as SlackMessage from "../src/webhooks/SlackMessage.js"
import * as TeamsMessage from "../src/webhooks/TeamsMessage.js"
import { sampleEvent } from "./support/receiver.js"

const orgId = "org_demo"
const publicUrl = "https://policy.example.com/"
const consoleBase = "https://policy.example.com/console/org/org_demo"
const platforms: ReadonlyArray<Webhook.ChatPlatform> = ["slack", "teams", "google-chat"]

const ids = {
  group: "pg_0123456789abcdefghjkmnpqrs",
  phase: "ph_0123456789abcdefghjkmnpqrs",
  mapping: "map_0123456789abcdefghjkmnpqrs",
  repository: "repo_0123456789abcdefghjkmnpqrs",
  snooze: "snz_0123456789abcdefghjkmnpqrs",
  webhook: "wh_0123456789abcdefghjkmnpqrs"
}
const at = "2025-03-04T05:06:07.000Z"

/** Data of one event of each type, as the workflows emit it. */
const dataOf = (type: Event.EventType): Record<string, unknown> => {
  const action = type.split(".")[2]!
  switch (Event.familyOf(type)) {
    case "policy":
      return type.startsWith("service.policy_group.")
        ? { policy_group_id: ids.group, action, mapping_count: 3, changed_at: at }
        : {
          mapping_id: ids.mapping,
          policy_group_id: ids.group,
          phase_id: ids.phase,
          from_image: "node:20",
          to_image: "node:20.11.1@sha256:" + "a".repeat(64),
          platform_scope: "linux/amd64",
          action,
          changed_at: at
        }
    case "snooze": {
      const [previous, current] = type === "service.snooze_request.created"
        ? [null, "pending"]
        : type === "service.snooze_request.reviewed"
        ? ["pending", "approved"]
        : type === "service.snooze_request.status_changed"
        ? ["approved", "expired"]
        : ["rejected", "pending"]
      return {
        snooze_request_id: ids.snooze,
        previous_status: previous,
        current_status: current,
        action,
        repository_id: ids.repository,
        changed_at: at
      }
    }
    case "remediation":
      return type.endsWith(".failed")
        ? { repository_id: ids.repository, action: "failed", failure_kind: "permission-denied", changed_at: at }
        : { repository_id: ids.repository, pull_request_url: "https://github.com/acme/api/pull/7", action: "created", changed_at: at }
    case "webhook":
      return { webhook_id: ids.webhook, action: "test", changed_at: at }
  }
}

const eventOf = (type: Event.EventType): Outbox.OutboxEvent => {
  const built = Event.buildEvent(type, dataOf(type))
  if (built._tag === "Failure") throw new Error(built.failure.message)
  return sampleEvent({ type, subject: built.success.subject, data: built.success.data })
}

const input = (event: Outbox.OutboxEvent) => ({ orgId, publicUrl, event })

describe("chat messages: golden files per platform and event type", () => {
  for (const platform of platforms) {
    it(`${platform}: the exact message of every catalog type`, () => {
      const actual = Object.fromEntries(
        Event.eventTypes.map((type) => [type, JSON.parse(ChatMessage.body(platform, input(eventOf(type))))])
      )
      const file = new URL(`./golden/chat/${platform}.json`, import.meta.url)
      if (process.env["UPDATE_GOLDEN"] === "1") writeFileSync(file, JSON.stringify(actual, null, 2) + "\n")
      assert.deepStrictEqual(actual, JSON.parse(readFileSync(file, "utf8")))
    })
  }
})

describe("the Open link", () => {
  const openOf = (platform: Webhook.ChatPlatform, event: Outbox.OutboxEvent): string => {
    const m: any = ChatMessage.make(platform, input(event))
    switch (platform) {
      case "slack":
        return m.blocks.find((b: any) => b.type === "actions").elements[0].url
      case "teams":
        return m.attachments[0].content.actions[0].url
      case "google-chat":
        return m.cardsV2[0].card.sections[0].widgets.at(-1).buttonList.buttons[0].onClick.openLink.url
    }
  }

  it("goes to the console page of the event's resource on every platform, never to API JSON", () => {
    const cases: ReadonlyArray<readonly [Partial<Outbox.OutboxEvent>, string]> = [
      [
        { type: "service.policy_group.published", data: { policy_group_id: "pg_1", action: "published", mapping_count: 3 } },
        `${consoleBase}/policy-groups/pg_1`
      ],
      [{
        type: "service.policy_mapping.created",
        data: { policy_group_id: "pg_1", phase_id: "ph_2", mapping_id: "map_3", action: "created" }
      }, `${consoleBase}/policy-groups/pg_1/phases/ph_2`],
      [{}, `${consoleBase}/snooze-requests/snz_0123456789abcdefghjkmnpqrs`],
      [
        { type: "service.remediation_pull_request.failed", data: { repository_id: "repo_9", action: "failed" } },
        `${consoleBase}/repositories/repo_9`
      ],
      [{ type: "service.webhook.test", data: { webhook_id: "wh_5", action: "test" } }, `${consoleBase}/webhooks/wh_5`],
      [{ type: "service.unknown.thing", data: {} }, consoleBase],
      [{ type: "service.policy_group.updated", data: null }, consoleBase],
      [{ type: "service.policy_group.updated", data: { policy_group_id: "a/b?c#d" } }, `${consoleBase}/policy-groups/a%2Fb%3Fc%23d`]
    ]
    for (const platform of platforms) {
      for (const [overrides, url] of cases) {
        assert.strictEqual(openOf(platform, sampleEvent(overrides)), url, `${platform} ${overrides.type}`)
      }
    }
  })

  it("keeps a path prefix of the public URL", () => {
    const m = SlackMessage.make({ orgId, publicUrl: "https://example.com/policy//", event: sampleEvent() })
    assert.include(JSON.stringify(m), "https://example.com/policy/console/org/org_demo/snooze-requests/")
  })

  it("falls back to the organization's home when the resource's ids would make it too long", () => {
    const event = sampleEvent({ type: "service.webhook.test", data: { webhook_id: "x".repeat(5000), action: "test" } })
    for (const platform of platforms) assert.strictEqual(openOf(platform, event), consoleBase)
  })
})

describe("Slack", () => {
  const message = (event: Outbox.OutboxEvent) => SlackMessage.make(input(event))
  const button = (m: SlackMessage.Message) => m.blocks.find((b): b is SlackMessage.ActionsBlock => b.type === "actions")!.elements[0]!

  it("has a header, subject/action/reference fields, an Open button and a text fallback", () => {
    const m = message(sampleEvent())
    assert.deepStrictEqual(m.blocks[0], { type: "header", text: { type: "plain_text", text: "Snooze request created", emoji: false } })
    const section = m.blocks[1] as SlackMessage.SectionBlock
    assert.deepStrictEqual(section.fields!.map((f) => f.text.split("\n")[0]), ["*Subject*", "*Action*", "*Reference*", "*Time*"])
    assert.include(section.fields![0]!.text, "exception_review/snz_0123456789abcdefghjkmnpqrs")
    assert.include(section.fields![1]!.text, "created (pending)")
    assert.include(section.fields![2]!.text, "Repository `repo_0123456789abcdefghjkmnpqrs`")
    const open = `${consoleBase}/snooze-requests/snz_0123456789abcdefghjkmnpqrs`
    assert.deepStrictEqual(button(m), { type: "button", text: { type: "plain_text", text: "Open" }, url: open, action_id: "open" })
    assert.include(m.text, "Snooze request created")
    assert.include(m.text, `<${open}|Open>`)
  })

  prop("stays within Slack's limits for any catalog type and any strings", [
    fc.constantFrom(...Event.eventTypes),
    fc.string({ maxLength: 4000 }),
    fc.dictionary(
      fc.constantFrom("policy_group_id", "phase_id", "repository_id", "action", "from_image", "to_image"),
      fc.string({ maxLength: 3000 })
    )
  ], ([type, subject, data]) => {
    const m = message(sampleEvent({ type, subject, data }))
    const header = m.blocks[0] as SlackMessage.HeaderBlock
    assert.isAtMost(header.text.text.length, 150)
    for (const f of (m.blocks[1] as SlackMessage.SectionBlock).fields!) assert.isAtMost(f.text.length, 2000)
    assert.isAtMost(button(m).url.length, 3000)
    assert.isAtMost(m.text.length, 3000)
  })
})

describe("Microsoft Teams", () => {
  it("is a message activity holding one Adaptive Card: title, facts, event type and an Open action", () => {
    const m = TeamsMessage.make(input(sampleEvent()))
    assert.strictEqual(m.type, "message")
    assert.strictEqual(m.attachments.length, 1)
    const attachment = m.attachments[0]!
    assert.strictEqual(attachment.contentType, "application/vnd.microsoft.card.adaptive")
    const card = attachment.content
    assert.strictEqual(card.type, "AdaptiveCard")
    assert.deepStrictEqual(card.body[0], {
      type: "TextBlock",
      text: "Snooze request created",
      wrap: true,
      size: "Medium",
      weight: "Bolder"
    })
    const facts = (card.body[1] as TeamsMessage.FactSet).facts
    assert.deepStrictEqual(facts.map((f) => f.title), ["Subject", "Action", "Repository", "Snooze request", "Time"])
    assert.deepStrictEqual(facts[0], { title: "Subject", value: "exception\\_review/snz\\_0123456789abcdefghjkmnpqrs" })
    assert.deepStrictEqual(card.actions, [{
      type: "Action.OpenUrl",
      title: "Open",
      url: `${consoleBase}/snooze-requests/snz_0123456789abcdefghjkmnpqrs`
    }])
  })

  it("escapes Markdown in values, so data cannot format or link", () => {
    assert.strictEqual(
      TeamsMessage.escape("[x](https://evil.example) *b* _i_ `c` ~s~ \\"),
      "\\[x\\](https://evil.example) \\*b\\* \\_i\\_ \\`c\\` \\~s\\~ \\\\"
    )
  })
})

describe("Google Chat", () => {
  it("is one cardsV2 card: header, labelled fields and an Open button", () => {
    const event = sampleEvent()
    const m = GoogleChatMessage.make(input(event))
    assert.strictEqual(m.cardsV2.length, 1)
    assert.strictEqual(m.cardsV2[0]!.cardId, event.id)
    const card = m.cardsV2[0]!.card
    assert.deepStrictEqual(card.header, { title: "Snooze request created", subtitle: "service.snooze_request.created" })
    const widgets = card.sections[0]!.widgets
    assert.deepStrictEqual(
      widgets.flatMap((w) => "decoratedText" in w ? [w.decoratedText.topLabel] : []),
      ["Subject", "Action", "Repository", "Snooze request", "Time"]
    )
    assert.deepStrictEqual(widgets.at(-1), {
      buttonList: {
        buttons: [{ text: "Open", onClick: { openLink: { url: `${consoleBase}/snooze-requests/snz_0123456789abcdefghjkmnpqrs` } } }]
      }
    })
  })

  it("escapes the card's HTML subset in values", () => {
    assert.strictEqual(ChatSummary.escape(`<a href="x">&</a>`), `&lt;a href="x"&gt;&amp;&lt;/a&gt;`)
  })
})

describe("every platform", () => {
  it("escapes markup and never shows keys outside its fixed list", () => {
    const event = sampleEvent({
      type: "service.policy_mapping.updated",
      subject: "policy_mapping/<!channel>",
      data: {
        policy_group_id: "pg_1",
        phase_id: "ph_1",
        action: "updated",
        from_image: "a&b",
        to_image: "<c>",
        actor_id: "sa_secret_actor",
        token: "ghp_leak",
        email: "someone@example.com"
      }
    })
    for (const platform of ["slack", "google-chat"] as const) {
      const json = ChatMessage.body(platform, input(event))
      assert.notInclude(json, "<!channel>", platform)
      assert.include(json, "&lt;!channel&gt;", platform)
      assert.include(json, "a&amp;b", platform)
    }
    for (const platform of platforms) {
      const json = ChatMessage.body(platform, input(event))
      for (const leak of ["sa_secret_actor", "ghp_leak", "someone@example.com"]) assert.notInclude(json, leak, platform)
    }
  })

  prop("stays within Teams' 28 KB and Google Chat's 32,000 bytes for any catalog type and any strings", [
    fc.constantFrom(...Event.eventTypes),
    fc.string({ unit: "grapheme", maxLength: 4000 }),
    fc.dictionary(
      fc.constantFrom(
        "policy_group_id",
        "phase_id",
        "repository_id",
        "snooze_request_id",
        "webhook_id",
        "action",
        "previous_status",
        "current_status",
        "from_image",
        "to_image",
        "failure_kind"
      ),
      fc.string({ unit: "binary", minLength: 300, maxLength: 3000 })
    )
  ], ([type, subject, data]) => {
    const event = sampleEvent({ type, subject, data })
    assert.isAtMost(Buffer.byteLength(ChatMessage.body("teams", input(event))), 28_000)
    assert.isAtMost(Buffer.byteLength(ChatMessage.body("google-chat", input(event))), 32_000)
  })
})
