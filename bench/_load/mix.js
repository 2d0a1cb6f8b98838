// The request mix of `bench/load.js`: what a busy installation sees from CI jobs (Policy
// Automation keys: draft mappings, publish, policy reads), security staff (Security Administrator
// keys: snooze requests and their review, audit) and dashboards (Read Only keys: teams,
// repositories, findings, resolve). `weight` is per 100 requests; `role` picks the organization's
// keys (round robin); `expect` lists the statuses that count as success, anything else is an error.
//
// Each organization (`org`) holds its id, keys by role, policy groups with their internal phases,
// tracked repositories, the images the mix uses, and the snooze requests created and not yet
// reviewed in this run (filled by `after` from the answers).

/** Images the fixture repositories use and the mappings and snooze requests name. */
export const images = [
  "node:20",
  "node:22",
  "python:3.12-slim",
  "python:3.11",
  "golang:1.23",
  "alpine:3.19",
  "alpine:3.20",
  "nginx:1.27",
  "redis:7",
  "postgres:16",
  "eclipse-temurin:21",
  "debian:bookworm-slim",
  "ubuntu:24.04",
  "busybox:1.36",
  "rust:1.80",
  "ruby:3.3"
]

const pick = (xs, next) => xs[Math.floor(next() * xs.length)]
const base = (org) => `/api/v1/org/${org.id}`

export const mix = [
  // dashboards
  { name: "GET teams", weight: 12, role: "ro", expect: [200], make: (org) => ({ method: "GET", path: `${base(org)}/teams` }) },
  {
    name: "GET repositories",
    weight: 10,
    role: "ro",
    expect: [200],
    make: (org) => ({ method: "GET", path: `${base(org)}/repositories?limit=20` })
  },
  {
    name: "GET resolve",
    weight: 20,
    role: "ro",
    expect: [200],
    make: (org, next) => ({
      method: "GET",
      path: `${base(org)}/repositories/${pick(org.repositories, next)}/resolve?image=${encodeURIComponent(pick(images, next))}&branch=main`
    })
  },
  {
    name: "GET findings",
    weight: 8,
    role: "ro",
    expect: [200],
    make: (org, next) => ({ method: "GET", path: `${base(org)}/repositories/${pick(org.repositories, next)}/findings?branch=main` })
  },
  // CI: policy reads, draft mappings, publish
  {
    name: "GET policy-groups",
    weight: 4,
    role: "ci",
    expect: [200],
    make: (org) => ({ method: "GET", path: `${base(org)}/policy-groups` })
  },
  {
    name: "GET draft",
    weight: 8,
    role: "ci",
    expect: [200],
    make: (org, next) => ({ method: "GET", path: `${base(org)}/policy-groups/${pick(org.groups, next).id}/draft` })
  },
  {
    name: "GET draft mappings",
    weight: 6,
    role: "ci",
    expect: [200],
    make: (org, next) => {
      const group = pick(org.groups, next)
      return { method: "GET", path: `${base(org)}/policy-groups/${group.id}/phases/${pick(group.phases, next)}/mappings` }
    }
  },
  {
    // an upsert by fromImage: created the first time, then changed (a new pin) or unchanged
    name: "POST draft mapping",
    weight: 14,
    role: "ci",
    expect: [200, 201],
    make: (org, next) => {
      const group = pick(org.groups, next)
      const from = pick(images, next)
      return {
        method: "POST",
        path: `${base(org)}/policy-groups/${group.id}/phases/${pick(group.phases, next)}/mappings`,
        body: {
          fromImage: from,
          toImage: `registry.example.com/mirror/${from.replace(":", "-")}:pin-${Math.floor(next() * 4)}`,
          reason: "load"
        }
      }
    }
  },
  {
    name: "POST publish",
    weight: 1,
    role: "ci",
    expect: [200],
    make: (org, next) => ({ method: "POST", path: `${base(org)}/policy-groups/${pick(org.groups, next).id}/publish` })
  },
  // security staff
  {
    name: "POST snooze request",
    weight: 6,
    role: "sec",
    expect: [201],
    make: (org, next) => ({
      method: "POST",
      path: `${base(org)}/snooze-requests`,
      body: {
        repositoryId: pick(org.repositories, next),
        fromImage: pick(images, next),
        reason: "waiting for the vendor's fixed image",
        until: new Date(Date.now() + 7 * 86_400_000).toISOString()
      }
    }),
    after: (org, answer) => {
      if (typeof answer?.id === "string") org.pendingSnoozes.push(answer.id)
    }
  },
  {
    // reviews a request this run created (oldest first), or reads the pending ones while there is none
    name: "POST snooze review",
    weight: 1,
    role: "sec",
    expect: [200],
    make: (org, next) => {
      const id = org.pendingSnoozes.shift()
      return id === undefined
        ? { method: "GET", path: `${base(org)}/snooze-requests?status=pending&limit=20` }
        : { method: "POST", path: `${base(org)}/snooze-requests/${id}/review`, body: { decision: next() < 0.7 ? "approve" : "reject" } }
    }
  },
  {
    name: "GET snooze-requests",
    weight: 5,
    role: "sec",
    expect: [200],
    make: (org) => ({ method: "GET", path: `${base(org)}/snooze-requests?status=pending&limit=20` })
  },
  {
    name: "GET audit-events",
    weight: 5,
    role: "sec",
    expect: [200],
    make: (org) => ({ method: "GET", path: `${base(org)}/audit-events?limit=20` })
  }
]

/** Each role's share of the requests (0..1), to size the keys against the rate limit. */
export const roleShare = (role) =>
  mix.filter((op) => op.role === role).reduce((n, op) => n + op.weight, 0) / mix.reduce((n, op) => n + op.weight, 0)
