import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import * as Scanner from "../src/Scanner.js"
import { imageLiteral } from "./arbitraries.js"
import { prop } from "./support/fcProp.js"
import { manifest } from "./support/scannerManifests.js"

const root = fileURLToPath(new URL("./fixtures/scanner", import.meta.url))
const walk = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]))
const fixtures = walk(root).sort().map((p) => ({ path: relative(root, p).split("\\").join("/"), content: readFileSync(p, "utf8") }))

/** One line per finding: where, what was written, and what it stands for. */
const summary = (f: Scanner.Finding) =>
  `${f.file}:${f.line}:${f.column} ${f.reference} -> ${
    f.normalized ?? (f.unresolved ? `unresolved ${f.unresolved.join(",")}` : "invalid")
  }${f.platform ? ` @${f.platform}` : ""}${f.stage ? ` as ${f.stage}` : ""}`
const scan = (path: string, content: string, options?: Scanner.ScanOptions) => Scanner.scanFile(path, content, options).map(summary)
const lineOf = (content: string, line: number) => content.split(/\r\n|\r|\n/)[line - 1] ?? ""

describe("Scanner fixtures (test/fixtures/scanner)", () => {
  const findings = Scanner.scanFiles(fixtures)

  it("finds every image of the sample repository, and nothing else", () => {
    assert.deepStrictEqual(findings.map(summary), [
      ".github/workflows/ci.yml:6:16 node:20-bookworm -> docker.io/library/node:20-bookworm",
      ".github/workflows/ci.yml:9:16 postgres:16 -> docker.io/library/postgres:16",
      ".github/workflows/ci.yml:13:16 redis -> docker.io/library/redis",
      ".github/workflows/ci.yml:17:24 ghcr.io/acme/linter:1.2 -> ghcr.io/acme/linter:1.2",
      ".github/workflows/ci.yml:18:25 alpine:3.19 -> docker.io/library/alpine:3.19",
      ".github/workflows/ci.yml:27:14 ${{ matrix.image }} -> unresolved ${{ matrix.image }}",
      ".gitlab-ci.yml:1:8 ruby:3.3 -> docker.io/library/ruby:3.3",
      ".gitlab-ci.yml:7:5 postgres:15 -> docker.io/library/postgres:15",
      ".gitlab-ci.yml:8:11 redis:7 -> docker.io/library/redis:7",
      ".gitlab-ci.yml:13:11 alpine:3.19 -> docker.io/library/alpine:3.19 @linux/arm64",
      ".gitlab-ci.yml:18:10 node:20 -> docker.io/library/node:20",
      ".gitlab-ci.yml:26:10 $CI_REGISTRY_IMAGE/deployer:latest -> unresolved CI_REGISTRY_IMAGE",
      ".gitlab/ci/build.yml:2:10 docker:27 -> docker.io/library/docker:27",
      ".gitlab/ci/build.yml:3:14 docker:27-dind -> docker.io/library/docker:27-dind",
      "Dockerfile:8:32 node:${NODE_VERSION}-${DISTRO} -> docker.io/library/node:20.11-alpine3.19 as deps",
      "Dockerfile:14:6 ${REGISTRY}/toolchain:2024.1 -> ghcr.io/acme/toolchain:2024.1 @linux/arm64 as build",
      "Dockerfile:25:6 ${PRIVATE_BASE}:latest -> unresolved PRIVATE_BASE as private",
      `Dockerfile:27:6 gcr.io/distroless/nodejs20-debian12@sha256:${"0".repeat(64)} -> gcr.io/distroless/nodejs20-debian12@sha256:${
        "0".repeat(64)
      }`,
      "Dockerfile:29:13 docker.io/library/busybox:1.36 -> docker.io/library/busybox:1.36",
      "Dockerfile.windows:2:6 mcr.microsoft.com/windows/servercore:ltsc2022 -> mcr.microsoft.com/windows/servercore:ltsc2022 as win",
      "actions/lint/action.yml:4:19 ghcr.io/acme/lint-action:4 -> ghcr.io/acme/lint-action:4",
      "chart/rendered.yaml:22:19 quay.io/acme/chart-app:1.16.0 -> quay.io/acme/chart-app:1.16.0",
      "chart/templates/deployment.yaml:11:19 {{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }} -> unresolved {{ .Values.image.repository }},{{ .Values.image.tag | default .Chart.AppVersion }}",
      "chart/templates/deployment.yaml:17:18 prom/statsd-exporter:v0.26.0 -> docker.io/prom/statsd-exporter:v0.26.0",
      `compose.prod.yaml:3:12 docker.io/acme/web@sha256:${"1".repeat(64)} -> docker.io/acme/web@sha256:${"1".repeat(64)}`,
      "compose.prod.yaml:5:12 Acme/Web:1 -> invalid",
      "docker-compose.yml:4:11 ghcr.io/acme/worker:3.2 -> ghcr.io/acme/worker:3.2 @linux/amd64",
      "docker-compose.yml:7:29 redis:7.2-alpine -> docker.io/library/redis:7.2-alpine",
      "docker-compose.yml:19:13 postgres:16 -> docker.io/library/postgres:16 @linux/arm64",
      "docker-compose.yml:21:19 nginx -> docker.io/library/nginx",
      "docker-compose.yml:26:12 ${APP_IMAGE:-acme/app}:${TAG} -> unresolved APP_IMAGE,TAG",
      "k8s/app.yaml:24:18 ghcr.io/acme/migrate:1.4 -> ghcr.io/acme/migrate:1.4 @linux/arm64",
      "k8s/app.yaml:27:18 ghcr.io/acme/api:2.0.1 -> ghcr.io/acme/api:2.0.1 @linux/arm64",
      "k8s/app.yaml:31:19 envoyproxy/envoy:v1.29.1 -> docker.io/envoyproxy/envoy:v1.29.1 @linux/arm64",
      "k8s/app.yaml:43:45 alpine:3.19 -> docker.io/library/alpine:3.19",
      "k8s/app.yaml:46:20 busybox -> docker.io/library/busybox",
      "k8s/app.yaml:57:24 registry.k8s.io/pause:3.9 -> registry.k8s.io/pause:3.9",
      "services/api/api.Dockerfile:1:6 python:3.12-slim -> docker.io/library/python:3.12-slim as base",
      "services/api/api.Dockerfile:3:6 alpine:${LATE} -> unresolved LATE"
    ])
  })

  it("every finding's line holds its reference at its column", () => {
    const byPath = new Map(fixtures.map((f) => [f.path, f.content]))
    for (const f of findings) {
      assert.strictEqual(
        lineOf(byPath.get(f.file)!, f.line).slice(f.column - 1, f.column - 1 + f.reference.length),
        f.reference,
        summary(f)
      )
    }
  })

  it("says what kind of file each finding comes from", () => {
    const kinds = new Map(findings.map((f) => [f.file, f.kind]))
    assert.deepStrictEqual(Object.fromEntries(kinds), {
      ".github/workflows/ci.yml": "workflow",
      ".gitlab-ci.yml": "gitlab-ci",
      ".gitlab/ci/build.yml": "gitlab-ci",
      "Dockerfile": "dockerfile",
      "Dockerfile.windows": "dockerfile",
      "actions/lint/action.yml": "action",
      "chart/rendered.yaml": "kubernetes",
      "chart/templates/deployment.yaml": "kubernetes",
      "compose.prod.yaml": "compose",
      "docker-compose.yml": "compose",
      "k8s/app.yaml": "kubernetes",
      "services/api/api.Dockerfile": "dockerfile"
    })
  })
})

describe("Scanner.fileKind", () => {
  it("reads files by name", () => {
    const cases: Array<[string, Scanner.FileKind | undefined]> = [
      ["Dockerfile", "dockerfile"],
      ["docker/Dockerfile.prod", "dockerfile"],
      ["api.Dockerfile", "dockerfile"],
      ["dockerfile", "dockerfile"],
      ["Containerfile", "dockerfile"],
      ["Dockerfile.dockerignore", undefined],
      ["Dockerfile.md", "dockerfile"],
      ["docker-compose.yml", "compose"],
      ["docker-compose.override.yaml", "compose"],
      ["deploy/compose.prod.yml", "compose"],
      [".github/workflows/ci.yaml", "workflow"],
      [".github/workflows/nested/ci.yaml", "kubernetes"],
      ["sub\\.github\\workflows\\ci.yml", "workflow"],
      [".gitlab-ci.yml", "gitlab-ci"],
      ["ci/build.gitlab-ci.yml", "gitlab-ci"],
      [".gitlab/ci/test.yml", "gitlab-ci"],
      ["action.yml", "action"],
      ["k8s/deployment.yaml", "kubernetes"],
      ["values.yml", "kubernetes"],
      ["README.md", undefined],
      ["deployment.json", undefined],
      ["src/main.ts", undefined]
    ]
    for (const [path, kind] of cases) assert.strictEqual(Scanner.fileKind(path), kind, path)
    assert.isTrue(Scanner.isScannable("Dockerfile"))
    assert.isFalse(Scanner.isScannable("main.go"))
  })
})

describe("Scanner: Dockerfiles", () => {
  it("a later FROM naming a stage is not an image (case-insensitive); scratch is not an image", () => {
    assert.deepStrictEqual(scan("Dockerfile", "FROM golang:1.22 AS Build\nFROM build\nFROM BUILD AS again\nFROM scratch\nFROM again\n"), [
      "Dockerfile:1:6 golang:1.22 -> docker.io/library/golang:1.22 as Build"
    ])
  })

  it("a stage may take the name of an image; later FROMs of that name mean the stage", () => {
    assert.deepStrictEqual(scan("Dockerfile", "FROM node:20 AS node\nFROM node\n"), [
      "Dockerfile:1:6 node:20 -> docker.io/library/node:20 as node"
    ])
  })

  it("only ARGs before the first FROM apply to FROM lines; build args override defaults", () => {
    const text = "ARG A=1\nARG B\nFROM img:$A\nARG C=3\nFROM img:${C}\nFROM img:${B}\n"
    assert.deepStrictEqual(scan("Dockerfile", text), [
      "Dockerfile:3:6 img:$A -> docker.io/library/img:1",
      "Dockerfile:5:6 img:${C} -> unresolved C",
      "Dockerfile:6:6 img:${B} -> unresolved B"
    ])
    assert.deepStrictEqual(scan("Dockerfile", text, { buildArgs: { A: "9", B: "2", C: "3" } }), [
      "Dockerfile:3:6 img:$A -> docker.io/library/img:9",
      "Dockerfile:5:6 img:${C} -> unresolved C",
      "Dockerfile:6:6 img:${B} -> docker.io/library/img:2"
    ])
  })

  it("substitutes ${VAR:-default}, ${VAR:+alt}, ARG defaults built from earlier ARGs, and escaped dollars", () => {
    const text = [
      "ARG REG=ghcr.io",
      "ARG IMG=${REG}/acme/app",
      "ARG EMPTY=",
      "ARG UNSET",
      "FROM ${IMG}:1",
      "FROM ${UNSET:-alpine}:${EMPTY:-3}",
      "FROM alpine${EMPTY:+-never}${REG:+:3.19}",
      "FROM 'x' AS y",
      "FROM ${REG#ghcr}"
    ].join("\n")
    assert.deepStrictEqual(scan("Dockerfile", text), [
      "Dockerfile:5:6 ${IMG}:1 -> ghcr.io/acme/app:1",
      "Dockerfile:6:6 ${UNSET:-alpine}:${EMPTY:-3} -> docker.io/library/alpine:3",
      "Dockerfile:7:6 alpine${EMPTY:+-never}${REG:+:3.19} -> docker.io/library/alpine:3.19",
      "Dockerfile:8:6 'x' -> invalid as y",
      "Dockerfile:9:6 ${REG#ghcr} -> unresolved REG#ghcr"
    ])
  })

  it("reads --platform (normalized; build-time platform args are not known) and line continuations", () => {
    assert.deepStrictEqual(
      scan(
        "Dockerfile",
        "FROM --platform=linux/aarch64 a:1\nFROM --platform=$TARGETPLATFORM b:1\nFROM --platform=bogus c:1\nFROM \\\n  # comment inside\n\n  d:1 \\\n  AS d\n"
      ),
      [
        "Dockerfile:1:31 a:1 -> docker.io/library/a:1 @linux/arm64",
        "Dockerfile:2:33 b:1 -> docker.io/library/b:1",
        "Dockerfile:3:23 c:1 -> docker.io/library/c:1",
        "Dockerfile:7:3 d:1 -> docker.io/library/d:1 as d"
      ]
    )
  })

  it("ignores comments, heredoc bodies, COPY --from of stages, indexes and variables", () => {
    const text =
      "# FROM a:1\n  # FROM b:1\nFROM c:1 AS c\nRUN <<EOT bash\nFROM d:1\nEOT\nCOPY --from=c /a /b\nCOPY --from=0 /a /b\nCOPY --from=$X /a /b\nCOPY --chown=1 --from=e:1 /a /b\nRUN echo FROM f:1\n"
    assert.deepStrictEqual(scan("Dockerfile", text), [
      "Dockerfile:3:6 c:1 -> docker.io/library/c:1 as c",
      "Dockerfile:10:23 e:1 -> docker.io/library/e:1"
    ])
  })

  it("reports digest-pinned and tag-less references", () => {
    const digest = `sha256:${"f".repeat(64)}`
    assert.deepStrictEqual(scan("x.Dockerfile", `FROM alpine\nFROM alpine@${digest}\n`), [
      "x.Dockerfile:1:6 alpine -> docker.io/library/alpine",
      `x.Dockerfile:2:6 alpine@${digest} -> docker.io/library/alpine@${digest}`
    ])
  })
})

describe("Scanner: YAML files", () => {
  it("compose: anchors and merges are reported once per place and platform, where the text is written", () => {
    const text = "x-a: &a\n  image: base:1\nservices:\n  one: *a\n  two:\n    <<: *a\n  three:\n    <<: [*a]\n    image: own:2\n"
    assert.deepStrictEqual(scan("compose.yml", text), [
      "compose.yml:2:10 base:1 -> docker.io/library/base:1",
      "compose.yml:9:12 own:2 -> docker.io/library/own:2"
    ])
  })

  it("compose: quoted values are unescaped; the reference is the text between the quotes", () => {
    const [f] = Scanner.scanFile("compose.yaml", "services:\n  a:\n    image: \"nginx\\u003a1\"\n")
    assert.strictEqual(f?.reference, "nginx\\u003a1")
    assert.strictEqual(f?.image, "nginx:1")
    assert.strictEqual(f?.normalized, "docker.io/library/nginx:1")
  })

  it("compose: null images, builds and non-service keys give nothing; version 1 files list services at the top", () => {
    assert.deepStrictEqual(scan("compose.yml", "services:\n  a:\n    image: ~\n  b:\n    image: null\n  c: {build: ., image: x:1}\n"), [])
    assert.deepStrictEqual(scan("docker-compose.yml", "web:\n  image: nginx:1\nx-ext:\n  image: no:1\n"), [
      "docker-compose.yml:2:10 nginx:1 -> docker.io/library/nginx:1"
    ])
  })

  it("kubernetes: only documents with apiVersion and kind; block scalars are text; CRLF and a byte-order mark are fine", () => {
    const text =
      "\uFEFFapiVersion: v1\r\nkind: Pod\r\nspec:\r\n  containers:\r\n  - name: a\r\n    image: a:1 # comment\r\n    args:\r\n    - |\r\n      image: b:1\r\n---\r\ncontainers: [{image: c:1}]\r\n"
    assert.deepStrictEqual(scan("pod.yaml", text), ["pod.yaml:6:12 a:1 -> docker.io/library/a:1"])
  })

  it("kubernetes: the platform comes from nodeSelector (os defaults to linux, or spec.os.name)", () => {
    const pod = (selector: string) => `apiVersion: v1\nkind: Pod\nspec:\n${selector}  containers: [{image: a}]\n`
    assert.deepStrictEqual(scan("p.yaml", pod("  nodeSelector: {kubernetes.io/arch: amd64}\n")), [
      "p.yaml:5:24 a -> docker.io/library/a @linux/amd64"
    ])
    assert.deepStrictEqual(scan("p.yaml", pod("  os: {name: windows}\n  nodeSelector: {beta.kubernetes.io/arch: amd64}\n")), [
      "p.yaml:6:24 a -> docker.io/library/a @windows/amd64"
    ])
    assert.deepStrictEqual(scan("p.yaml", pod("  nodeSelector: {kubernetes.io/os: linux}\n")), ["p.yaml:5:24 a -> docker.io/library/a"])
  })

  it("workflows: only docker:// uses are images; reusable workflows and actions are not", () => {
    const text =
      "jobs:\n  a:\n    uses: org/repo/.github/workflows/x.yml@v1\n  b:\n    steps:\n    - uses: actions/setup-node@v4\n    - uses: docker://\n    - uses: docker://x:1\n"
    assert.deepStrictEqual(scan(".github/workflows/w.yml", text), [".github/workflows/w.yml:8:22 x:1 -> docker.io/library/x:1"])
  })

  it("actions: `image: Dockerfile` is a path", () => {
    assert.deepStrictEqual(scan("action.yaml", "runs:\n  using: docker\n  image: Dockerfile\n"), [])
  })
})

// Properties ---------------------------------------------------------------------------------------

const paths = fc.constantFrom(
  "Dockerfile",
  "app.Dockerfile",
  "docker-compose.yml",
  "compose.yaml",
  "k8s/x.yaml",
  ".github/workflows/ci.yml",
  ".gitlab-ci.yml",
  "action.yml",
  "notes.txt"
)
/** Lines made of the pieces the readers care about, at random indentation. */
const yamlish = fc.array(
  fc.tuple(
    fc.integer({ min: 0, max: 8 }),
    fc.array(
      fc.constantFrom(
        "- ",
        "image: ",
        "containers:",
        "services:",
        "jobs:",
        "apiVersion: v1",
        "kind: Pod",
        "spec:",
        "<<: ",
        "&a ",
        "*a",
        "&b ",
        "*b",
        "{",
        "}",
        "[",
        "]",
        ", ",
        "\"",
        "'",
        "|",
        ">",
        "# ",
        "---",
        "...",
        "nginx:1",
        "${X}",
        "{{ .V }}",
        "docker://a:1",
        "FROM ",
        "ARG X=1",
        " AS s",
        "\\",
        "`",
        "--platform=linux/arm64 ",
        "$",
        "\t",
        ":",
        "name: ",
        "build: .",
        "<<EOF",
        "EOF",
        "\u00e9",
        "\uFEFF",
        "uses: ",
        "container: ",
        "platform: ",
        "nodeSelector:",
        "kubernetes.io/arch: arm64"
      ),
      { maxLength: 6 }
    )
  ).map(([indent, parts]) => " ".repeat(indent) + parts.join("")),
  { maxLength: 30 }
).chain((lines) => fc.constantFrom("\n", "\r\n", "\r").map((eol) => lines.join(eol)))
const text = fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: "binary", maxLength: 200 }), yamlish)

describe("Scanner properties", () => {
  prop("random text never throws, is deterministic, and every finding's line holds its reference", [paths, text], ([path, content]) => {
    const a = Scanner.scanFile(path, content)
    assert.deepStrictEqual(Scanner.scanFile(path, content), a)
    for (const f of a) {
      assert.strictEqual(f.file, path)
      assert.isAtLeast(f.line, 1)
      assert.isAtLeast(f.column, 1)
      assert.isAbove(f.reference.length, 0)
      assert.strictEqual(lineOf(content, f.line).slice(f.column - 1, f.column - 1 + f.reference.length), f.reference)
      assert.isTrue(f.normalized === undefined || f.image !== undefined)
      assert.isTrue(f.unresolved === undefined || (f.image === undefined && f.unresolved.length > 0))
    }
  }, { fastCheck: { numRuns: 2000 } })

  prop("scanFiles is scanFile over each file, in order", [fc.array(fc.tuple(paths, text), { maxLength: 5 })], ([files]) => {
    const list = files.map(([path, content]) => ({ path, content }))
    assert.deepStrictEqual(Scanner.scanFiles(list), list.flatMap((f) => Scanner.scanFile(f.path, f.content)))
  })

  it("deep nesting and alias fan-out stay bounded", () => {
    // the header makes the reader parse the file (a file that names no key the reader looks for is not parsed)
    const pod = "apiVersion: v1\nkind: Pod\n# containers\n"
    const deep = Array.from({ length: 5000 }, (_, i) => `${" ".repeat(i)}k${i}:`).join("\n")
    assert.deepStrictEqual(Scanner.scanFile("x.yaml", pod + deep), [])
    assert.deepStrictEqual(Scanner.scanFile("x.yaml", pod + "[".repeat(20000)), [])
    assert.deepStrictEqual(Scanner.scanFile("x.yaml", `${pod}${"- ".repeat(5000)}a`), [])
    assert.deepStrictEqual(Scanner.scanFile("x.yaml", `${pod}a: ${"&x ".repeat(20000)}b`), [])
    // climbing back from a deep nesting at once (the yaml parser recurses per level it closes)
    const sawtooth = Array.from({ length: 6000 }, (_, i) => `${" ".repeat(i % 3000)}k${i}:`).join("\n")
    assert.deepStrictEqual(Scanner.scanFile("x.yaml", pod + sawtooth), [])
    const laughs = ["apiVersion: v1", "kind: Pod", "a0: &a0 {containers: [{image: x:1}]}"]
    for (let i = 1; i < 30; i++) laughs.push(`a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(", ")}]`)
    assert.deepStrictEqual(scan("x.yaml", laughs.join("\n")), ["x.yaml:3:31 x:1 -> docker.io/library/x:1"])
    const dollars = `FROM ${"${a:-".repeat(3000)}x${"}".repeat(3000)}`
    assert.strictEqual(Scanner.scanFile("Dockerfile", dollars).length, 1)
  })

  // what a user writes is what the scanner reports: generated files with known images
  const image = imageLiteral
  const quoting = fc.constantFrom((s: string) => s, (s: string) => `"${s}"`, (s: string) => `'${s}'`)
  const comment = fc.constantFrom("", "  # pinned", " #x")

  prop(
    "compose: every service image is found on its line",
    [fc.array(fc.tuple(image, quoting, comment), { minLength: 1, maxLength: 6 })],
    ([services]) => {
      const lines = ["# generated", "services:"]
      const expected: Array<string> = []
      services.forEach(([img, quote, note], i) => {
        lines.push(`  svc${i}:`, `    restart: always`, `    image: ${quote(img)}${note}`)
        expected.push(`${lines.length}:${img}`)
      })
      assert.deepStrictEqual(Scanner.scanFile("compose.yml", lines.join("\n")).map((f) => `${f.line}:${f.image}`), expected)
    }
  )

  prop("kubernetes: every container image of every document is found on its line", [
    fc.array(fc.array(fc.tuple(image, quoting), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 })
  ], ([docs]) => {
    const lines: Array<string> = []
    const expected: Array<string> = []
    for (const containers of docs) {
      lines.push("---", "apiVersion: apps/v1", "kind: Deployment", "spec:", "  template:", "    spec:", "      containers:")
      containers.forEach(([img, quote], i) => {
        lines.push(`      - name: c${i}`, `        image: ${quote(img)}`)
        expected.push(`${lines.length}:${img}`)
      })
    }
    assert.deepStrictEqual(Scanner.scanFile("k8s.yaml", lines.join("\n")).map((f) => `${f.line}:${f.image}`), expected)
  })

  // Compose, Kubernetes (with Helm template lines), workflows and GitLab CI in the styles people write
  // them; before the yaml package replaced the hand-written reader, both gave these findings (except
  // where the old one lost the items after a template line inside a sequence, see docs/scanning.md)
  prop("generated manifests: every image is found where it is written, and nothing else", [manifest], ([m]) => {
    const got = Scanner.scanFile(m.path, m.content).map((f) =>
      `${f.line}:${f.column} ${f.reference} -> ${f.image ?? `unresolved ${f.unresolved!.join(",")}`}${f.platform ? ` @${f.platform}` : ""}`
    )
    assert.deepStrictEqual(got, m.expected, m.content)
  }, { fastCheck: { numRuns: 1000 } })

  prop("dockerfile: every FROM image is found, stage references are not", [fc.array(image, { minLength: 1, maxLength: 5 })], ([images]) => {
    const lines: Array<string> = []
    images.forEach((img, i) => lines.push(`FROM ${img} AS s${i}`, "RUN true"))
    lines.push("FROM s0")
    assert.deepStrictEqual(
      Scanner.scanFile("Dockerfile", lines.join("\n")).map((f) => `${f.line}:${f.image}`),
      images.map((img, i) => `${2 * i + 1}:${img}`)
    )
  })
})
