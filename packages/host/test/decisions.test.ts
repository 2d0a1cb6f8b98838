/**
 * The decision API over HTTP (issue 18): `POST /api/v1/org/{orgId}/rpc` answers what the REST
 * resolve answers for the same references, in request order, with snoozes and invalid references
 * per item; it is guarded exactly as the REST routes are; and `DecisionClient` streams 20,000
 * requests through it in order. Runs on the memory store and on PGlite.
 */
import { DecisionClient, Problem } from "@image-policy/client"
import { Decision } from "@image-policy/core"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { secrets, startTestHost, type TestHost } from "./support/harness.js"
import { cheapHashing, passwords, sessionSeed, signIn, withCookie } from "./support/sessions.js"
import { expectJson, expectProblem, type MakeStore, onEveryStore } from "./support/suites.js"

const images = [
  "node:20",
  "node:18",
  "docker.io/library/node:20",
  "nginx:1.25",
  "nginx",
  "python:3.12",
  "ghcr.io/acme/app:1.2",
  "ghcr.io/acme/tools/cli:3",
  "redis@sha256:" + "a".repeat(64),
  "Not A Reference!",
  "node:20:bad"
]
const platforms = [undefined, "linux/amd64", "linux/arm64", "Linux/AMD64", "not a platform!"]

/** One RPC request message as the raw protocol sends it. */
const message = (tag: string, payload: unknown, id = "1") => JSON.stringify({ _tag: "Request", id, tag, payload, headers: [] }) + "\n"

/** The NDJSON answer's messages. */
const messages = (text: string): Array<any> => text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))

const suite = (storeName: string, makeStore: MakeStore) =>
  describe(`decision API (${storeName})`, () => {
    let host: TestHost
    let repositoryId = ""
    let snoozeId = ""
    const acme = () => host.org
    const base = () => `/api/v1/org/${acme().id}`
    const rpcPath = () => `${base()}/rpc`
    const group = (name: string) => acme().policyGroups[name]!

    const publish = async (groupName: string, phase: string, mappings: ReadonlyArray<Record<string, unknown>>) => {
      for (const body of mappings) {
        const answer = await host.request(
          "POST",
          `${base()}/policy-groups/${group(groupName).id}/phases/${group(groupName).phases[phase]}/mappings`,
          {
            body
          }
        )
        expect(answer.status, answer.text).toBeLessThan(300)
      }
      expectJson(await host.request("POST", `${base()}/policy-groups/${group(groupName).id}/publish`), 200)
    }

    const rpc = (
      tag: string,
      payload: unknown,
      options: { readonly key?: string | null; readonly headers?: Record<string, string> } = {}
    ) =>
      host.request("POST", rpcPath(), {
        raw: message(tag, payload),
        headers: { "content-type": "application/x-ndjson", ...options.headers },
        ...(options.key === undefined ? {} : { key: options.key })
      })

    /** The decisions of one `Resolve` call over the raw protocol. */
    const resolveRaw = async (requests: ReadonlyArray<Decision.DecisionRequest>) => {
      const answer = await rpc("Resolve", { requests })
      expect(answer.status, answer.text).toBe(200)
      expect(answer.headers.get("content-type")).toMatch(/^application\/x-ndjson/)
      const all = messages(answer.text)
      const exit = all.at(-1)
      expect(exit, answer.text).toMatchObject({ _tag: "Exit", requestId: "1", exit: { _tag: "Success" } })
      return all.filter((m) => m._tag === "Chunk").flatMap((m) => m.values) as Array<Decision.Decision>
    }

    const client = (apiKey: string = secrets.owner) => DecisionClient.make({ baseUrl: host.url, orgId: acme().id, apiKey })

    const withClient = <A, E>(f: (client: DecisionClient.DecisionClient) => Effect.Effect<A, E>, apiKey?: string) =>
      Effect.runPromise(Effect.scoped(Effect.flatMap(client(apiKey), f)))

    beforeAll(async () => {
      host = await startTestHost({ store: makeStore(), seed: sessionSeed, services: { passwordHashing: cheapHashing } })
      const onboarded = await host.request("POST", `${base()}/repositories`, {
        body: {
          vcsConnectionId: acme().vcsConnections["acme"],
          externalRepoId: "1001",
          assignedTeamId: acme().teams["Platform"],
          assignedRoutineId: acme().routines["Platform/Weekly"],
          branchNames: ["main", "release"]
        }
      })
      repositoryId = expectJson(onboarded, 201).repository.id
      expectJson(
        await host.request("POST", `${base()}/repositories/${repositoryId}/policy-groups`, {
          body: { assignments: [{ policyGroupId: group("Base images").id, branchNames: ["main"] }] }
        }),
        200
      )
      await publish("Base images", "Curated", [
        { fromImage: "node:20", toImage: "node:20.11.1", reason: "pin the runtime" },
        { fromImage: "node", toImage: "node:22", reason: "current LTS" },
        { fromImage: "nginx:1.25", toImage: "nginx:1.25.4", platformScope: "linux/arm64" },
        { fromImage: "ghcr.io/acme/app", toImage: "ghcr.io/acme/app:2" }
      ])
      await publish("Everywhere", "Baseline", [
        { fromImage: "python:3.12", toImage: "python:3.12.7" },
        { fromImage: "nginx", toImage: "nginx:1.27" },
        { fromImage: "redis", toImage: "redis:7.4" }
      ])
      const created = await host.request("POST", `${base()}/snooze-requests`, {
        body: {
          repositoryId,
          fromImage: "python:3.12",
          reason: "vendor pins 3.12.1",
          until: new Date(Date.now() + 7 * 86_400_000).toISOString()
        }
      })
      snoozeId = expectJson(created, 201).id
      expectJson(await host.request("POST", `${base()}/snooze-requests/${snoozeId}/review`, { body: { decision: "approve" } }), 200)
    })
    afterAll(() => host?.stop())

    /** What the REST resolve answers for one reference, as the decision it implies. */
    const restDecision = async (request: Decision.DecisionRequest) => {
      const query = new URLSearchParams({ image: request.image })
      if (request.platform !== undefined) query.set("platform", request.platform)
      if (request.branch !== undefined) query.set("branch", request.branch)
      const answer = await host.request("GET", `${base()}/repositories/${request.repositoryId}/resolve?${query}`)
      if (answer.status === 400) return { invalid: answer.body.errors[0].path as string }
      const body = expectJson(answer, 200)
      return body.resolved === null ? { resolution: null } : {
        resolution: {
          toImage: body.resolved.toImage,
          policyGroupId: body.resolved.policyGroupId,
          phaseId: body.resolved.phaseId,
          mappingId: body.resolved.mapping.id
        }
      }
    }

    it("decides as the REST resolve does, in request order (property over generated references)", async () => {
      const request = fc.record({
        image: fc.constantFrom(...images),
        platform: fc.constantFrom(...platforms),
        branch: fc.constantFrom(undefined, "main", "release")
      }).map(({ branch, image, platform }): Decision.DecisionRequest => ({
        image,
        repositoryId: repositoryId as Decision.DecisionRequest["repositoryId"] & string,
        ...(platform === undefined ? {} : { platform }),
        ...(branch === undefined ? {} : { branch })
      }))
      await fc.assert(
        fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 12 }), async (requests) => {
          const decisions = await resolveRaw(requests)
          expect(decisions.map((d) => d.image)).toEqual(requests.map((r) => r.image))
          for (let i = 0; i < requests.length; i++) {
            const rest = await restDecision(requests[i]!)
            const decision = decisions[i]!
            if ("invalid" in rest) {
              expect(decision.invalid?.field, JSON.stringify(requests[i])).toBe(rest.invalid)
              expect(decision.resolution).toBeNull()
            } else if (rest.resolution === null) {
              expect(decision.resolution, JSON.stringify(requests[i])).toBeNull()
            } else {
              expect(decision.resolution, JSON.stringify(requests[i])).toMatchObject(rest.resolution)
            }
          }
        }),
        { numRuns: 15 }
      )
    })

    it("carries the approved snooze on the snoozed image; other images are out of policy as usual", async () => {
      const [snoozed, pinned, none] = await resolveRaw([
        { image: "python:3.12", repositoryId } as Decision.DecisionRequest,
        { image: "node:20", repositoryId } as Decision.DecisionRequest,
        { image: "alpine:3" }
      ])
      expect(snoozed!.resolution?.toImage).toBe("python:3.12.7")
      expect(snoozed!.snoozed).toEqual({ snoozeRequestId: snoozeId, until: expect.any(String) })
      expect(Decision.isOutOfPolicy(snoozed!)).toBe(false)
      expect(pinned!.snoozed).toBeUndefined()
      expect(Decision.isOutOfPolicy(pinned!)).toBe(true)
      expect(none).toEqual({ image: "alpine:3", normalized: "docker.io/library/alpine:3", resolution: null })
    })

    it("without a repository, only the groups that apply to every repository decide, and no snooze applies", async () => {
      const [python, node] = await resolveRaw([{ image: "python:3.12" }, { image: "node:20" }])
      expect(python!.resolution).toMatchObject({ toImage: "python:3.12.7", policyGroupId: group("Everywhere").id })
      expect(python!.snoozed).toBeUndefined()
      expect(node!.resolution).toBeNull()
    })

    it("answers invalid references as invalid items in their place, never failing the call", async () => {
      const decisions = await resolveRaw([
        { image: "node:20", repositoryId } as Decision.DecisionRequest,
        { image: "Not A Reference!", repositoryId } as Decision.DecisionRequest,
        { image: "nginx", platform: "not a platform!", repositoryId } as Decision.DecisionRequest,
        { image: "nginx", repositoryId } as Decision.DecisionRequest
      ])
      expect(decisions.map((d) => d.invalid?.field)).toEqual([undefined, "image", "platform", undefined])
      expect(decisions[3]!.resolution?.toImage).toBe("nginx:1.27")
    })

    it("Explain answers the REST resolve's body, considered list included", async () => {
      const rest = expectJson(await host.request("GET", `${base()}/repositories/${repositoryId}/resolve?image=node:20&branch=main`), 200)
      const explained = await withClient((c) => c.explain({ image: "node:20", branch: "main", repositoryId } as Decision.DecisionRequest))
      expect(explained).toEqual(rest)
      expect(explained.considered.length).toBeGreaterThan(1)
    })

    it("an unknown repository and an untracked branch fail the call with their tagged errors", async () => {
      const unknown = await withClient((c) =>
        Effect.flip(
          Stream.runCollect(c.resolve([{ image: "node:20", repositoryId: "repo_00000000000000000000000000" } as Decision.DecisionRequest]))
        )
      )
      expect(unknown).toMatchObject({ _tag: "RepositoryNotFound", repositoryId: "repo_00000000000000000000000000" })
      const untracked = await withClient((c) =>
        Effect.flip(Stream.runCollect(c.resolve([
          { image: "node:20", repositoryId } as Decision.DecisionRequest,
          { image: "node:20", repositoryId, branch: "develop" } as Decision.DecisionRequest
        ])))
      )
      expect(untracked).toMatchObject({ _tag: "InvalidReferenceInBody", path: "requests[1].branch" })
      expect(untracked.message).toMatch(/develop is not tracked/)
    })

    it("a malformed request message is a 400 problem naming the field", async () => {
      expectProblem(await rpc("Resolve", { requests: [{ image: "" }] }), 400, { paths: ["payload.requests[0].image"] })
      expectProblem(await rpc("Resolve", { requests: [{ image: "node:20", colour: "red" }] }), 400, {
        paths: ["payload.requests[0].colour"]
      })
      expectProblem(await rpc("Guess", { requests: [] }), 400, { paths: ["tag"] })
      const tooMany = Array.from({ length: 10_001 }, () => ({ image: "a" }))
      expectProblem(await rpc("Resolve", { requests: tooMany }), 400, { paths: ["payload.requests"] })
      expectProblem(await host.request("POST", rpcPath(), { raw: "{not json" }), 400)
    })

    it("is guarded as the REST routes are: 401, then 404 for another organization, then 403 without policy:read or CSRF", async () => {
      const payload = { requests: [{ image: "node:20" }] }
      expectProblem(await rpc("Resolve", payload, { key: null }), 401)
      expectProblem(await rpc("Resolve", payload, { key: "junk-key-that-is-not-valid-0123456789" }), 401)
      expectProblem(await rpc("Resolve", payload, { key: secrets.otherOrg }), 404)
      const narrow = expectJson(
        await host.request("POST", `${base()}/api-keys`, { body: { name: "audit only", permissions: ["audit:read"], expiresInDays: 1 } }),
        201
      )
      expectProblem(await rpc("Resolve", payload, { key: narrow.secret }), 403, { type: "/problems/permission-denied" })
      const failed = await withClient((c) => Effect.flip(Stream.runCollect(c.resolve([{ image: "node:20" }]))), narrow.secret)
      expect(failed).toBeInstanceOf(Problem)
      expect(failed).toMatchObject({ status: 403, type: "/problems/permission-denied" })

      const signed = await signIn(host, "rita@acme.example", passwords.reader)
      const withoutCsrf = withCookie(signed)
      expectProblem(await rpc("Resolve", payload, { key: null, headers: withoutCsrf.headers }), 403, { type: "/problems/csrf" })
      const withCsrf = withCookie(signed, { csrf: true })
      const answer = await rpc("Resolve", payload, { key: null, headers: withCsrf.headers })
      expect(answer.status, answer.text).toBe(200)
      expect(messages(answer.text).at(-1)).toMatchObject({ _tag: "Exit", exit: { _tag: "Success" } })
    })

    it("streams 20,000 requests through DecisionClient, answered in order", async () => {
      const requests = Array.from({ length: 20_000 }, (_, i): Decision.DecisionRequest => ({
        image: i % 7 === 0 ? `node:${i}` : images[i % images.length]!,
        ...(i % 3 === 0 ? { repositoryId: repositoryId as Decision.DecisionRequest["repositoryId"] & string } : {})
      }))
      const decisions = await withClient((c) => Stream.runCollect(c.resolve(Stream.fromIterable(requests))))
      expect(decisions.length).toBe(requests.length)
      expect(decisions.map((d) => d.image)).toEqual(requests.map((r) => r.image))
      // the same reference is decided alike wherever it sits in the stream
      const first = new Map<string, unknown>()
      decisions.forEach((d, i) => {
        const key = `${requests[i]!.repositoryId ?? ""} ${d.image}`
        if (!first.has(key)) first.set(key, d)
        expect(d).toEqual(first.get(key))
      })
      expect(decisions[3]!.resolution?.toImage).toBe("nginx:1.27")
    })
  })

await onEveryStore("decisions", suite, { pglite: true })
