/**
 * The web console at `/` (issue 17, http/Console.ts) from a built `dist` folder, through the one web
 * handler Node and Deno both serve: the page for any GET path of the console, hashed assets cached
 * for a year, the page never cached, a strict Content-Security-Policy, and the API's own 404s kept.
 */
import { MemoryStore } from "@image-policy/adapters"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gunzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as App from "../src/App.js"
import * as Console from "../src/http/Console.js"

const page = `<!doctype html><html lang="en"><head><title>image-policy</title>` +
  `<script type="module" crossorigin src="/assets/index-AbC123.js"></script></head><body><div id="root"></div></body></html>`
const script = `console.log("the console");\n`.repeat(100)

describe("the web console at /", () => {
  let dir: string
  let web: ReturnType<typeof App.webHandler>
  const get = (path: string, headers: Record<string, string> = {}) => web.handler(new Request(`http://localhost${path}`, { headers }))

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "console-dist-"))
    mkdirSync(join(dir, "assets"))
    writeFileSync(join(dir, "index.html"), page)
    writeFileSync(join(dir, "assets", "index-AbC123.js"), script)
    writeFileSync(join(dir, "assets", "index-Xy9.css"), "body { margin: 0 }")
    web = App.webHandler({ ...App.defaults, accessLog: false, console: dir }, MemoryStore.layer)
  })
  afterAll(async () => {
    await web?.dispose()
    rmSync(dir, { recursive: true, force: true })
  })

  it("serves index.html at / and at any page path, never cached, under a strict CSP", async () => {
    for (const path of ["/", "/settings/api-keys", "/console/org/org_acme/policy-groups/pg_1", "/sign-in?next=%2Fwebhooks"]) {
      const response = await get(path)
      expect(response.status, path).toBe(200)
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8")
      expect(response.headers.get("cache-control")).toBe("no-cache")
      const csp = response.headers.get("content-security-policy") ?? ""
      expect(csp).toContain("script-src 'self'")
      expect(csp).toContain("frame-ancestors 'none'")
      expect(csp).not.toContain("unsafe-inline")
      expect(response.headers.get("x-content-type-options")).toBe("nosniff")
      expect(await response.text()).toBe(page)
    }
  })

  it("serves a hashed asset with its type and a year-long immutable cache, gzipped when asked, 304 on a matching ETag", async () => {
    const plain = await get("/assets/index-AbC123.js")
    expect(plain.status).toBe(200)
    expect(plain.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
    expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
    expect(await plain.text()).toBe(script)
    const css = await get("/assets/index-Xy9.css")
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8")

    const zipped = await get("/assets/index-AbC123.js", { "accept-encoding": "gzip, br" })
    expect(zipped.headers.get("content-encoding")).toBe("gzip")
    const bytes = new Uint8Array(await zipped.arrayBuffer())
    expect(bytes.byteLength).toBeLessThan(script.length / 5)
    expect(gunzipSync(bytes).toString()).toBe(script)

    const etag = plain.headers.get("etag")!
    const again = await get("/assets/index-AbC123.js", { "if-none-match": etag })
    expect(again.status).toBe(304)
  })

  it("a missing asset is a 404, not the page in its place", async () => {
    for (const path of ["/assets/index-Old999.js", "/favicon.ico"]) {
      const response = await get(path)
      expect(response.status, path).toBe(404)
      expect(response.headers.get("content-type")).toContain("application/problem+json")
    }
  })

  it("unknown API routes still answer problem JSON, and the probes are the API's", async () => {
    for (const path of ["/api/v1/nope", "/api/v1", "/api", "/metrics"]) {
      const response = await get(path)
      expect(response.status, path).toBe(404)
      expect(response.headers.get("content-type")).toContain("application/problem+json")
      expect(((await response.json()) as { type: string }).type).toBe("/problems/route-not-found")
    }
    const post = await web.handler(new Request("http://localhost/settings", { method: "POST" }))
    expect(post.status).toBe(404)
    expect(post.headers.get("content-type")).toContain("application/problem+json")
    const health = await get("/healthz")
    expect(await health.json()).toEqual({ status: "ok" })
  })

  it("finds the built console package by default, and serves none when there is none", async () => {
    const found = Console.defaultDir()
    // npm install builds the console (root `prepare`), so the workspace's dist is there
    expect(found).toMatch(/packages[\\/]console[\\/]dist$/)
    expect(Console.load(found!)?.has("/index.html")).toBe(true)
    const none = App.webHandler({ ...App.defaults, accessLog: false, console: false }, MemoryStore.layer)
    try {
      const response = await none.handler(new Request("http://localhost/"))
      expect(response.status).toBe(404)
      expect(response.headers.get("content-type")).toContain("application/problem+json")
    } finally {
      await none.dispose()
    }
  })
})
