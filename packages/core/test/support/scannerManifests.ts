// Generated YAML manifests with the findings they must give: Compose files, Kubernetes manifests (Helm
// templates too), GitHub workflows and GitLab CI files, written in the styles people use (block and
// flow collections, plain and quoted values, escapes, comments, anchors and merge keys, several
// documents, template lines, CRLF or CR line ends, a byte-order mark). Each image is placed by the
// generator, which knows its line and column: the expectation is fixed by construction.
import * as fc from "fast-check"
import { imageLiteral } from "../arbitraries.js"

export interface Manifest {
  readonly path: string
  readonly content: string
  /** `line:column reference -> image` (or `-> unresolved a,b`), `@platform` when there is one, in file order. */
  readonly expected: ReadonlyArray<string>
}

interface Image {
  /** The value as the file means it. */
  readonly image: string
  /** How it is written after `key: ` (quotes included), and where the reference starts in it. */
  readonly written: string
  readonly offset: number
  readonly reference: string
  readonly unresolved?: ReadonlyArray<string>
}

const literal = imageLiteral

/** An image value as written: plain, quoted (an escape in double quotes), a variable or a template. */
const image: fc.Arbitrary<Image> = fc.oneof(
  literal.map((i) => ({ image: i, written: i, offset: 0, reference: i })),
  literal.map((i) => ({ image: i, written: `'${i}'`, offset: 1, reference: i })),
  literal.map((i) => ({ image: i, written: `"${i}"`, offset: 1, reference: i })),
  literal.filter((i) => i.includes(":")).map((i) => {
    const reference = i.replace(":", "\\u003a")
    return { image: i, written: `"${reference}"`, offset: 1, reference }
  }),
  fc.constantFrom(
    { image: "", written: "${REGISTRY}/app:${TAG}", offset: 0, reference: "${REGISTRY}/app:${TAG}", unresolved: ["REGISTRY", "TAG"] },
    {
      image: "",
      written: "\"{{ .Values.repo }}:{{ .Values.tag }}\"",
      offset: 1,
      reference: "{{ .Values.repo }}:{{ .Values.tag }}",
      unresolved: ["{{ .Values.repo }}", "{{ .Values.tag }}"]
    },
    { image: "", written: "{{ .Values.image }}", offset: 0, reference: "{{ .Values.image }}", unresolved: ["{{ .Values.image }}"] },
    { image: "", written: "$CI_REGISTRY_IMAGE/app:1", offset: 0, reference: "$CI_REGISTRY_IMAGE/app:1", unresolved: ["CI_REGISTRY_IMAGE"] }
  )
)

interface Style {
  readonly step: number
  /** `key:` then `- item` at the key's own indentation (as kubectl writes) or indented. */
  readonly seqIndented: boolean
  readonly comment: string
  readonly eol: "\n" | "\r\n" | "\r"
  readonly bom: boolean
  /** Template-only lines (`{{- if }}` / `{{- end }}`) around items. */
  readonly templates: boolean
  readonly blankLines: boolean
}

const style: fc.Arbitrary<Style> = fc.record({
  step: fc.constantFrom(2, 4),
  seqIndented: fc.boolean(),
  comment: fc.constantFrom("", "  # pinned", " #x"),
  eol: fc.constantFrom("\n" as const, "\r\n" as const, "\r" as const),
  bom: fc.boolean(),
  templates: fc.boolean(),
  blankLines: fc.boolean()
})

class Writer {
  readonly lines: Array<string> = ["# generated"]
  readonly expected: Array<string> = []
  constructor(readonly style: Style) {}
  line(text: string) {
    this.lines.push(text)
    if (this.style.blankLines && this.lines.length % 5 === 0) this.lines.push("")
  }
  /** `prefix` then the image, a finding at that place. */
  image(prefix: string, img: Image, platform?: string, after = "") {
    const at = `${this.lines.length + 1}:${prefix.length + img.offset + 1}`
    this.line(`${prefix}${img.written}${after}${this.style.comment}`)
    this.expect(at, img, platform)
  }
  expect(at: string, img: Image, platform?: string) {
    const what = img.unresolved === undefined ? img.image : `unresolved ${img.unresolved.join(",")}`
    this.expected.push(`${at} ${img.reference} -> ${what}${platform === undefined ? "" : ` @${platform}`}`)
  }
  template(indent: string, text: string) {
    if (this.style.templates) this.lines.push(`${indent}${text}`)
  }
  content() {
    return (this.style.bom ? "\uFEFF" : "") + this.lines.join(this.style.eol) + this.style.eol
  }
}

const pad = (n: number) => " ".repeat(n)

interface Container {
  readonly image: Image
  readonly flow: boolean
}
/** In a flow collection `{` and `}` end a plain value: there it is quoted, as users write it. */
const inFlow = (img: Image): Image =>
  img.offset === 0 && /[{}]/.test(img.written) ? { ...img, written: `"${img.written}"`, offset: 1 } : img

const container = fc.record({ image, flow: fc.boolean() }).map((c) => (c.flow ? { ...c, image: inFlow(c.image) } : c))

const kubernetes = fc.record({
  style,
  docs: fc.array(
    fc.record({
      kind: fc.constantFrom("Deployment", "CronJob", "Pod"),
      arch: fc.constantFrom(undefined, "arm64", "amd64"),
      init: fc.array(container, { maxLength: 2 }),
      containers: fc.array(container, { minLength: 1, maxLength: 3 }),
      decoy: fc.boolean(),
      separator: fc.constantFrom("---", "--- # next", "...\n---")
    }),
    { minLength: 1, maxLength: 3 }
  )
}).map(({ docs, style }): Manifest => {
  const w = new Writer(style)
  const s = style.step
  docs.forEach((doc, d) => {
    if (d > 0 || doc.separator.startsWith("---")) doc.separator.split("\n").forEach((l) => w.line(l))
    w.template("", "{{- if .Values.enabled }}")
    w.line(doc.kind === "CronJob" ? "apiVersion: batch/v1" : "apiVersion: apps/v1")
    w.line(`kind: ${doc.kind}`)
    w.line("metadata:")
    w.line(`${pad(s)}name: app-${d}`)
    if (doc.decoy) w.line(`${pad(s)}labels: { image: "not-a-finding:1" }`)
    w.line("spec:")
    // the pod spec's indentation
    let at = s
    if (doc.kind === "Deployment") {
      w.line(`${pad(s)}template:`)
      w.line(`${pad(2 * s)}spec:`)
      at = 3 * s
    } else if (doc.kind === "CronJob") {
      w.line(`${pad(s)}jobTemplate:`)
      w.line(`${pad(2 * s)}spec:`)
      w.line(`${pad(3 * s)}template:`)
      w.line(`${pad(4 * s)}spec:`)
      at = 5 * s
    }
    const platform = doc.arch === undefined ? undefined : `linux/${doc.arch}`
    if (doc.arch !== undefined) w.line(`${pad(at)}nodeSelector: { kubernetes.io/arch: ${doc.arch} }`)
    if (doc.decoy) {
      w.line(`${pad(at)}volumes:`)
      w.line(`${pad(at)}- name: config`)
      w.line(`${pad(at + 2)}configMap: { name: "image: not-a-finding:2" }`)
    }
    const list = (key: string, items: ReadonlyArray<Container>) => {
      if (items.length === 0) return
      w.line(`${pad(at)}${key}:`)
      const dash = style.seqIndented ? at + s : at
      items.forEach((c, i) => {
        if (i > 0) w.template(pad(dash), "{{- if .Values.sidecar }}")
        if (c.flow) {
          w.image(`${pad(dash)}- { name: c${i}, image: `, c.image, platform, " }")
        } else {
          w.line(`${pad(dash)}- name: c${i}`)
          w.image(`${pad(dash + 2)}image: `, c.image, platform)
          if (doc.decoy) {
            w.line(`${pad(dash + 2)}args:`)
            w.line(`${pad(dash + 2)}- |`)
            w.line(`${pad(dash + 4)}image: not-a-finding:3`)
          }
        }
        if (i > 0) w.template(pad(dash), "{{- end }}")
      })
    }
    list("initContainers", doc.init)
    list("containers", doc.containers)
    w.template("", "{{- end }}")
  })
  return { path: "deploy/app.yaml", content: w.content(), expected: w.expected }
})

const compose = fc.record({
  style,
  services: fc.array(
    fc.record({
      image,
      form: fc.constantFrom("block", "flow", "merged", "built", "alias"),
      platform: fc.constantFrom(undefined, "linux/arm64")
    }),
    { minLength: 1, maxLength: 5 }
  ),
  base: image
}).map(({ base, services, style }): Manifest => {
  const w = new Writer(style)
  const s = style.step
  const usesBase = services.some((x) => x.form === "merged")
  const usesAlias = services.some((x) => x.form === "alias")
  // what the anchors hold is found where it is written, once per platform that uses it
  const baseAt = { line: 0, column: 0 }
  if (usesBase) {
    w.line("x-defaults: &defaults")
    w.line(`${pad(s)}restart: always`)
    baseAt.line = w.lines.length + 1
    baseAt.column = s + 7 + base.offset + 1
    w.line(`${pad(s)}image: ${base.written}${style.comment}`)
  }
  const aliasAt = { line: 0, column: 14 + base.offset + 1 }
  if (usesAlias) {
    w.line("")
    aliasAt.line = w.lines.length + 1
    w.line(`x-image: &img ${base.written}`)
  }
  w.line("services:")
  const reached = new Map<string, { at: string; platforms: Set<string | undefined> }>()
  const reach = (at: string, platform: string | undefined) => {
    const r = reached.get(at) ?? { at, platforms: new Set() }
    r.platforms.add(platform)
    reached.set(at, r)
  }
  services.forEach((svc, i) => {
    const name = `${pad(s)}svc${i}:`
    if (svc.form === "flow") {
      const platform = svc.platform === undefined ? "" : `, platform: ${svc.platform}`
      w.image(`${name} { restart: always, image: `, inFlow(svc.image), svc.platform, `${platform} }`)
      return
    }
    w.line(name)
    if (svc.form === "merged") {
      w.line(`${pad(2 * s)}<<: *defaults`)
      reach(`${baseAt.line}:${baseAt.column}`, svc.platform)
    } else if (svc.form === "alias") {
      w.line(`${pad(2 * s)}image: *img`)
      reach(`${aliasAt.line}:${aliasAt.column}`, svc.platform)
    } else if (svc.form === "built") {
      w.line(`${pad(2 * s)}build: .`)
      w.line(`${pad(2 * s)}image: ${svc.image.written}`)
    } else {
      w.image(`${pad(2 * s)}image: `, svc.image, svc.platform)
    }
    if (svc.platform !== undefined) w.line(`${pad(2 * s)}platform: ${svc.platform}`)
    w.line(`${pad(2 * s)}environment:`)
    w.line(`${pad(3 * s)}LOG: "image: not-a-finding"`)
  })
  for (const { at, platforms } of reached.values()) for (const p of platforms) w.expect(at, base, p)
  const order = (x: string) => x.split(" ")[0]!.split(":").map(Number)
  const expected = [...w.expected].sort((a, b) => order(a)[0]! - order(b)[0]! || order(a)[1]! - order(b)[1]!)
  return { path: "docker-compose.yml", content: w.content(), expected }
})

const workflow = fc.record({
  style,
  jobs: fc.array(
    fc.record({ container: fc.option(image), flowContainer: fc.boolean(), service: fc.option(image), step: fc.option(literal) }),
    { minLength: 1, maxLength: 3 }
  )
}).map(({ jobs, style }): Manifest => {
  const w = new Writer(style)
  const s = style.step
  w.line("name: CI")
  w.line("on: [push]")
  w.line("jobs:")
  jobs.forEach((job, i) => {
    w.line(`${pad(s)}job${i}:`)
    w.line(`${pad(2 * s)}runs-on: ubuntu-latest`)
    if (job.container !== null) {
      if (job.flowContainer) {
        w.image(`${pad(2 * s)}container: { image: `, inFlow(job.container), undefined, ", options: --user }")
      } else w.image(`${pad(2 * s)}container: `, job.container)
    }
    if (job.service !== null) {
      w.line(`${pad(2 * s)}services:`)
      w.line(`${pad(3 * s)}db:`)
      w.image(`${pad(4 * s)}image: `, job.service)
    }
    w.line(`${pad(2 * s)}steps:`)
    const dash = style.seqIndented ? 3 * s : 2 * s
    w.line(`${pad(dash)}- uses: actions/checkout@v4`)
    if (job.step !== null) {
      w.image(`${pad(dash)}- uses: docker://`, { image: job.step, written: job.step, offset: 0, reference: job.step })
    }
    w.line(`${pad(dash)}- run: |`)
    w.line(`${pad(dash + 4)}docker run nginx:1`)
  })
  return { path: ".github/workflows/ci.yml", content: w.content(), expected: w.expected }
})

const gitlab = fc.record({
  style,
  top: fc.option(image),
  services: fc.array(fc.record({ image, named: fc.boolean() }), { maxLength: 3 }),
  jobs: fc.array(fc.record({ image, named: fc.boolean(), hidden: fc.boolean() }), { maxLength: 3 })
}).map(({ jobs, services, style, top }): Manifest => {
  const w = new Writer(style)
  const s = style.step
  if (top !== null) w.image("image: ", top)
  w.line("stages: [build, test]")
  w.line("variables:")
  w.line(`${pad(s)}image: not-an-image-key`)
  if (services.length > 0) {
    w.line("services:")
    const dash = style.seqIndented ? s : 0
    for (const svc of services) {
      if (svc.named) {
        w.image(`${pad(dash)}- name: `, svc.image)
        w.line(`${pad(dash + 2)}alias: db`)
      } else w.image(`${pad(dash)}- `, svc.image)
    }
  }
  jobs.forEach((job, i) => {
    w.line(`${job.hidden ? "." : ""}job${i}:`)
    if (job.named) {
      w.line(`${pad(s)}image:`)
      w.image(`${pad(2 * s)}name: `, job.image)
      w.line(`${pad(2 * s)}entrypoint: [""]`)
    } else w.image(`${pad(s)}image: `, job.image)
    w.line(`${pad(s)}script:`)
    w.line(`${pad(s)}- 'echo "image: not-a-finding"'`)
  })
  return { path: ".gitlab-ci.yml", content: w.content(), expected: w.expected }
})

export const manifest: fc.Arbitrary<Manifest> = fc.oneof(kubernetes, compose, workflow, gitlab)
