/**
 * Error answers (spec 7; contracts 4): every non-2xx is RFC 9457 problem JSON, the order of checks
 * holds for bodies too (401 -> 404 -> 403 -> 413 -> 400 -> 404 -> 409), unknown routes are problems,
 * the rate limit answers 429 with Retry-After, and no answer carries a stack trace or a secret.
 */
import { Input, Text } from "@image-policy/core"
import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Problems from "../src/http/Problems.js"
import { secrets, startTestHost, type TestHost } from "./support/harness.js"
import { type Answer, expectNoLeak, expectProblem } from "./support/problem.js"

const MiB = 1024 * 1024

describe("problem answers", () => {
  let host: TestHost
  beforeAll(async () => {
    host = await startTestHost()
  })
  afterAll(() => host?.stop())

  const base = () => host.org.policyGroups["Base images"]!
  const mappingsPath = () => `/api/v1/org/org_acme/policy-groups/${base().id}/phases/${base().phases["Curated"]}/mappings`
  const onboardBody = (overrides: Record<string, unknown> = {}) => ({
    vcsConnectionId: host.org.vcsConnections["acme"],
    externalRepoId: "1002",
    assignedTeamId: host.org.teams["Platform"],
    assignedRoutineId: host.org.routines["Platform/Weekly"],
    branchNames: ["main"],
    ...overrides
  })
  /** A JSON body of about `bytes` bytes that is a valid mapping but for its too long reason. */
  const bigMapping = (bytes: number) => {
    const shell = JSON.stringify({ fromImage: "nginx:1", toImage: "nginx:1.25.3", reason: "" })
    return JSON.stringify({ fromImage: "nginx:1", toImage: "nginx:1.25.3", reason: "a".repeat(bytes - shell.length) })
  }
  const send = (method: string, path: string, body: string, key: string | null = secrets.owner, headers: Record<string, string> = {}) =>
    host.request(method, path, { raw: body, key, headers: { "content-type": "application/json", ...headers } })

  describe("validation", () => {
    it("schema errors are 400 /problems/validation-error with errors[{path, message}] naming each field", async () => {
      const answer = await host.request("POST", "/api/v1/org/org_acme/repositories", {
        body: onboardBody({ branchNames: ["main", 5], assignedTeamId: 7 })
      })
      const body = expectProblem(answer, 400, { type: "/problems/validation-error", paths: ["branchNames[1]", "assignedTeamId"] })
      expect(body.title).toBe("Bad Request")
      expect(body.status).toBe(400)
      for (const error of body.errors) expect(error.message.length).toBeGreaterThan(0)
    })

    it("business rule violations are 400 problems with their own type naming the field", async () => {
      const answer = await host.request("POST", "/api/v1/org/org_acme/repositories", {
        body: onboardBody({ assignedRoutineId: host.org.routines["Payments/Daily"] })
      })
      const body = expectProblem(answer, 400, { paths: ["assignedRoutineId"] })
      expect(body.type).not.toBe("/problems/validation-error")
    })

    it("a body that is not an object, or missing where one is required, is a 400 problem", async () => {
      for (const raw of ["[]", "null", "42", "\"text\"", "true"]) {
        expectProblem(await send("POST", mappingsPath(), raw), 400)
      }
      expectProblem(await host.request("POST", mappingsPath(), {}), 400)
      // whitespace alone is not JSON, on a route with a body and on one without
      expectProblem(await send("POST", "/api/v1/org/org_acme/api-keys", " "), 400, { type: "/problems/malformed-json" })
      expectProblem(await send("POST", "/api/v1/org/org_acme/snooze-requests", "\n"), 400, { type: "/problems/malformed-json" })
    })

    it("query parameters are validated: a bad limit or cursor is a 400 naming it", async () => {
      expectProblem(await host.request("GET", "/api/v1/org/org_acme/teams?limit=0"), 400, { paths: ["limit"] })
      expectProblem(await host.request("GET", "/api/v1/org/org_acme/teams?limit=abc"), 400, { paths: ["limit"] })
      expectProblem(await host.request("GET", "/api/v1/org/org_acme/teams?limit=100000"), 400, { paths: ["limit"] })
      expectProblem(await host.request("GET", "/api/v1/org/org_acme/teams?cursor=%00%01"), 400, { paths: ["cursor"] })
    })
  })

  describe("bodies", () => {
    it("malformed JSON is a 400 /problems/malformed-json that does not echo the body", async () => {
      for (const raw of ["{", "{\"fromImage\": \"nginx:1\",}", "{'a': 1}", "nul", " ", "\n", "\t \r\n", `{"x": "${secrets.owner}"`]) {
        const answer = await send("POST", mappingsPath(), raw)
        expectProblem(answer, 400, { type: "/problems/malformed-json" })
      }
    })

    it("deeply nested JSON is a 400 /problems/body-too-deep, never a 500", async () => {
      for (const depth of [65, 5_000, 100_000]) {
        for (
          const raw of [
            "[".repeat(depth) + "]".repeat(depth),
            `{"fromImage":${"[".repeat(depth)}${"]".repeat(depth)},"toImage":"nginx:1.25.3"}`,
            "{\"a\":".repeat(depth) + "1" + "}".repeat(depth)
          ]
        ) {
          expectProblem(await send("POST", mappingsPath(), raw), 400, { type: "/problems/body-too-deep" })
        }
      }
      // ordinary nesting reaches validation
      expectProblem(await send("POST", mappingsPath(), `{"fromImage":${"[".repeat(10)}${"]".repeat(10)}}`), 400, { paths: ["fromImage"] })
    })

    it("a body declared under another JSON media type is read as JSON", async () => {
      for (
        const [contentType, tag] of [["application/merge-patch+json", "1.25.4"], ["text/json", "1.25.5"], [
          "Application/JSON; charset=utf-8",
          "1.25.6"
        ]] as const
      ) {
        const body = JSON.stringify({ fromImage: `nginx:${tag}`, toImage: `nginx:${tag}-r1` })
        const answer = await send("POST", mappingsPath(), body, secrets.owner, { "content-type": contentType })
        expect(answer.status, `${contentType}: ${answer.text}`).toBe(201)
      }
      // and its validation problems are the usual 400, not a 415
      expectProblem(
        await send("POST", mappingsPath(), JSON.stringify({ fromImage: 5 }), secrets.owner, { "content-type": "text/json" }),
        400,
        {
          paths: ["fromImage"]
        }
      )
    })

    it("a body that is not declared as JSON is a 400", async () => {
      const json = JSON.stringify({ fromImage: "nginx:1", toImage: "nginx:1.25.3" })
      expectProblem(await send("POST", mappingsPath(), json, secrets.owner, { "content-type": "text/plain" }), 400, {
        type: "/problems/unsupported-media-type"
      })
      expectProblem(await send("POST", mappingsPath(), json, secrets.owner, { "content-type": "application/x-www-form-urlencoded" }), 400)
      expectProblem(
        await send("POST", mappingsPath(), "fromImage=nginx", secrets.owner, { "content-type": "application/x-www-form-urlencoded" }),
        400
      )
      // nothing was drafted by those
      const drafts = await host.request("GET", mappingsPath())
      expect(drafts.body.items.filter((d: any) => d.fromImage === "nginx:1")).toEqual([])
    })

    it("a body over 1 MiB is a 413 with a valid key; just under the limit it reaches validation (400)", async () => {
      expectProblem(await send("POST", mappingsPath(), bigMapping(MiB + 1)), 413, { type: "/problems/body-too-large" })
      expectProblem(await send("POST", mappingsPath(), bigMapping(4 * MiB)), 413)
      const under = await send("POST", mappingsPath(), bigMapping(MiB - 16))
      expectProblem(under, 400, { paths: ["reason"] })
    })

    /** Sends a mapping whose reason is `reasonBytes` long as a chunked body (no content-length). */
    const streamed = async (reasonBytes: number, key: string | null = secrets.owner, fromImage = "nginx:1") => {
      const encoder = new TextEncoder()
      const chunk = encoder.encode("a".repeat(64 * 1024))
      let sent = 0
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode(`{"fromImage":"${fromImage}","toImage":"nginx:1.25.3","reason":"`))
        },
        pull(controller) {
          if (sent >= reasonBytes) {
            controller.enqueue(encoder.encode("\"}"))
            controller.close()
            return
          }
          const part = chunk.subarray(0, Math.min(chunk.length, reasonBytes - sent))
          sent += part.length
          controller.enqueue(part)
        }
      })
      const response = await fetch(`${host.url}${mappingsPath()}`, {
        method: "POST",
        headers: { ...(key !== null ? { "x-api-key": key } : {}), "content-type": "application/json" },
        body,
        duplex: "half"
      } as RequestInit)
      const text = await response.text()
      return { status: response.status, headers: response.headers, text, body: JSON.parse(text) }
    }

    it("a streamed (chunked) body over 1 MiB answers the 413 too, not a connection reset", async () => {
      expectProblem(await streamed(2 * MiB), 413, { type: "/problems/body-too-large" })
      expectProblem(await streamed(MiB + 1), 413)
      // the check order holds for streamed bodies
      expectProblem(await streamed(2 * MiB, null), 401)
      expectProblem(await streamed(2 * MiB, secrets.readOnly), 403)
      // under the limit a streamed body is read like any other
      expectProblem(await streamed(MiB - 100), 400, { paths: ["reason"] })
      const created = await streamed(10, secrets.owner, "streamed/image:1")
      expect(created.status, created.text).toBe(201)
      expect(created.body).toMatchObject({ fromImage: "streamed/image:1", reason: "a".repeat(10) })
    })

    /** Writes `head` and the body's pieces on one connection, each piece after a pause; answers the raw reply. */
    const piecewise = (path: string, pieces: ReadonlyArray<Buffer>, options: { readonly close?: boolean } = {}) =>
      new Promise<string>((resolve, reject) => {
        const length = pieces.reduce((n, p) => n + p.length, 0) + (options.close ? 10 : 0)
        const socket = connect(host.port, "127.0.0.1")
        let reply = ""
        socket.on("data", (d) => (reply += d.toString("utf8")))
        socket.on("error", reject)
        socket.on("close", () => resolve(reply))
        socket.write(
          `POST ${path} HTTP/1.1\r\nhost: localhost\r\nx-api-key: ${secrets.owner}\r\ncontent-type: application/json\r\n` +
            `content-length: ${length}\r\nconnection: close\r\n\r\n`
        )
        const next = (i: number) => {
          if (i === pieces.length) {
            if (options.close) socket.destroy()
            return
          }
          socket.write(pieces[i]!)
          setTimeout(() => next(i + 1), 20)
        }
        next(0)
      })

    it("a body that arrives in pieces is read whole, a character split between pieces included", async () => {
      const body = Buffer.from(JSON.stringify({ fromImage: "pieces/image:1", toImage: "pieces/image:2", reason: "déjà vu ✓" }))
      const split = body.indexOf(Buffer.from("é")) + 1 // between the two bytes of "é"
      const reply = await piecewise(mappingsPath(), [body.subarray(0, 5), body.subarray(5, split), body.subarray(split)])
      expect(reply).toMatch(/^HTTP\/1\.1 201 /)
      expect(JSON.parse(reply.slice(reply.indexOf("\r\n\r\n") + 4))).toMatchObject({ reason: "déjà vu ✓" })
    })

    it("a client that leaves half-way through its body changes nothing and the host keeps answering", async () => {
      const body = Buffer.from(JSON.stringify({ fromImage: "abandoned/image:1", toImage: "abandoned/image:2" }))
      expect(await piecewise(mappingsPath(), [body.subarray(0, 10), body.subarray(10)], { close: true })).toBe("")
      const drafts = await host.request("GET", mappingsPath())
      expect(drafts.status).toBe(200)
      expect(drafts.body.items.map((m: { fromImage: string }) => m.fromImage)).not.toContain("abandoned/image:1")
    })

    it("the order holds for large bodies: 401 and 404 and 403 come before 413", async () => {
      const big = bigMapping(MiB + 1024)
      expectProblem(await send("POST", mappingsPath(), big, null), 401)
      expectProblem(await send("POST", mappingsPath(), big, "unknown-secret-0123456789abcdefghijklmnopqrstuv"), 401)
      expectProblem(await send("POST", mappingsPath(), big, secrets.otherOrg), 404)
      expectProblem(await send("POST", mappingsPath(), big, secrets.readOnly), 403)
      expectProblem(await send("POST", "/api/v1/org/org_free/api-keys", big, secrets.freeEdition), 403)
    })

    it("the order holds for bad bodies: 413 before 400, and 400 before a 404 of the path's resource", async () => {
      // 413 for a body that is both too large and malformed
      expectProblem(await send("POST", mappingsPath(), `{${"\"a\":1,".repeat(MiB / 6 + 10)}`), 413)
      const unknownGroup = "/api/v1/org/org_acme/policy-groups/pg_unknown/phases/ph_unknown/mappings"
      expectProblem(await send("POST", unknownGroup, "{"), 400, { type: "/problems/malformed-json" })
      expectProblem(await send("POST", unknownGroup, JSON.stringify({ fromImage: 1 })), 400)
      expectProblem(await send("POST", unknownGroup, JSON.stringify({ fromImage: "nginx:1", toImage: "nginx:1.25.3" })), 404)
      // 404 of the path's resource before 409 of the workflow state
      expectProblem(await send("POST", unknownGroup, JSON.stringify({ fromImage: "nginx:1", toImage: "nginx:1.25.3" })), 404)
    })
  })

  describe("routes", () => {
    it("an unknown route is a 404 problem, with or without a key", async () => {
      for (
        const [method, path, key] of [
          ["GET", "/api/v1/nope", null],
          ["GET", "/nope", secrets.owner],
          ["GET", "/", null],
          ["POST", "/api/v1/org/org_acme/unknown", secrets.owner],
          ["GET", "/api/v2/org/org_acme/teams", secrets.owner],
          ["GET", "/api/v1/org/org_acme/policy-groups/a/b/c/d/e", secrets.owner]
        ] as const
      ) {
        expectProblem(await host.request(method, path, { key }), 404, { type: "/problems/route-not-found" })
      }
    })

    it("a known path with another method answers a 4xx problem, never 5xx", async () => {
      for (
        const [method, path] of [
          ["DELETE", "/api/v1/org/org_acme/policy-groups"],
          ["PUT", mappingsPath()],
          ["PATCH", "/api/v1/org/org_acme/repositories"],
          ["POST", "/api/v1/openapi.json"],
          ["GET", `/api/v1/org/org_acme/policy-groups/${base().id}/publish`]
        ] as const
      ) {
        const answer = await host.request(method, path)
        expect(answer.status, `${method} ${path}`).toBeGreaterThanOrEqual(400)
        expect(answer.status, `${method} ${path}`).toBeLessThan(500)
        expectProblem(answer, answer.status)
      }
    })

    it("every problem carries the request's correlation id, also sent as x-request-id", async () => {
      const answer = await host.request("GET", "/api/v1/org/org_acme/policy-groups/pg_nope/details")
      const body = expectProblem(answer, 404)
      expect(body.correlationId).toBe(answer.headers.get("x-request-id"))
      const chosen = await host.request("GET", "/api/v1/org/org_acme/policy-groups/pg_nope/details", {
        headers: { "x-request-id": "trace-123" }
      })
      expect(chosen.body.correlationId).toBe("trace-123")
      expect(chosen.headers.get("x-request-id")).toBe("trace-123")
      // a request id that could inject into logs is replaced
      const injected = await host.request("GET", "/api/v1/org/org_acme/policy-groups/pg_nope/details", {
        headers: { "x-request-id": "a b\"}{" }
      })
      expect(injected.body.correlationId).not.toBe("a b\"}{")
    })
  })

  describe("nothing leaks", () => {
    it("no answer holds a stack trace, a file path or a secret, whatever the input", async () => {
      const answers: Array<Answer> = []
      const secret = secrets.automation
      // secrets pasted into wrong places: header, body fields, path, query
      answers.push(await host.request("GET", "/api/v1/org/org_acme/policy-groups", { key: `${secret}!` }))
      answers.push(await host.request("POST", mappingsPath(), { body: { fromImage: secret, toImage: secret, reason: secret } }))
      answers.push(await host.request("POST", mappingsPath(), { body: { fromImage: `${secret}:1`, toImage: `${secret}*:1` } }))
      answers.push(
        await host.request("POST", "/api/v1/org/org_acme/snooze-requests", {
          body: { repositoryId: secret, fromImage: secret, reason: secret, until: secret }
        })
      )
      answers.push(
        await host.request("POST", "/api/v1/org/org_acme/api-keys", { body: { name: secret, role: secret, expiresInDays: secret } })
      )
      answers.push(
        await host.request("POST", "/api/v1/org/org_acme/repositories", {
          body: onboardBody({ vcsConnectionId: secret, branchNames: [secret] })
        })
      )
      answers.push(await host.request("GET", `/api/v1/org/org_acme/policy-groups/${secret}/details`))
      answers.push(await host.request("GET", `/api/v1/org/org_acme/teams?cursor=${secret}`))
      answers.push(await host.request("GET", `/api/v1/org/${secret}/teams`))
      answers.push(
        await host.request("POST", mappingsPath(), { raw: `{"fromImage": "${secret}"`, headers: { "content-type": "application/json" } })
      )
      for (const answer of answers) {
        expect(answer.status, answer.text).toBeGreaterThanOrEqual(400)
        expect(answer.status, answer.text).toBeLessThan(500)
        expectProblem(answer, answer.status)
        expectNoLeak(answer)
      }
    })

    it("successful answers never hold a secret either", async () => {
      for (
        const path of [
          "/api/v1/org/org_acme/api-keys",
          "/api/v1/org/org_acme/audit-events",
          "/api/v1/openapi.json",
          "/api/v1/org/org_acme/vcs-connections"
        ]
      ) {
        const answer = await host.request("GET", path)
        expect(answer.status).toBe(200)
        expectNoLeak(answer)
      }
    })
  })
})

describe("rate limit", () => {
  let host: TestHost
  beforeAll(async () => {
    // about one request a second with a burst of 2: the third request in a row is over the limit
    host = await startTestHost({ app: { rateLimit: { ratePerSecond: 1, burst: 2 } } })
  })
  afterAll(() => host?.stop())

  it("answers 429 with Retry-After per key, after the burst, before any work is done", async () => {
    const path = "/api/v1/org/org_acme/teams"
    expect((await host.request("GET", path, { key: secrets.automation })).status).toBe(200)
    expect((await host.request("GET", path, { key: secrets.automation })).status).toBe(200)
    const limited = await host.request("GET", path, { key: secrets.automation })
    const body = expectProblem(limited, 429, { type: "/problems/rate-limited" })
    const retryAfter = limited.headers.get("retry-after")
    expect(retryAfter).toMatch(/^[1-9]\d*$/)
    expect(body.retryAfterSeconds).toBe(Number(retryAfter))
    // a limited key's write is refused without effect
    const base = host.org.policyGroups["Base images"]!
    const mappings = `/api/v1/org/org_acme/policy-groups/${base.id}/phases/${base.phases["Curated"]}/mappings`
    const write = await host.request("POST", mappings, { key: secrets.automation, body: { fromImage: "nginx:1", toImage: "nginx:1.25.3" } })
    expectProblem(write, 429)
    // another key has its own budget, and sees that the limited write drafted nothing
    const drafts = await host.request("GET", mappings, { key: secrets.readOnly })
    expect(drafts.status).toBe(200)
    expect(drafts.body.items).toEqual([])
    // a request without a valid key is a 401, not a 429
    expectProblem(await host.request("GET", path, { key: null }), 401)
  })

  it("the limit does not apply to the public documents", async () => {
    for (let i = 0; i < 5; i++) {
      expect((await host.request("GET", "/api/v1/openapi.json", { key: null })).status).toBe(200)
    }
  })
})

describe("domain errors as problems", () => {
  it("a workflow's own check of its input answers like the decoder: 400 validation-error naming each field", () => {
    const problem = Problems.fromDomain(new Input.InvalidInput({ errors: [{ path: "reason", message: Text.unstorableMessage }] }))
    expect(problem).toMatchObject({
      status: 400,
      type: "/problems/validation-error",
      errors: [{ path: "reason", message: Text.unstorableMessage }]
    })
  })
})
