/**
 * A mappings file published on a test host the way a team publishes one: as the file of the seeded
 * "Base images" group's external phase ("From repo", acme/policy), synced, with the group applied to
 * every repository and no cooldown, so what the file says is the published policy at once.
 */
import type { FixtureVcs } from "@image-policy/adapters"
import type { TestHost } from "./harness.js"
import { expectJson } from "./suites.js"

const groupPath = (host: TestHost) => `/api/v1/org/${host.org.id}/policy-groups/${host.org.policyGroups["Base images"]!.id}`

/** The group applies to every repository, without cooldown. */
export const applyToEveryRepository = async (host: TestHost): Promise<void> => {
  expectJson(await host.request("PATCH", groupPath(host), { body: { applyToAllRepos: true, cooldownSeconds: 0 } }), 200)
}

/** `text` as the phase's file, synced; the sync's answer. */
export const publishMappingsFile = async (host: TestHost, fixture: ReturnType<typeof FixtureVcs.make>, text: string) => {
  fixture.files.setFile({
    orgId: host.org.id,
    vcsConnectionId: host.org.vcsConnections["acme"]!,
    fullName: "acme/policy",
    branch: "main",
    path: "service-mappings.json"
  }, text)
  const phaseId = host.org.policyGroups["Base images"]!.phases["From repo"]
  return expectJson(await host.request("POST", `${groupPath(host)}/phases/${phaseId}/sync`), 200)
}
