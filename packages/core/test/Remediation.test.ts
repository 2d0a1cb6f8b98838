/**
 * Remediation on real-world files (only the reference text changes) and Remediation.plan: the
 * winning mapping's provenance, snoozes, and a place two platforms disagree on. Rewriting:
 * Remediation.rewrite.test.ts; the request's branch, title, body and failure kind:
 * Remediation.request.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import * as Remediation from "../src/Remediation.js"
import * as Scanner from "../src/Scanner.js"
import type * as SnoozeRequest from "../src/SnoozeRequest.js"
import { compile, gid, mapping, now, pid, policy, remediate, snooze } from "./support/remediation.js"

describe("Remediation on real-world files: only the reference text changes", () => {
  it("multi-stage Dockerfile with ARGs, CRLF line endings and comments", () => {
    const before = [
      "# syntax=docker/dockerfile:1.7",
      "ARG NODE_VERSION=20",
      "ARG BASE=alpine:3.18",
      "",
      "FROM node:${NODE_VERSION} AS deps   # built from an ARG: not rewritten",
      "RUN npm ci",
      "",
      "FROM node:20 AS build  # pinned",
      "COPY --from=deps /app /app",
      "",
      "FROM --platform=linux/arm64 \\",
      "     alpine:3.19 AS arm",
      "FROM ${BASE}",
      "FROM busybox:1.36",
      "FROM postgres:16 AS db",
      "FROM alpine:3.19"
    ].join("\r\n") + "\r\n"
    const r = remediate("Dockerfile", before, policy)
    assert.deepStrictEqual(r.changes.map((c) => `${c.line}:${c.column} ${c.from} -> ${c.to}`), [
      "8:6 node:20 -> node:20.11.1",
      "12:6 alpine:3.19 -> alpine:3.19.1",
      "16:6 alpine:3.19 -> alpine:3.20"
    ])
    assert.deepStrictEqual(r.skipped, [])
    assert.strictEqual(
      r.content,
      before.replace("FROM node:20 AS build", "FROM node:20.11.1 AS build")
        .replace("     alpine:3.19 AS arm", "     alpine:3.19.1 AS arm")
        .replace(/FROM alpine:3.19\r\n$/, "FROM alpine:3.20\r\n")
    )
    assert.strictEqual(r.content.split("\r\n").length, before.split("\r\n").length)
  })

  it("compose file with anchors and merge keys: one place, one change, quotes and comments kept", () => {
    const before = [
      "x-worker: &worker",
      "  image: \"redis:7\"   # shared by both workers",
      "  restart: unless-stopped",
      "",
      "services:",
      "  worker-a:",
      "    <<: *worker",
      "  worker-b:",
      "    <<: *worker",
      "  db:",
      "    image: 'postgres:16'",
      "  cache: { image: redis:7, ports: [\"6379:6379\"] }",
      "  app:",
      "    image: ${APP_IMAGE:-node:20}",
      ""
    ].join("\n")
    const r = remediate("docker-compose.yml", before, policy)
    assert.deepStrictEqual(r.changes.map((c) => `${c.line}:${c.column} ${c.from} -> ${c.to}`), [
      "2:11 redis:7 -> redis:7.4",
      "12:19 redis:7 -> redis:7.4"
    ])
    assert.strictEqual(
      r.content,
      before.replace("image: \"redis:7\"   #", "image: \"redis:7.4\"   #").replace("{ image: redis:7,", "{ image: redis:7.4,")
    )
  })

  it("Kubernetes Deployment with initContainers on arm64 nodes: platform-specific mappings apply", () => {
    const before = [
      "apiVersion: apps/v1",
      "kind: Deployment",
      "metadata:",
      "  name: api",
      "spec:",
      "  template:",
      "    spec:",
      "      nodeSelector:",
      "        kubernetes.io/arch: arm64",
      "      initContainers:",
      "        - name: migrate",
      "          image: ghcr.io/acme/migrate:1.4",
      "        - name: wait",
      "          image: alpine:3.19 # waits for the database",
      "      containers:",
      "        - name: api",
      "          image: \"ghcr.io/acme/api:2.0.1\"",
      "        - name: escaped",
      "          image: \"ghcr.io/acme/api:2.0\\x2e1\"",
      ""
    ].join("\n")
    const r = remediate("deploy/api.yaml", before, policy)
    assert.deepStrictEqual(r.changes.map((c) => `${c.line}:${c.column} ${c.from} -> ${c.to}`), [
      "12:18 ghcr.io/acme/migrate:1.4 -> ghcr.io/acme/migrate:1.5",
      "14:18 alpine:3.19 -> alpine:3.19.1",
      "17:19 ghcr.io/acme/api:2.0.1 -> ghcr.io/acme/api:2.0.2"
    ])
    assert.strictEqual(
      r.content,
      before.replace("migrate:1.4", "migrate:1.5").replace("alpine:3.19 #", "alpine:3.19.1 #").replace("api:2.0.1\"", "api:2.0.2\"")
    )
  })

  it("GitHub workflow: job container, service containers and docker:// steps", () => {
    const before = [
      "\uFEFFname: CI",
      "on: [push]",
      "jobs:",
      "  test:",
      "    runs-on: ubuntu-latest",
      "    container: node:20",
      "    services:",
      "      cache:",
      "        image: redis:7",
      "    steps:",
      "      - uses: actions/checkout@v4",
      "      - uses: 'docker://alpine:3.18'",
      "        with: { args: echo hi }",
      ""
    ].join("\n")
    const r = remediate(".github/workflows/ci.yml", before, policy)
    assert.deepStrictEqual(r.changes.map((c) => `${c.line}:${c.column} ${c.from} -> ${c.to}`), [
      "6:16 node:20 -> node:20.11.1",
      "9:16 redis:7 -> redis:7.4",
      "12:25 alpine:3.18 -> alpine:3.20"
    ])
    assert.strictEqual(
      r.content,
      before.replace("container: node:20", "container: node:20.11.1").replace("image: redis:7", "image: redis:7.4").replace(
        "docker://alpine:3.18",
        "docker://alpine:3.20"
      )
    )
    assert.isTrue(r.content.startsWith("\uFEFF"), "the byte-order mark stays")
  })
})

describe("Remediation.plan", () => {
  const compose = "services:\n  web:\n    image: nginx:1.25\n  api:\n    image: node:20\n"
  const findings = Scanner.scanFile("compose.yaml", compose)
  const published = [mapping("nginx:*", "nginx:1.27"), mapping("node:20", "node:22")]
  const planned = (snoozes: ReadonlyArray<SnoozeRequest.SnoozeRequest>) =>
    Remediation.plan({ findings, policy: compile(published), snoozes, now }).map((c) => c.to)

  it("each change carries the winning mapping's group, phase, id and reason", () => {
    const [change] = Remediation.plan({ findings, policy: compile(published), snoozes: [], now })
    assert.deepStrictEqual(change, {
      file: "compose.yaml",
      line: 3,
      column: 12,
      from: "nginx:1.25",
      to: "nginx:1.27",
      policyGroupId: gid,
      phaseId: pid,
      mappingId: published[0]!.id,
      reason: "selected: pattern match"
    })
    assert.isTrue(Schema.is(Remediation.RemediationChange)(change))
  })

  it("an approved, unexpired snooze of the image or of the mapping's fromImage suppresses the change", () => {
    assert.deepStrictEqual(planned([]), ["nginx:1.27", "node:22"])
    assert.deepStrictEqual(planned([snooze("docker.io/library/nginx:1.25", "approved")]), ["node:22"])
    assert.deepStrictEqual(planned([snooze("nginx:*", "approved")]), ["node:22"])
    assert.deepStrictEqual(planned([snooze("node:20", "approved")]), ["nginx:1.27"])
  })

  it("pending, rejected and expired snoozes, or an approved one past its until, suppress nothing", () => {
    for (
      const s of [
        snooze("nginx:1.25", "pending"),
        snooze("nginx:1.25", "rejected"),
        snooze("nginx:1.25", "expired"),
        snooze("nginx:1.25", "approved", "2026-06-01T00:00:00.000Z")
      ]
    ) {
      assert.deepStrictEqual(planned([s]), ["nginx:1.27", "node:22"], s.status)
    }
  })

  it("a place read for two platforms that want different images is left alone", () => {
    const file = [
      "x-pod: &pod",
      "  containers:",
      "    - name: app",
      "      image: alpine:3.19",
      "apiVersion: v1",
      "kind: List",
      "items:",
      "  - apiVersion: v1",
      "    kind: Pod",
      "    spec:",
      "      <<: *pod",
      "      nodeSelector: { kubernetes.io/arch: arm64 }",
      "  - apiVersion: v1",
      "    kind: Pod",
      "    spec: *pod"
    ].join("\n")
    const readings = Scanner.scanFile("pods.yaml", file)
    assert.strictEqual(readings.length, 2, "one place, read for arm64 and for no platform")
    const split = Remediation.plan({ findings: readings, policy: compile(policy), snoozes: [], now })
    assert.deepStrictEqual(split, [])
    const same = Remediation.plan({ findings: readings, policy: compile([mapping("alpine:3.19", "alpine:3.21")]), snoozes: [], now })
    assert.deepStrictEqual(same.map((c) => `${c.line}:${c.column} ${c.to}`), ["4:14 alpine:3.21"])
  })
})
