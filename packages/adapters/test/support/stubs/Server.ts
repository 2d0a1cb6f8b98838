/**
 * What both provider stubs share: the repositories they hold, the recorded requests and canned
 * answers, the local HTTP server that routes each request, pages of `per_page` items and git's blob
 * ids. `providerStubs.ts` describes what the stubs speak.
 */
import { createHash } from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

export interface StubRepository {
  readonly id: number
  readonly fullName: string
  /** `null`: an empty GitLab project. */
  defaultBranch: string | null
  /** Branch name to its head commit sha. */
  readonly branches: Map<string, string>
  /** Branch name to path to content. */
  readonly files: Map<string, Map<string, string>>
  /**
   * Path to git file mode where it is not `100644`: `100755` (executable), `120000` (a symlink),
   * `160000` (a submodule, listed as type `commit`).
   */
  readonly modes: Map<string, string>
}

/** A pull request (GitHub) or merge request (GitLab) the stub holds. */
export interface StubPullRequest {
  readonly fullName: string
  /** GitHub's `number` (from 42), GitLab's `iid` (from 7). */
  readonly number: number
  readonly head: string
  readonly base: string
  title: string
  body: string | undefined
  state: "open" | "closed"
}

export const repository = (
  id: number,
  fullName: string,
  options: {
    readonly defaultBranch?: string | null
    readonly branches?: ReadonlyArray<string>
    readonly files?: Record<string, Record<string, string>>
    readonly modes?: Record<string, string>
  } = {}
): StubRepository => {
  const defaultBranch = options.defaultBranch === undefined ? "main" : options.defaultBranch
  const names = options.branches ?? (defaultBranch === null ? [] : [defaultBranch])
  return {
    id,
    fullName,
    defaultBranch,
    branches: new Map(names.map((b, i) => [b, sha1(`${fullName}@${b}#${i}`)])),
    files: new Map(Object.entries(options.files ?? {}).map(([b, fs]) => [b, new Map(Object.entries(fs))])),
    modes: new Map(Object.entries(options.modes ?? {}))
  }
}

export interface StubRequest {
  readonly method: string
  /** Path and query exactly as received (percent-encoding kept). */
  readonly url: string
  /** The path without the API prefix, percent-encoding kept. */
  readonly path: string
  readonly query: URLSearchParams
  readonly headers: http.IncomingHttpHeaders
  readonly body: unknown
}

export interface StubAnswer {
  readonly status: number
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: unknown
}

export interface Stub {
  /** The API base URL, e.g. `http://127.0.0.1:1234/api/v3`. */
  readonly baseUrl: string
  readonly origin: string
  readonly token: string
  readonly repositories: Array<StubRepository>
  readonly requests: Array<StubRequest>
  readonly pullRequests: Array<StubPullRequest>
  /** Requests whose path (without prefix and query) equals `path`. */
  readonly count: (path: string, method?: string) => number
  /** Answers the next `times` requests (default 1) with `answer`, whatever they ask. */
  readonly failNext: (answer: StubAnswer, times?: number) => void
  readonly setOverride: (override: ((request: StubRequest) => StubAnswer | "hang" | undefined) | undefined) => void
  readonly close: () => Promise<void>
}

export interface StubOptions {
  readonly token: string
  readonly repositories: ReadonlyArray<StubRepository>
  /** Items per page when the client asks for more (the provider's own maximum). Default 100. */
  readonly maxPerPage?: number
  /** GitHub: files above this size come without content (like GitHub's 1 MB limit). Default none. */
  readonly largeFileBytes?: number
  /** GitHub: a recursive tree listing with more entries answers only that many and `truncated: true`. Default none. */
  readonly truncateTreesOver?: number
}

export const sha1 = (text: string) => createHash("sha1").update(text).digest("hex")

/** Git's blob id of a text, as both providers report it. */
export const gitBlobSha = (content: string) => {
  const bytes = Buffer.from(content, "utf8")
  return createHash("sha1").update(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes])).digest("hex")
}

export type Route = (request: StubRequest, segments: ReadonlyArray<string>, stub: Stub) => StubAnswer

export const serve = async (prefix: string, options: StubOptions, route: Route): Promise<Stub> => {
  const requests: Array<StubRequest> = []
  const canned: Array<StubAnswer> = []
  let override: ((request: StubRequest) => StubAnswer | "hang" | undefined) | undefined
  const repositories = [...options.repositories]

  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const raw = req.url ?? "/"
      const [pathPart = "", queryPart = ""] = raw.split("?", 2) as [string, string?]
      const text = Buffer.concat(chunks).toString("utf8")
      let body: unknown = undefined
      try {
        body = text === "" ? undefined : JSON.parse(text)
      } catch {
        body = text
      }
      const request: StubRequest = {
        method: req.method ?? "",
        url: raw,
        path: pathPart.startsWith(prefix) ? pathPart.slice(prefix.length) : pathPart,
        query: new URLSearchParams(queryPart),
        headers: req.headers,
        body
      }
      requests.push(request)
      const answer = override?.(request) ?? canned.shift() ?? (pathPart.startsWith(prefix)
        ? route(request, request.path.split("/").slice(1), stub)
        : { status: 404, body: { message: "Not Found" } })
      if (answer === "hang") return
      const headers = { "content-type": "application/json", ...answer.headers }
      res.writeHead(answer.status, headers).end(answer.body === undefined ? "" : JSON.stringify(answer.body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const stub: Stub = {
    baseUrl: `${origin}${prefix}`,
    origin,
    token: options.token,
    repositories,
    requests,
    pullRequests: [],
    count: (path, method = "GET") => requests.filter((r) => r.method === method && r.path === path).length,
    failNext: (answer, times = 1) => {
      for (let i = 0; i < times; i++) canned.push(answer)
    },
    setOverride: (next) => {
      override = next
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
  return stub
}

/** One page of `items`, 1-based, honouring `per_page` up to the provider's maximum. */
export const page = <A>(items: ReadonlyArray<A>, query: URLSearchParams, maxPerPage: number) => {
  const perPage = Math.min(maxPerPage, Math.max(1, Number(query.get("per_page") ?? "30")))
  const number = Math.max(1, Number(query.get("page") ?? "1"))
  const last = Math.max(1, Math.ceil(items.length / perPage))
  return { items: items.slice((number - 1) * perPage, number * perPage), number, last }
}
/** A branch name or a commit sha that is some branch's head, as the branch it names. */
export const branchOfRef = (repo: StubRepository, ref: string) =>
  repo.branches.has(ref) ? ref : [...repo.branches].find(([, sha]) => sha === ref)?.[0]
/** Repositories `owner/repo-001` ... with the given count, for pagination. */
export const manyRepositories = (count: number, owner = "acme"): Array<StubRepository> =>
  Array.from({ length: count }, (_, i) => repository(1000 + i, `${owner}/repo-${String(i + 1).padStart(3, "0")}`))
