/** What the production provider's tests share: a token, its environment, a start time, connection contexts and a stub repository. */
import type { ConnectionContext } from "@image-policy/core"
import * as Stubs from "./providerStubs.js"

export const token = "ghp_PROVIDERSTOKEN0123456789abcdef"
export const env = (name: string) => name === "GITHUB_TOKEN" || name === "GITLAB_TOKEN" ? token : name === "EMPTY_TOKEN" ? "" : undefined
export const start = Date.parse("2030-06-01T12:00:00Z")

export const contextOf = (
  settings: unknown,
  options: { readonly provider?: "github" | "gitlab"; readonly connectionId?: string; readonly orgId?: string } = {}
): ConnectionContext => ({
  orgId: (options.orgId ?? "org_01hzzzzzzzzzzzzzzzzzzzzzzz") as ConnectionContext["orgId"],
  connection: {
    id: (options.connectionId ?? "vcs_01hzzzzzzzzzzzzzzzzzzzzzzz") as ConnectionContext["connection"]["id"],
    provider: options.provider ?? "github",
    externalAccountName: "acme",
    status: "active"
  },
  settings
})

export const apiSettings = (baseUrl: string, tokenEnv = "GITHUB_TOKEN") => ({ kind: "api", baseUrl, tokenEnv })

export const api = Stubs.repository(7, "acme/api", { branches: ["main", "release"], files: { main: { "Dockerfile": "FROM node:20\n" } } })
