/**
 * Provider push webhooks (VcsPushEvents): which headers name a delivery, how GitHub and GitLab
 * deliveries are verified against the connection's secret, what of a push decides which phases it
 * concerns, and where the secret comes from.
 */
import { assert, describe, it } from "@effect/vitest"
import { SecretBox } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import * as Result from "effect/Result"
import * as fc from "fast-check"
import { createHmac } from "node:crypto"
import { effectProp } from "../../core/test/support/fcProp.js"
import * as AesGcmSecretBox from "../src/crypto/AesGcmSecretBox.js"
import * as Push from "../src/vcs/PushEvents.js"

const hmac = (secret: string, body: Uint8Array) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`
const bytes = (text: string) => new TextEncoder().encode(text) as Uint8Array<ArrayBuffer>

describe("deliveryOf", () => {
  it("GitHub: a push is x-github-event push; the id is x-github-delivery and is required", () => {
    assert.deepStrictEqual(Push.deliveryOf("github", { "x-github-event": "push", "x-github-delivery": "d-1" }), {
      isPush: true,
      isRequest: false,
      deliveryId: "d-1",
      idRequired: true
    })
    assert.deepStrictEqual(Push.deliveryOf("github", { "x-github-event": "ping", "x-github-delivery": "" }), {
      isPush: false,
      isRequest: false,
      deliveryId: undefined,
      idRequired: true
    })
    assert.isTrue(Push.deliveryOf("github", { "x-github-event": "pull_request" }).isRequest)
  })

  it("GitLab: a push is X-Gitlab-Event Push Hook; the id is the event UUID, else Idempotency-Key, and optional", () => {
    assert.deepStrictEqual(
      Push.deliveryOf("gitlab", { "x-gitlab-event": "Push Hook", "x-gitlab-event-uuid": "u-1", "idempotency-key": "k-1" }),
      { isPush: true, isRequest: false, deliveryId: "u-1", idRequired: false }
    )
    assert.strictEqual(Push.deliveryOf("gitlab", { "x-gitlab-event": "Push Hook", "idempotency-key": "k-1" }).deliveryId, "k-1")
    assert.deepStrictEqual(Push.deliveryOf("gitlab", { "x-gitlab-event": "Tag Push Hook" }), {
      isPush: false,
      isRequest: false,
      deliveryId: undefined,
      idRequired: false
    })
    assert.isTrue(Push.deliveryOf("gitlab", { "x-gitlab-event": "Merge Request Hook" }).isRequest)
  })
})

describe("verify", () => {
  effectProp(
    "GitHub: the HMAC of the exact bytes verifies; another secret, another byte or another form does not",
    [
      fc.string({ minLength: 1, maxLength: 64 }),
      fc.uint8Array({ minLength: 1, maxLength: 512 }),
      fc.string({ minLength: 1, maxLength: 64 })
    ],
    ([secret, raw, other]) =>
      Effect.gen(function*() {
        const body = new Uint8Array(raw) as Uint8Array<ArrayBuffer>
        const signature = hmac(secret, body)
        assert.isTrue(yield* Push.verify("github", secret, body, { "x-hub-signature-256": signature }))
        if (other !== secret) assert.isFalse(yield* Push.verify("github", other, body, { "x-hub-signature-256": signature }))
        const changed = new Uint8Array(body) as Uint8Array<ArrayBuffer>
        changed[0] = changed[0]! ^ 1
        assert.isFalse(yield* Push.verify("github", secret, changed, { "x-hub-signature-256": signature }))
        assert.isFalse(yield* Push.verify("github", secret, body, { "x-hub-signature-256": signature.slice("sha256=".length) }))
        assert.isFalse(yield* Push.verify("github", secret, body, { "x-hub-signature-256": signature.slice(0, -2) }))
        assert.isFalse(yield* Push.verify("github", secret, body, {}))
      })
  )

  effectProp(
    "GitLab: X-Gitlab-Token must equal the secret exactly",
    [fc.string({ minLength: 1, maxLength: 64 }), fc.string({ maxLength: 64 })],
    ([secret, other]) =>
      Effect.gen(function*() {
        const body = bytes("{}")
        assert.isTrue(yield* Push.verify("gitlab", secret, body, { "x-gitlab-token": secret }))
        assert.strictEqual(yield* Push.verify("gitlab", secret, body, { "x-gitlab-token": other }), other === secret)
        assert.isFalse(yield* Push.verify("gitlab", secret, body, {}))
      })
  )
})

describe("parsePush", () => {
  const github = (overrides: Record<string, unknown> = {}) => ({
    ref: "refs/heads/main",
    after: "a".repeat(40),
    repository: { full_name: "acme/api", pushed_at: 1_760_000_000 },
    commits: [{ added: ["a.json"], modified: ["b.json"], removed: ["c.json"] }, { modified: ["d.json"] }],
    ...overrides
  })
  const gitlab = (overrides: Record<string, unknown> = {}) => ({
    ref: "refs/heads/main",
    before: "b".repeat(40),
    after: "a".repeat(40),
    project: { path_with_namespace: "acme/api" },
    commits: [{ added: [], modified: ["policy.json"], removed: [] }],
    total_commits_count: 1,
    ...overrides
  })
  const pathsOf = (provider: Push.Provider, json: unknown) => Result.getOrThrow(Push.parsePush(provider, json)).push.changedPaths

  it("a complete GitHub push lists every changed path; pushed_at in seconds or as a date", () => {
    const parsed = Result.getOrThrow(Push.parsePush("github", github()))
    assert.deepStrictEqual(parsed.push, {
      repositoryFullName: "acme/api",
      ref: "refs/heads/main",
      changedPaths: ["a.json", "b.json", "c.json", "d.json"]
    })
    assert.strictEqual(parsed.pushedAt, 1_760_000_000_000)
    const dated = github({ repository: { full_name: "acme/api", pushed_at: "2026-11-22T10:00:00Z" } })
    assert.strictEqual(Result.getOrThrow(Push.parsePush("github", dated)).pushedAt, Date.parse("2026-11-22T10:00:00Z"))
    const undated = github({ repository: { full_name: "acme/api", pushed_at: "not a date" } })
    assert.isUndefined(Result.getOrThrow(Push.parsePush("github", undated)).pushedAt)
  })

  it("a GitHub push that may not list every file has no path list (every phase of the branch is synced)", () => {
    for (
      const overrides of [
        { created: true },
        { deleted: true },
        { forced: true },
        { after: "0".repeat(40) },
        { commits: undefined },
        { commits: Array.from({ length: 20 }, () => ({ modified: ["x"] })) }
      ]
    ) assert.isNull(pathsOf("github", github(overrides)), JSON.stringify(overrides).slice(0, 80))
  })

  it("a GitLab push is complete when it lists all its commits and neither creates nor deletes the branch", () => {
    assert.deepStrictEqual(pathsOf("gitlab", gitlab()), ["policy.json"])
    for (const overrides of [{ total_commits_count: 2 }, { before: "0".repeat(40) }, { after: "0".repeat(40) }, { commits: undefined }]) {
      assert.isNull(pathsOf("gitlab", gitlab(overrides)), JSON.stringify(overrides))
    }
    assert.isUndefined(Result.getOrThrow(Push.parsePush("gitlab", gitlab())).pushedAt)
  })

  it("another shape is a schema error naming the fields", () => {
    const error = Push.parsePush("github", { ref: 3 })
    assert.isTrue(Result.isFailure(error))
    assert.isTrue(Result.isFailure(Push.parsePush("gitlab", github())))
  })
})

describe("webhookSecretOf", () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name]
  const logged = <A, E>(effect: Effect.Effect<A, E>) =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      const logger = Logger.make(({ fiber, message }) => {
        lines.push(JSON.stringify({ message, annotations: fiber.getRef(References.CurrentLogAnnotations) }))
      })
      const value = yield* Effect.provide(effect, Logger.layer([logger]))
      return { value, lines }
    })

  it.effect("the fixture's own secret, or the variable the API settings name; none when absent or blank", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* Push.webhookSecretOf({ kind: "fixture", repositories: [], webhookSecret: "s3cret" }, env({}), "c"),
        "s3cret"
      )
      assert.isUndefined(yield* Push.webhookSecretOf({ kind: "fixture", repositories: [] }, env({}), "c"))
      const api = { kind: "api", baseUrl: "https://api.github.com", webhookSecretEnv: "HOOK" }
      assert.strictEqual(yield* Push.webhookSecretOf(api, env({ HOOK: "from-env" }), "c"), "from-env")
      assert.isUndefined(yield* Push.webhookSecretOf(api, env({ HOOK: "  " }), "c"))
      assert.isUndefined(yield* Push.webhookSecretOf(api, env({}), "c"))
      assert.isUndefined(yield* Push.webhookSecretOf({ kind: "something else" }, env({}), "c"))
    }))

  it.effect("a sealed secret is opened with the SecretBox; one it cannot open is none, logged without the value", () =>
    Effect.gen(function*() {
      const key = AesGcmSecretBox.generateKey()
      const sealed = yield* Effect.provide(
        Effect.flatMap(SecretBox, (box) => box.seal("sealed-hook-secret")),
        AesGcmSecretBox.layerFromKey(key)
      )
      const api = { kind: "api", baseUrl: "https://api.github.com", sealedWebhookSecret: sealed, webhookSecretEnv: "HOOK" }
      const opened = yield* Effect.provide(Push.webhookSecretOf(api, env({ HOOK: "from-env" }), "c"), AesGcmSecretBox.layerFromKey(key))
      assert.strictEqual(opened, "sealed-hook-secret", "the sealed value wins over the variable")
      const other = yield* logged(
        Effect.provide(Push.webhookSecretOf(api, env({}), "conn-1"), AesGcmSecretBox.layerFromKey(AesGcmSecretBox.generateKey()))
      )
      assert.isUndefined(other.value)
      assert.strictEqual(other.lines.length, 1)
      assert.include(other.lines[0], "sealed-webhook-secret-decrypt-failed")
      assert.include(other.lines[0], "conn-1")
      assert.notInclude(other.lines[0], "sealed-hook-secret\"")
    }))
})

describe("parseMerge", () => {
  const github = (action: string, merged: boolean | null, mergedAt: string | null = "2026-03-02T10:11:12Z") => ({
    action,
    number: 42,
    pull_request: { number: 42, merged, merged_at: mergedAt, state: "closed" },
    repository: { full_name: "acme/api" },
    sender: { login: "octocat" }
  })
  const gitlab = (action: string, state = "merged", mergedAt?: string) => ({
    object_kind: "merge_request",
    project: { path_with_namespace: "acme/lab-api" },
    object_attributes: { iid: 9, action, state, ...(mergedAt === undefined ? {} : { merged_at: mergedAt }) }
  })

  it("GitHub: a pull_request closed as merged is a merge of `number` at merged_at; any other action is none", () => {
    assert.deepStrictEqual(Result.getOrThrow(Push.parseMerge("github", github("closed", true))), {
      repositoryFullName: "acme/api",
      number: 42,
      mergedAt: Date.parse("2026-03-02T10:11:12Z")
    })
    assert.isUndefined(Result.getOrThrow(Push.parseMerge("github", github("closed", false, null))), "closed without merging")
    assert.isUndefined(Result.getOrThrow(Push.parseMerge("github", github("opened", null, null))))
    assert.isUndefined(Result.getOrThrow(Push.parseMerge("github", github("synchronize", false, null))))
    assert.strictEqual(Result.getOrThrow(Push.parseMerge("github", github("closed", true, null)))!.mergedAt, undefined)
  })

  it("GitLab: a Merge Request Hook with action merge is a merge of `iid`; its merged_at when sent, in either time form", () => {
    assert.deepStrictEqual(Result.getOrThrow(Push.parseMerge("gitlab", gitlab("merge"))), {
      repositoryFullName: "acme/lab-api",
      number: 9,
      mergedAt: undefined
    })
    assert.strictEqual(
      Result.getOrThrow(Push.parseMerge("gitlab", gitlab("merge", "merged", "2026-03-02 10:11:12 UTC")))!.mergedAt,
      Date.parse("2026-03-02T10:11:12Z")
    )
    assert.isUndefined(Result.getOrThrow(Push.parseMerge("gitlab", gitlab("close", "closed"))))
    assert.isUndefined(Result.getOrThrow(Push.parseMerge("gitlab", gitlab("update", "merged"))))
    assert.isUndefined(Result.getOrThrow(Push.parseMerge("gitlab", gitlab("open", "opened"))))
  })

  it("a request event without the provider's shape fails naming the fields", () => {
    const failed = Push.parseMerge("github", { action: "closed", number: "42", repository: {} })
    assert.isTrue(Result.isFailure(failed))
    const gitlabFailed = Push.parseMerge("gitlab", { object_attributes: { action: "merge" } })
    assert.isTrue(Result.isFailure(gitlabFailed))
  })
})
