/**
 * Webhooks end to end over HTTP: destinations created through the API, events caused by API calls,
 * delivered by the host's worker to a local receiver that verifies every delivery with the
 * `standardwebhooks` and `svix` verifiers and reads it with the `cloudevents` SDK; failures on the
 * deliveries list, 410 disabling, replay with the same id, rotation. Unsafe-target mode lets the
 * receiver live on loopback over http; a second host without it shows the SSRF refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Receiver from "../../adapters/test/support/receiver.js"
import { secrets, startTestHost, type TestHost } from "./support/harness.js"
import { expectProblem } from "./support/suites.js"
import { until } from "./support/until.js"

let host: TestHost
let safeHost: TestHost
let generic: Receiver.Receiver
let chat: Receiver.Receiver

beforeAll(async () => {
  generic = await Receiver.start({ mode: "generic" })
  chat = await Receiver.start({ mode: "plain" })
  host = await startTestHost({
    services: { allowUnsafeWebhookTargets: true },
    deliveryWorker: { pollIntervalMs: 20, schedule: [0.2, 0.2], timeoutMs: 2_000 }
  })
  safeHost = await startTestHost({ deliveryWorker: false })
})
afterAll(async () => {
  await host?.stop()
  await safeHost?.stop()
  await generic?.close()
  await chat?.close()
})

const api = "/api/v1/org/org_acme"

const onboard = async (externalRepoId: string) => {
  const org = host.org
  const r = await host.request("POST", `${api}/repositories`, {
    body: {
      vcsConnectionId: org.vcsConnections["acme"],
      externalRepoId,
      assignedTeamId: org.teams["Platform"],
      assignedRoutineId: org.routines["Platform/Weekly"],
      branchNames: ["main"]
    }
  })
  expect(r.status).toBe(201)
  return r.body.repository.id as string
}

describe("webhooks over HTTP", () => {
  let hookId: string
  let signingSecret: string

  it("creates a generic destination: the secret is shown once, the URL never", async () => {
    const r = await host.request("POST", `${api}/webhooks`, {
      body: {
        name: "bot",
        type: "generic",
        endpointUrl: generic.url("/hooks/secret-token-abcd"),
        audienceTeamId: host.org.teams["Platform"],
        scope: { kind: "organization" },
        events: ["service.snooze_request.created", "service.policy_group.published", "service.policy_mapping.created"]
      }
    })
    expect(r.status).toBe(201)
    expect(r.body.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
    expect(r.body.endpointPreview).toBe(`http://127.0.0.1:${generic.port}/…/abcd`)
    expect(r.text).not.toContain("secret-token")
    hookId = r.body.id
    signingSecret = r.body.signingSecret
    generic.setSecret(signingSecret)
    const list = await host.request("GET", `${api}/webhooks`)
    expect(list.body.items).toEqual([expect.objectContaining({ id: hookId, status: "active", type: "generic" })])
    expect(list.text).not.toContain("whsec_")
    expect(list.text).not.toContain("secret-token")
  })

  it("a snooze request and a publish are delivered, signed, as CloudEvents with the documented data", async () => {
    const repositoryId = await onboard("1001")
    const snooze = await host.request("POST", `${api}/snooze-requests`, {
      body: { repositoryId, fromImage: "node:18", reason: "migration under way", until: "2999-01-01T00:00:00Z" }
    })
    expect(snooze.status).toBe(201)
    const group = host.org.policyGroups["Base images"]!
    await host.request("POST", `${api}/policy-groups/${group.id}/phases/${group.phases["Curated"]}/mappings`, {
      body: { fromImage: "node:20", toImage: "node:20.11.1" }
    })
    expect((await host.request("POST", `${api}/policy-groups/${group.id}/publish`)).status).toBe(200)
    await until("three deliveries", () => generic.deliveries.length >= 3)
    expect(generic.rejections).toEqual([])
    const types = generic.deliveries.map((d) => d.event.type).sort()
    expect(types).toEqual(["service.policy_group.published", "service.policy_mapping.created", "service.snooze_request.created"])
    const created = generic.deliveries.find((d) => d.event.type === "service.snooze_request.created")!
    expect(created.event).toMatchObject({
      specversion: "1.0",
      source: "/api/v1/org/org_acme",
      subject: `exception_review/${snooze.body.id}`,
      datacontenttype: "application/json",
      orgid: "org_acme",
      correlationid: snooze.headers.get("x-request-id"),
      schemaversion: "1"
    })
    expect(created.event.dataschema).toBe(`${host.url}/api/v1/event-types/service.snooze_request.created`)
    expect(created.event.data).toEqual({
      snooze_request_id: snooze.body.id,
      previous_status: null,
      current_status: "pending",
      action: "created",
      repository_id: repositoryId,
      changed_at: snooze.body.createdAt
    })
    expect(created.id).toBe(created.event.id)
    const deliveries = await host.request("GET", `${api}/webhooks/${hookId}/deliveries`)
    expect(deliveries.status).toBe(200)
    expect(deliveries.body.items).toHaveLength(3)
    for (const d of deliveries.body.items) {
      expect(d).toMatchObject({ status: "succeeded", attempts: 1, lastStatusCode: 200 })
      expect(d.attemptsDetail).toEqual([expect.objectContaining({ attempt: 1, statusCode: 200, outcome: "success", errorCode: null })])
    }
  })

  it("a test delivery reaches only its destination; a chat destination gets a Slack message with an Open link", async () => {
    const c = await host.request("POST", `${api}/webhooks`, {
      body: {
        name: "chat",
        type: "chat",
        endpointUrl: chat.url("/slack/T/B/xyz"),
        scope: { kind: "organization" },
        events: ["service.snooze_request.created"]
      }
    })
    expect(c.status).toBe(201)
    expect(c.body.signingSecret).toBeUndefined()
    // a request without chatPlatform (as before platforms existed) is a Slack destination
    expect(c.body.chatPlatform).toBe("slack")
    const before = generic.deliveries.length
    const test = await host.request("POST", `${api}/webhooks/${c.body.id}/test`)
    expect(test.status).toBe(202)
    const request = await until("the chat message", () => chat.requests[0])
    const message = JSON.parse(request.rawBody)
    expect(message.text).toContain("Test delivery")
    const open = `${host.url}/console/org/org_acme/webhooks/${c.body.id}`
    expect(message.blocks).toContainEqual({
      type: "actions",
      elements: [{ type: "button", text: { type: "plain_text", text: "Open" }, url: open, action_id: "open" }]
    })
    expect(message.text).toContain(`<${open}|Open>`)
    expect(generic.deliveries.length).toBe(before)
    expect((await host.request("POST", `${api}/webhooks/${c.body.id}/rotate-secret`)).status).toBe(409)
  })

  it("Microsoft Teams and Google Chat destinations get their own card, with an Open link to the console", async () => {
    const create = (chatPlatform: string, path: string) =>
      host.request("POST", `${api}/webhooks`, {
        body: {
          name: chatPlatform,
          type: "chat",
          chatPlatform,
          endpointUrl: chat.url(path),
          scope: { kind: "organization" },
          events: ["service.webhook.test"]
        }
      })
    const teams = await create("teams", "/teams/workflow-secret-sig")
    const google = await create("google-chat", "/v1/spaces/AAA/messages?key=k&token=google-secret-token")
    for (const [r, platform] of [[teams, "teams"], [google, "google-chat"]] as const) {
      expect(r.status).toBe(201)
      expect(r.body).toMatchObject({ type: "chat", chatPlatform: platform, status: "active" })
      expect(r.body.signingSecret).toBeUndefined()
    }
    expect(teams.text).not.toContain("workflow-secret")
    expect(google.text).not.toContain("google-secret-token")
    const list = await host.request("GET", `${api}/webhooks?limit=200`)
    const listed = (id: string) => list.body.items.find((w: any) => w.id === id)
    expect(listed(teams.body.id)).toMatchObject({ type: "chat", chatPlatform: "teams" })
    expect(listed(google.body.id)).toMatchObject({ type: "chat", chatPlatform: "google-chat" })
    expect(list.body.items.filter((w: any) => w.type === "generic").every((w: any) => !("chatPlatform" in w))).toBe(true)
    expect(list.text).not.toContain("secret-token")

    expect((await host.request("POST", `${api}/webhooks/${teams.body.id}/test`)).status).toBe(202)
    expect((await host.request("POST", `${api}/webhooks/${google.body.id}/test`)).status).toBe(202)
    const teamsRequest = await until("the Teams message", () => chat.requests.find((r) => r.path.startsWith("/teams/")))
    const card = JSON.parse(teamsRequest.rawBody)
    expect(card).toMatchObject({ type: "message", attachments: [{ contentType: "application/vnd.microsoft.card.adaptive" }] })
    expect(card.attachments[0].content.type).toBe("AdaptiveCard")
    expect(card.attachments[0].content.actions).toEqual([
      { type: "Action.OpenUrl", title: "Open", url: `${host.url}/console/org/org_acme/webhooks/${teams.body.id}` }
    ])
    const googleRequest = await until("the Google Chat message", () => chat.requests.find((r) => r.path.startsWith("/v1/spaces/")))
    const googleCard = JSON.parse(googleRequest.rawBody).cardsV2[0].card
    expect(googleCard.header.title).toBe("Test delivery")
    expect(googleCard.sections[0].widgets.at(-1)).toEqual({
      buttonList: {
        buttons: [{ text: "Open", onClick: { openLink: { url: `${host.url}/console/org/org_acme/webhooks/${google.body.id}` } } }]
      }
    })
    for (const r of [teamsRequest, googleRequest]) expect(r.headers["webhook-signature"]).toBeUndefined()
  })

  it("refuses a chat platform on a generic destination, and an unknown platform, naming chatPlatform", async () => {
    const body = { name: "x", endpointUrl: chat.url(), scope: { kind: "organization" }, events: ["service.webhook.test"] }
    expectProblem(await host.request("POST", `${api}/webhooks`, { body: { ...body, type: "generic", chatPlatform: "teams" } }), 400, {
      paths: ["chatPlatform"]
    })
    expectProblem(await host.request("POST", `${api}/webhooks`, { body: { ...body, type: "chat", chatPlatform: "discord" } }), 400, {
      paths: ["chatPlatform"]
    })
  })

  it("failures show on the deliveries list; exhausted retries dead-letter and a replay keeps the CloudEvent id", async () => {
    // a receiver that acknowledges nothing (the verifying one deduplicates retries by webhook-id)
    const flaky = await Receiver.start({ mode: "plain", respond: () => ({ status: 503, headers: { "retry-after": "0" } }) })
    try {
      const created = await host.request("POST", `${api}/webhooks`, {
        body: {
          name: "flaky",
          type: "generic",
          endpointUrl: flaky.url("/in"),
          scope: { kind: "organization" },
          events: ["service.webhook.test"]
        }
      })
      const flakyId = created.body.id as string
      const eventId = (await host.request("POST", `${api}/webhooks/${flakyId}/test`)).body.eventId as string
      const delivery = await until("the delivery dead-lettered", async () => {
        const list = await host.request("GET", `${api}/webhooks/${flakyId}/deliveries`)
        const found = list.body.items.find((d: any) => d.eventId === eventId)
        return found?.status === "dead" && found
      })
      expect(delivery, JSON.stringify(delivery)).toMatchObject({
        status: "dead",
        attempts: 3,
        lastStatusCode: 503,
        type: "service.webhook.test"
      })
      expect(delivery.attemptsDetail.map((a: any) => [a.attempt, a.statusCode, a.outcome])).toEqual([[1, 503, "retry"], [2, 503, "retry"], [
        3,
        503,
        "retry"
      ]])
      expect(flaky.requests.map((r) => r.headers["webhook-id"])).toEqual([eventId, eventId, eventId])
      // the same body every time; each attempt is signed at its own time (whole seconds, so retries
      // within one second may share it; adapters' delivery tests show a later attempt re-signed)
      expect(new Set(flaky.requests.map((r) => r.rawBody)).size).toBe(1)
      const stamps = flaky.requests.map((r) => Number(r.headers["webhook-timestamp"]))
      expect([...stamps].sort()).toEqual(stamps)
      flaky.setResponder(() => ({ status: 204 }))
      expect((await host.request("POST", `${api}/webhooks/${flakyId}/deliveries/${eventId}/replay`)).status).toBe(202)
      await until("the replayed delivery", () => flaky.requests.length === 4)
      expect(flaky.requests[3]!.headers["webhook-id"]).toBe(eventId)
      expect(flaky.requests[3]!.rawBody).toBe(flaky.requests[0]!.rawBody)
      expectProblem(await host.request("POST", `${api}/webhooks/${flakyId}/deliveries/evt_00000000000000000000000000/replay`), 404)
    } finally {
      await flaky.close()
    }
  })

  it("410 disables the destination; replacing the endpoint enables it again", async () => {
    generic.setResponder(() => ({ status: 410 }))
    await host.request("POST", `${api}/webhooks/${hookId}/test`)
    const disabled = await until("the destination disabled", async () => {
      const list = await host.request("GET", `${api}/webhooks`)
      const hook = list.body.items.find((h: any) => h.id === hookId)
      return hook.status === "disabled" && hook
    })
    expect(disabled).toMatchObject({ status: "disabled", disabledReason: expect.stringContaining("410") })
    generic.setResponder(() => ({ status: 200 }))
    const replaced = await host.request("PUT", `${api}/webhooks/${hookId}/endpoint`, {
      body: { endpointUrl: generic.url("/hooks/new-place-wxyz") }
    })
    expect(replaced.status).toBe(200)
    expect(replaced.body).toMatchObject({ status: "active", endpointPreview: `http://127.0.0.1:${generic.port}/…/wxyz` })
    expect(replaced.text).not.toContain("new-place")
  })

  it("rotating the secret invalidates the old one at once", async () => {
    const rotated = await host.request("POST", `${api}/webhooks/${hookId}/rotate-secret`)
    expect(rotated.status).toBe(200)
    expect(rotated.body.signingSecret).not.toBe(signingSecret)
    const rejectedBefore = generic.rejections.length
    await host.request("POST", `${api}/webhooks/${hookId}/test`) // the receiver still holds the old secret
    await until("a rejected delivery", () => generic.rejections.length > rejectedBefore)
    generic.setSecret(rotated.body.signingSecret)
    const accepted = generic.deliveries.length
    await host.request("POST", `${api}/webhooks/${hookId}/test`)
    await until("a delivery verified with the new secret", () => generic.deliveries.length > accepted)
  })

  it("needs webhooks:manage; validates the body; deletes", async () => {
    expectProblem(await host.request("GET", `${api}/webhooks`, { key: secrets.automation }), 403)
    expectProblem(await host.request("GET", `${api}/webhooks`, { key: secrets.readOnly }), 403)
    expectProblem(
      await host.request("POST", `${api}/webhooks`, {
        body: {
          name: "x",
          type: "generic",
          endpointUrl: generic.url(),
          scope: { kind: "team", teamId: "team_00000000000000000000000000" },
          events: ["service.webhook.test"]
        }
      }),
      400,
      { paths: ["scope.teamId"] }
    )
    expectProblem(
      await host.request("POST", `${api}/webhooks`, {
        body: { name: "x", type: "generic", endpointUrl: generic.url(), scope: { kind: "organization" }, events: ["service.nope"] }
      }),
      400,
      { paths: ["events[0]"] }
    )
    expect((await host.request("DELETE", `${api}/webhooks/${hookId}`)).status).toBe(204)
    expectProblem(await host.request("DELETE", `${api}/webhooks/${hookId}`), 404)
    const audit = await host.request("GET", `${api}/audit-events?limit=200`)
    expect(audit.text).not.toContain("whsec_")
    expect(audit.text).not.toContain("secret-token")
  })
})

describe("webhook endpoints without unsafe-target mode (SSRF guard)", () => {
  for (
    const endpointUrl of [
      "http://hooks.example.com/x",
      "https://127.0.0.1/x",
      "https://2130706433/x",
      "https://[::1]/x",
      "https://10.0.0.8/x",
      "https://169.254.169.254/latest",
      "https://user:pw@hooks.example.com/x",
      "not a url"
    ]
  ) {
    it(`refuses ${endpointUrl} naming endpointUrl`, async () => {
      const r = await safeHost.request("POST", `${api}/webhooks`, {
        body: { name: "x", type: "generic", endpointUrl, scope: { kind: "organization" }, events: ["service.webhook.test"] }
      })
      expectProblem(r, 400, { paths: ["endpointUrl"] })
      expect(r.text).not.toContain("pw@")
    })
  }
})
