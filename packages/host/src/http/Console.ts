/**
 * The web console (issue 17, `packages/console`, a Vite build) served at `/` from its `dist`
 * folder, read into memory once at start: `index.html` for every GET path that is not the API's,
 * a probe's or a file's (the console routes in the browser), its hashed assets with a year-long
 * immutable cache, `index.html` itself never cached (a new release is picked up at once), and a
 * strict Content-Security-Policy (no inline script or style: the build has none).
 *
 * Where the files come from (`App.Options.console`): a folder given (`serve --console-dir`), else
 * the `dist` of the `@image-policy/console` package this host resolves (the workspace in a
 * checkout, the production tree in the image), else none: the host serves the API only.
 * Node-only APIs are the `node:` modules Deno implements too, so both runtimes serve it alike.
 */
import * as Effect from "effect/Effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as Layer from "effect/Layer"
import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, extname, join, relative, sep } from "node:path"
import { gzipSync } from "node:zlib"
import * as Problems from "./Problems.js"

/** The policy of every console page: scripts, styles and data from this origin only, no framing. */
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'"
].join("; ")

const types: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
  ".webmanifest": "application/manifest+json"
}
const compressible = new Set([".html", ".js", ".mjs", ".css", ".json", ".map", ".svg", ".txt", ".webmanifest"])

const immutable = "public, max-age=31536000, immutable"
const revalidate = "no-cache"

interface File {
  readonly body: Uint8Array
  readonly gzip: Uint8Array | undefined
  readonly type: string
  readonly cacheControl: string
  readonly etag: string
}

/** The built console, by URL path (`/index.html`, `/assets/index-Bx1.js`). */
export type Files = ReadonlyMap<string, File>

const walk = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : entry.isFile() ? [join(dir, entry.name)] : []
  )

/** Reads a built console (`dir/index.html`, `dir/assets/...`); `undefined` when `dir` holds no index.html. */
export const load = (dir: string): Files | undefined => {
  if (!existsSync(join(dir, "index.html"))) return undefined
  const files = new Map<string, File>()
  for (const path of walk(dir)) {
    const urlPath = "/" + relative(dir, path).split(sep).join("/")
    const ext = extname(path).toLowerCase()
    const body = new Uint8Array(readFileSync(path))
    const gzip = compressible.has(ext) && body.byteLength > 1024 ? new Uint8Array(gzipSync(body, { level: 9 })) : undefined
    files.set(urlPath, {
      body,
      gzip,
      type: types[ext] ?? "application/octet-stream",
      // Vite names what `assets/` holds by content hash: a changed file is a new URL
      cacheControl: urlPath.startsWith("/assets/") ? immutable : revalidate,
      etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`
    })
  }
  return files
}

/** The `dist` of the `@image-policy/console` package this module resolves, if built. */
export const defaultDir = (): string | undefined => {
  try {
    const pkg = createRequire(import.meta.url).resolve("@image-policy/console/package.json")
    const dir = join(dirname(pkg), "dist")
    return existsSync(join(dir, "index.html")) ? dir : undefined
  } catch {
    return undefined
  }
}

/** Paths that belong to the API, the probes or the metrics: never the console's page. */
const reserved = /^\/(?:api(?:\/|$)|healthz$|readyz$|metrics$)/

const notFound = () =>
  Effect.fail(Problems.make({ status: 404, type: "/problems/route-not-found", detail: "no such route; see GET /api/v1/openapi.json" }))

const respond = (file: File, request: HttpServerRequest.HttpServerRequest, extra: Record<string, string>) => {
  const headers: Record<string, string> = {
    "cache-control": file.cacheControl,
    etag: file.etag,
    "x-content-type-options": "nosniff",
    ...extra
  }
  if (file.gzip !== undefined) headers.vary = "accept-encoding"
  if (request.headers["if-none-match"] === file.etag) return HttpServerResponse.empty({ status: 304, headers })
  const gzip = file.gzip !== undefined && /\bgzip\b/.test(request.headers["accept-encoding"] ?? "")
  if (gzip) headers["content-encoding"] = "gzip"
  return HttpServerResponse.uint8Array(gzip ? file.gzip! : file.body, { contentType: file.type, headers })
}

const pageHeaders = {
  "content-security-policy": contentSecurityPolicy,
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY"
}

/** The GET route of the console's files and pages (`/*`); nothing when `files` is undefined. */
export const routes = (files: Files) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const router = yield* HttpRouter.HttpRouter
    const index = files.get("/index.html")!
    yield* router.add(
      "GET",
      "/*",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const path = new URL(request.url, "http://localhost").pathname
        if (reserved.test(path)) return yield* notFound()
        const file = files.get(path)
        if (file !== undefined && path !== "/index.html") {
          return respond(file, request, file.type.startsWith("text/html") ? pageHeaders : {})
        }
        // a missing file (an old hashed asset, a typo) is a 404, never the page in its place
        if (path.startsWith("/assets/") || /\.[A-Za-z0-9]+$/.test(path)) return yield* notFound()
        return respond(index, request, pageHeaders)
      })
    )
  }))

/** The console of `option` (see App.Options.console): its route, or nothing (API only). */
export const layer = (option: string | false | undefined) => {
  if (option === false) return Layer.empty
  const dir = option ?? defaultDir()
  const files = dir === undefined ? undefined : load(dir)
  if (files === undefined) {
    return option === undefined
      ? Layer.empty
      : Layer.effectDiscard(
        Effect.logWarning("the console is not served: no index.html in the folder given").pipe(
          Effect.annotateLogs({ consoleDir: option })
        )
      )
  }
  return routes(files)
}
