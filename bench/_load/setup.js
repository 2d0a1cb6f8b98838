// Pieces of `bench/load.js`: the seed file it serves, CPU readings from /proc, and a slope.
import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { images } from "./mix.js"

const secret = () => `ipk_load_${randomBytes(24).toString("hex")}`

/**
 * `o.orgs` enterprise organizations, each with three teams (a routine each), a fixture GitHub
 * connection with `o.repos` repositories whose Dockerfiles use the mix's images, two policy groups
 * (one for every repository, one assigned to none) with internal phases, an Owner key for the setup
 * and `o.keys` keys per role for the load.
 */
export const seedFile = (o) => ({
  organizations: Array.from({ length: o.orgs }, (_, n) => ({
    id: `org_load${n}`,
    name: `Load ${n}`,
    edition: "enterprise",
    teams: ["Platform", "Payments", "Data"].map((name) => ({ name, routines: [{ name: "Weekly", active: true, intervalDays: 7 }] })),
    vcsConnections: [{
      provider: "github",
      externalAccountName: `load-${n}`,
      fixture: {
        repositories: Array.from({ length: o.repos }, (_, r) => ({
          externalRepoId: String(1000 + r),
          fullName: `load-${n}/service-${r}`,
          defaultBranch: "main",
          branches: ["main"],
          files: {
            main: {
              Dockerfile: `FROM ${images[r % images.length]} AS build\nRUN make\nFROM ${images[(r + 5) % images.length]}\n`,
              "compose.yaml": `services:\n  db:\n    image: ${images[(r + 9) % images.length]}\n`
            }
          }
        }))
      }
    }],
    policyGroups: [
      {
        name: "Base images",
        applyToAllRepos: true,
        phases: [{ name: "Curated", source: "internal" }, { name: "Hotfixes", source: "internal" }]
      },
      { name: "Experiments", applyToAllRepos: false, phases: [{ name: "Trial", source: "internal" }] }
    ],
    apiKeys: [
      { name: "admin", secret: secret(), role: "Owner", expiresInDays: null },
      ...Array.from({ length: o.keys }, (_, k) => [
        { name: `ro-${k}`, secret: secret(), role: "Read Only", expiresInDays: null },
        { name: `ci-${k}`, secret: secret(), role: "Policy Automation", expiresInDays: null },
        { name: `sec-${k}`, secret: secret(), role: "Security Administrator", expiresInDays: null }
      ]).flat()
    ]
  }))
})

const ticksPerSecond = 100

/** CPU seconds (user + system) a process has used, from /proc (Linux); NaN elsewhere. */
export const hostCpuSeconds = (pid) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond
  } catch {
    return Number.NaN
  }
}

/** The machine's busy and total jiffies; with `since`, the busy share (0..1) since that reading. */
export const machineBusy = (since) => {
  let now
  try {
    const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number)
    const idle = cpu[3] + cpu[4]
    const total = cpu.reduce((a, b) => a + b, 0)
    now = { busy: total - idle, total }
  } catch {
    now = { busy: Number.NaN, total: Number.NaN }
  }
  return since === undefined ? now : (now.busy - since.busy) / (now.total - since.total)
}

/** Least-squares slope of [x, y] points (0 for fewer than two). */
export const slope = (points) => {
  if (points.length < 2) return 0
  const n = points.length
  const mx = points.reduce((a, [x]) => a + x, 0) / n
  const my = points.reduce((a, [, y]) => a + y, 0) / n
  const sxy = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0)
  const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0)
  return sxx === 0 ? 0 : sxy / sxx
}

/**
 * CPU seconds of the PostgreSQL backends serving database `name` (same machine, /proc), followed
 * over samples: `sample()` reads every backend now connected; `seconds()` is the CPU they used
 * since the first sample (a backend that appeared later counts from 0; one that closed between two
 * samples loses its last interval).
 */
export const postgresCpu = async (client, name) => {
  const first = new Map()
  const last = new Map()
  let started = false
  const sample = async () => {
    const { rows } = await client.query("SELECT pid FROM pg_stat_activity WHERE datname = $1", [name])
    for (const { pid } of rows) {
      const cpu = hostCpuSeconds(pid)
      if (!Number.isFinite(cpu)) continue
      if (!first.has(pid)) first.set(pid, started ? 0 : cpu)
      last.set(pid, cpu)
    }
  }
  await sample()
  started = true
  return { sample, seconds: () => [...last].reduce((sum, [pid, cpu]) => sum + cpu - first.get(pid), 0) }
}
