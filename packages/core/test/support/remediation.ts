/**
 * What the remediation tests share (Remediation*.test.ts): one policy group with one phase, published
 * mappings and snoozes built from a few fields, the fixed `now`, the policy most files are remediated
 * with, and `remediate`: plan and rewrite one file.
 */
import * as Id from "../../src/Id.js"
import * as Mapping from "../../src/Mapping.js"
import type * as PolicyGroup from "../../src/PolicyGroup.js"
import * as Remediation from "../../src/Remediation.js"
import * as ResolutionIndex from "../../src/ResolutionIndex.js"
import * as Scanner from "../../src/Scanner.js"
import type * as SnoozeRequest from "../../src/SnoozeRequest.js"

export const gid = Id.make("policyGroup", new Uint8Array(16).fill(1)) as Id.PolicyGroupId
export const pid = Id.make("phase", new Uint8Array(16).fill(1)) as Id.PhaseId
export const repositoryId = Id.make("repository", new Uint8Array(16).fill(1)) as Id.RepositoryId
let n = 0
export const mapping = (
  fromImage: string,
  toImage: string,
  extra: Partial<PolicyGroup.PublishedMapping> = {}
): PolicyGroup.PublishedMapping => ({
  id: Id.make("mapping", new Uint8Array(16).fill(++n % 250)) as Id.MappingId,
  key: Mapping.mappingKey(fromImage, extra.platformScope),
  fromImage,
  toImage,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  phaseId: pid,
  activeFrom: "2026-01-01T00:00:00.000Z",
  ...extra
})
export const compile = (published: ReadonlyArray<PolicyGroup.PublishedMapping>) =>
  ResolutionIndex.build([{ group: { id: gid, name: "Base images" }, phases: [{ id: pid, position: 0 }], published }])
export const now = new Date("2026-06-01T00:00:00Z")
export const snooze = (
  fromImage: string,
  status: SnoozeRequest.SnoozeStatus,
  until = "2026-07-01T00:00:00.000Z"
): SnoozeRequest.SnoozeRequest => ({
  id: Id.make("snoozeRequest", new Uint8Array(16).fill(++n % 250)) as Id.SnoozeRequestId,
  repositoryId,
  fromImage,
  reason: "vendor certification pending",
  until,
  status,
  createdAt: "2026-05-01T00:00:00.000Z",
  reviewedAt: null,
  reviewComment: null
})

/** Plans and rewrites one file: the new content and what changed. */
export const remediate = (
  path: string,
  content: string,
  published: ReadonlyArray<PolicyGroup.PublishedMapping>,
  snoozes: ReadonlyArray<SnoozeRequest.SnoozeRequest> = []
) => {
  const changes = Remediation.plan({ findings: Scanner.scanFile(path, content), policy: compile(published), snoozes, now })
  return { changes, ...Remediation.rewrite(content, changes) }
}

export const policy = [
  mapping("node:20", "node:20.11.1"),
  mapping("alpine:*", "alpine:3.20"),
  mapping("alpine:3.19", "alpine:3.19.1", { platformScope: "linux/arm64" }),
  mapping("ghcr.io/acme/api:2.0.1", "ghcr.io/acme/api:2.0.2"),
  mapping("ghcr.io/acme/migrate:1.4", "ghcr.io/acme/migrate:1.5"),
  mapping("redis:7", "redis:7.4"),
  mapping("postgres:16", "docker.io/library/postgres:16"), // the same image, spelt out: nothing to change
  mapping("busybox:1.36", "busybox:1.37", { activeFrom: "2026-09-01T00:00:00.000Z" }) // still in cooldown
]
