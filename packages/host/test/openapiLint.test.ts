/**
 * The served OpenAPI document passes redocly's `recommended` rules with no error (issue 16), the
 * same check `redocly lint` runs, so client generators and API portals read it as operators expect.
 */
import { createConfig, lintFromString } from "@redocly/openapi-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost } from "./support/harness.js"

describe("OpenAPI document under redocly lint (recommended)", () => {
  let host: TestHost
  beforeAll(async () => {
    host = await startTestHost()
  })
  afterAll(() => host?.stop())

  it("has no error", async () => {
    const answer = await host.request("GET", "/api/v1/openapi.json", { key: null })
    expect(answer.status).toBe(200)
    const problems = await lintFromString({
      source: answer.text,
      absoluteRef: "openapi.json",
      config: await createConfig({ extends: ["recommended"] })
    })
    const describe = (p: (typeof problems)[number]) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ""}: ${p.message}`
    const warnings = problems.filter((p) => p.severity === "warn").map(describe)
    if (warnings.length > 0) console.log(`redocly warnings (${warnings.length}):\n${warnings.join("\n")}`)
    expect(problems.filter((p) => p.severity === "error").map(describe)).toEqual([])
  })
})
