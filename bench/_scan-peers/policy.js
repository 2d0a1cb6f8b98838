// The 10,000 published mappings of the resolver benchmarks (bench/scan.js, bench/decisions.js): exact,
// repository and pattern fromImages over the given repositories, in 3 groups of 2 phases, drawn
// from the caller's deterministic randomness (the same seed gives the same policy).
import { Id } from "@image-policy/core"

/**
 * Deterministic randomness (mulberry32) for a seed, and the draws the benchmarks make from it:
 * the same seed gives the same repository tree, references and policy.
 */
export const seeded = (seed) => {
  const rng = (() => {
    let a = seed >>> 0
    return () => {
      a = (a + 0x6d2b79f5) >>> 0
      let t = a
      t = Math.imul(t ^ (t >>> 15), t | 1)
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296
    }
  })()
  const int = (n) => Math.floor(rng() * n)
  const pick = (xs) => xs[int(xs.length)]
  const idBytes = (n) => {
    const b = new Uint8Array(16)
    new DataView(b.buffer).setUint32(0, n)
    new DataView(b.buffer).setUint32(4, seed)
    return b
  }
  const digest = () => `sha256:${Array.from({ length: 64 }, () => "0123456789abcdef"[int(16)]).join("")}`
  /** A reference to one of the repositories: mostly tagged, some by digest, some tag-less. */
  const image = () => {
    const r = pick(repositories)
    const k = rng()
    return k < 0.06 ? r : k < 0.1 ? `${r}@${digest()}` : `${r}:${pick(tags)}`
  }
  return { rng, int, pick, idBytes, digest, image }
}

// a few hundred repositories across registries -----------------------------------------------------
const official = [
  "nginx",
  "redis",
  "postgres",
  "node",
  "python",
  "golang",
  "alpine",
  "busybox",
  "debian",
  "ubuntu",
  "rabbitmq",
  "mysql",
  "mongo",
  "memcached",
  "haproxy",
  "traefik"
]
export const repositories = [
  ...official,
  ...Array.from({ length: 90 }, (_, i) => `acme/svc-${i}`),
  ...Array.from({ length: 90 }, (_, i) => `ghcr.io/acme/team-${i % 9}/app-${i}`),
  ...Array.from({ length: 50 }, (_, i) => `quay.io/partner/tool-${i}`),
  ...Array.from({ length: 54 }, (_, i) => `registry.acme.internal:5000/platform/base-${i}`)
]
export const tags = ["1", "1.2", "1.2.3", "2", "2.0.1", "3.19", "20-alpine", "20-bookworm", "latest", "stable", "v1.29.1", "2024.1"]

export const publishedMappings = ({ count, digest, idBytes, int, pick, rng }) => {
  const MAPPINGS = count
  const groups = [1, 2, 3].map((g) => ({
    group: { id: Id.make("policyGroup", idBytes(g)), name: `group ${g}` },
    phases: [{ id: Id.make("phase", idBytes(10 * g)), position: 0 }, { id: Id.make("phase", idBytes(10 * g + 1)), position: 1 }],
    published: []
  }))
  const counts = { exact: 0, repository: 0, pattern: 0 }
  const keys = new Set() // a phase holds one mapping per fromImage and platform scope, as the store does
  for (let i = 0; i < MAPPINGS; i++) {
    const repo = pick(repositories)
    const k = rng()
    let fromImage
    if (k < 0.6) {
      fromImage = rng() < 0.05 ? `${repo}@${digest()}` : `${repo}:${pick(tags)}`
    } else if (k < 0.8) {
      fromImage = repo
    } else {
      const slash = repo.lastIndexOf("/")
      fromImage = pick([
        `${repo}:${pick(["1", "2", "20", "v1"])}*`,
        `${repo}:*`,
        slash > 0 ? `${repo.slice(0, slash)}/*:${pick(tags)}` : `${repo}:*-alpine`,
        slash > 0 ? `${repo.slice(0, slash + 1)}${repo.slice(slash + 1).replace(/-[0-9]+$/, "-*")}` : `${repo}:${pick(tags)}*`
      ])
    }
    const g = groups[int(groups.length)]
    const scope = rng() < 0.1 ? pick(["linux/amd64", "linux/arm64"]) : undefined
    const phaseId = g.phases[int(2)].id
    const key = `${phaseId}|${fromImage}|${scope ?? ""}`
    if (keys.has(key)) {
      i-- // drawn again
      continue
    }
    keys.add(key)
    counts[k < 0.6 ? "exact" : k < 0.8 ? "repository" : "pattern"]++
    g.published.push({
      id: Id.make("mapping", idBytes(100_000 + i)),
      key: `${fromImage}|${scope ?? ""}`,
      fromImage,
      toImage: `registry.acme.internal:5000/mirror/${repo.split("/").pop()}:${pick(tags)}`,
      ...(scope ? { platformScope: scope } : {}),
      ...(rng() < 0.2 ? { order: int(10) } : {}),
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
      phaseId,
      activeFrom: rng() < 0.05 ? "2027-01-01T00:00:00.000Z" : "2026-01-01T00:00:00.000Z"
    })
  }
  return { counts, groups }
}
