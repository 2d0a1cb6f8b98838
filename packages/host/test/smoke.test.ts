import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost } from "./support/harness.js"

let host: TestHost
beforeAll(async () => { host = await startTestHost() })
afterAll(() => host?.stop())

describe("smoke", () => {
  it("lists teams", async () => {
    const r = await host.request("GET", "/api/v1/org/org_acme/teams")
    console.log(r.status, r.text)
    const o = await host.request("GET", "/api/v1/openapi.json", { key: null })
    console.log(o.status, o.text.slice(0, 300))
    const x = await host.request("GET", "/api/v1/nope", { key: null })
    console.log(x.status, x.text)
    const y = await host.request("GET", "/api/v1/org/org_acme/teams", { key: "junk" })
    console.log(y.status, y.text)
    const z = await host.request("POST", "/api/v1/org/org_acme/repositories", { raw: "{bad" })
    console.log(z.status, z.text)
    const w = await host.request("POST", "/api/v1/org/org_acme/repositories", { body: { vcsConnectionId: 3 } })
    console.log(w.status, w.text)
    expect(r.status).toBe(200)
  })
})
