/**
 * What the external-phase sync tests share (sync*.test.ts): the test seed with webhook secrets, a
 * GitLab connection and groups with external phases; a mappings file's text; a signed GitHub push.
 */
import { createHmac, randomUUID } from "node:crypto"
import { type TestHost, testSeed } from "./harness.js"

export const githubSecret = "fixture-github-webhook-secret-0123456789"
export const gitlabSecret = "fixture-gitlab-webhook-token-0123456789"
export const api = "/api/v1/org/org_acme"

/** The test seed plus a webhook secret on `acme`, an active GitLab connection, and a group with a cooldown. */
export const syncSeed = () => {
  const seed = structuredClone(testSeed) as any
  const acme = seed.organizations[0]
  acme.vcsConnections[0].fixture.webhookSecret = githubSecret
  acme.vcsConnections.push({
    provider: "gitlab",
    externalAccountName: "acme-lab",
    status: "active",
    fixture: {
      repositories: [{ externalRepoId: "501", fullName: "acme/lab-policy", defaultBranch: "main", branches: ["main"] }],
      webhookSecret: gitlabSecret
    }
  })
  acme.policyGroups.push(
    {
      name: "Delayed",
      cooldownSeconds: 3600,
      phases: [
        {
          name: "Delayed file",
          source: "external",
          file: { connection: "acme", repository: "acme/policy", branch: "main", path: "delayed/mappings.json" }
        }
      ]
    },
    {
      name: "Lab",
      phases: [
        {
          name: "Lab file",
          source: "external",
          file: { connection: "acme-lab", repository: "acme/lab-policy", branch: "main", path: "service-mappings.json" }
        }
      ]
    }
  )
  return seed
}

export const file = (...mappings: Array<Record<string, unknown>>) => JSON.stringify({ mappings }, null, 2)

export const sign = (secret: string, body: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`

export const githubPush = (options: {
  readonly ref?: string
  readonly paths?: ReadonlyArray<string>
  readonly repository?: string
  readonly pushedAt?: number
} = {}) => ({
  ref: options.ref ?? "refs/heads/main",
  before: "1".repeat(40),
  after: "2".repeat(40),
  created: false,
  deleted: false,
  forced: false,
  repository: { full_name: options.repository ?? "acme/policy", pushed_at: options.pushedAt ?? Math.floor(Date.now() / 1000) },
  commits: [{ id: "2".repeat(40), added: [], modified: [...(options.paths ?? ["service-mappings.json"])], removed: [] }]
})

/**
 * A GitHub webhook of `event` signed with the connection's secret, to `connectionId`; `headers`
 * replace (or with `undefined`, drop) the defaults.
 */
export const githubEventTo = (
  host: TestHost,
  event: string,
  body: unknown,
  headers: Record<string, string | undefined>,
  connectionId: string
) => {
  const raw = JSON.stringify(body)
  const all: Record<string, string> = {
    "x-github-event": event,
    "x-github-delivery": randomUUID(),
    "x-hub-signature-256": sign(githubSecret, raw),
    "content-type": "application/json"
  }
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) delete all[k]
    else all[k] = v
  }
  return host.request("POST", `/api/v1/vcs-events/github/${connectionId}`, { key: null, raw, headers: all })
}

/** A GitHub push signed with the connection's secret, to `connectionId` (`githubEventTo`). */
export const pushGithubTo = (
  host: TestHost,
  body: unknown,
  headers: Record<string, string | undefined>,
  connectionId: string
) => githubEventTo(host, "push", body, headers, connectionId)
