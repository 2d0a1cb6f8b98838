/**
 * What the scan worker tests share (scanWorker.test.ts, leaseRecovery.test.ts): the test seed with
 * a Dockerfile on every fixture branch, a fixture provider with `listFiles` replaced, onboarding a
 * repository through the API and reading its branches' scan statuses.
 */
import type { VcsProvider } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { type TestHost, testSeed } from "./harness.js"
import { expectJson } from "./suites.js"

const api = "/api/v1/org/org_acme"

export const seedWithFiles = () => {
  const seed = structuredClone(testSeed) as any
  for (const r of seed.organizations[0].vcsConnections[0].fixture.repositories) {
    r.files = Object.fromEntries(r.branches.map((b: string) => [b, { "Dockerfile": `FROM node:20 AS ${b}\n` }]))
  }
  return seed
}

/** The fixture provider with `listFiles` replaced for some repositories. */
export const withListFiles = (
  fixture: typeof VcsProvider.Service,
  listFiles: (at: { readonly fullName: string; readonly branch: string }) => Effect.Effect<void> | undefined
): typeof VcsProvider.Service => ({
  ...fixture,
  listFiles: (ctx, at) => {
    const before = listFiles(at)
    return before === undefined ? fixture.listFiles(ctx, at) : Effect.andThen(before, fixture.listFiles(ctx, at))
  }
})

export const onboard = async (host: TestHost, externalRepoId: string, branchNames: ReadonlyArray<string>) =>
  expectJson(
    await host.request("POST", `${api}/repositories`, {
      body: {
        vcsConnectionId: host.org.vcsConnections["acme"],
        externalRepoId,
        assignedTeamId: host.org.teams["Platform"],
        assignedRoutineId: host.org.routines["Platform/Weekly"],
        branchNames
      }
    }),
    201
  ).repository.id as string

export const statuses = async (host: TestHost, repositoryId: string) => {
  const body = expectJson(await host.request("GET", `${api}/repositories?repositoryId=${repositoryId}`), 200)
  return Object.fromEntries(body.items[0].branches.map((b: any) => [b.branchName, b.scan.status])) as Record<string, string>
}
