// How the scanner reads YAML (the `yaml` package, scanner/Yaml.ts): templates, malformed documents,
// nesting bounds, line ends, and what changed from the hand-written reader it replaced.
import { assert, describe, it } from "@effect/vitest"
import * as Scanner from "../src/Scanner.js"
import { readYaml } from "../src/scanner/Yaml.js"

const summary = (f: Scanner.Finding) =>
  `${f.line}:${f.column} ${f.reference} -> ${f.image ?? (f.unresolved ? `unresolved ${f.unresolved.join(",")}` : "?")}${
    f.platform ? ` @${f.platform}` : ""
  }`
const scan = (path: string, content: string) => Scanner.scanFile(path, content).map(summary)
const lines = (...l: Array<string>) => l.join("\n")

describe("Scanner: Helm templates in YAML", () => {
  it("a template line inside a list of containers does not end the list", () => {
    const text = lines(
      "{{- if .Values.enabled }}",
      "apiVersion: v1",
      "kind: Pod",
      "spec:",
      "  containers:",
      "  - name: a",
      "    image: a:1",
      "  {{- if .Values.sidecar }}",
      "  - name: b",
      "    image: {{ .Values.sidecar.image }}",
      "    resources:",
      "      {{- toYaml .Values.resources | nindent 6 }}",
      "  {{- end }}",
      "{{- end }}"
    )
    assert.deepStrictEqual(scan("t.yaml", text), [
      "7:12 a:1 -> a:1",
      "10:12 {{ .Values.sidecar.image }} -> unresolved {{ .Values.sidecar.image }}"
    ])
  })

  it("a template alone on the line below `image:` is its value; templates keep their own text", () => {
    const text = lines(
      "apiVersion: v1",
      "kind: Pod",
      "metadata:",
      "  name: {{ include \"chart.fullname\" . }}",
      "spec:",
      "  containers:",
      "  - name: {{ .Chart.Name }}",
      "    image:",
      "      {{ .Values.image }}",
      "  - image: \"{{ include \"chart.image\" . }}\"",
      "  - {image: {{ .Values.other }}, name: x}"
    )
    assert.deepStrictEqual(scan("t.yaml", text), [
      "9:7 {{ .Values.image }} -> unresolved {{ .Values.image }}",
      // the quotes inside the template would end a YAML string: the template is read as a whole
      "10:13 {{ include \"chart.image\" . }} -> unresolved {{ include \"chart.image\" . }}",
      "11:13 {{ .Values.other }} -> unresolved {{ .Values.other }}"
    ])
  })
})

describe("Scanner: malformed and unusual YAML", () => {
  it("an unclosed quote takes the rest of its document, not the next ones", () => {
    const text = lines(
      "apiVersion: v1",
      "kind: Pod",
      "spec:",
      "  containers:",
      "  - image: \"a:1",
      "  - image: b:1",
      "---",
      "apiVersion: v1",
      "kind: Pod",
      "spec: {containers: [{image: c:1}]}"
    )
    assert.deepStrictEqual(scan("t.yaml", text), ["10:29 c:1 -> c:1"])
  })

  it("a value holding `: ` is a nested mapping to YAML, not an image", () => {
    assert.deepStrictEqual(scan("compose.yml", "services:\n  a:\n    image: nginx: 1\n  b:\n    image: redis:7\n"), [
      "5:12 redis:7 -> redis:7"
    ])
  })

  it("complex keys, and anchors on the key of a compact mapping, are read as YAML says", () => {
    assert.deepStrictEqual(scan("compose.yml", "services:\n  a:\n    ? image\n    : nginx:1\n"), ["4:7 nginx:1 -> nginx:1"])
    // `&a` names the key `image` (YAML's rule), so the alias is the text `image`, not the mapping
    const text = "services:\n  a: {image: &a x:1}\n  b:\n    image: *a\n"
    assert.deepStrictEqual(scan("compose.yml", text), ["2:17 x:1 -> x:1"])
  })

  it("errors do not discard a document: what can be read is read", () => {
    const text = "services:\n  a:\n    image: nginx:1\n    ports: [80\n  b:\n\timage: x\n"
    assert.deepStrictEqual(scan("compose.yml", text), ["3:12 nginx:1 -> nginx:1"])
  })

  it("CR, CRLF and LF line ends, and a byte-order mark, give the same places", () => {
    const text = ["\uFEFFservices:", "  a:", "    image: nginx:1", "  b:", "    image: 'redis:7'"]
    for (const eol of ["\n", "\r\n", "\r"]) {
      assert.deepStrictEqual(
        scan("compose.yml", text.join(eol)),
        ["3:12 nginx:1 -> nginx:1", "5:13 redis:7 -> redis:7"],
        JSON.stringify(eol)
      )
    }
  })

  it("a key spelled with escapes is read: a file with a backslash is always parsed", () => {
    assert.deepStrictEqual(scan("compose.yml", "services:\n  a:\n    \"im\\x61ge\": nginx:1\n"), ["3:17 nginx:1 -> nginx:1"])
  })

  it("files that name none of the keys a reader looks for give nothing", () => {
    assert.deepStrictEqual(scan("values.yaml", "image:\n  repository: nginx\n  tag: 1\n"), [])
    assert.deepStrictEqual(scan("compose.yml", "services: {}\n"), [])
  })
})

describe("Scanner: nesting bounds", () => {
  const nested = (depth: number) =>
    [
      "apiVersion: v1",
      "kind: Pod",
      "spec:",
      ...Array.from({ length: depth }, (_, i) => `${" ".repeat(2 * i + 2)}k${i}:`),
      `${" ".repeat(2 * depth + 2)}containers: [{image: deep:1}]`
    ].join("\n")

  it("containers nested 150 levels deep are found; past the bound (200) they are not read, and the next document is", () => {
    assert.deepStrictEqual(scan("t.yaml", nested(150)).map((s) => s.split(" ")[1]), ["deep:1"])
    assert.deepStrictEqual(
      scan("t.yaml", `${nested(400)}\n---\napiVersion: v1\nkind: Pod\nspec: {containers: [{image: next:1}]}\n`)
        .map((s) => s.split(" ")[1]),
      ["next:1"]
    )
  })

  it("flow collections nested past the bound, closed or not, leave the rest of the file readable", () => {
    const deepFlow = `apiVersion: v1\nkind: Pod\nx: ${"[".repeat(5000)}${"]".repeat(5000)}\nspec: {containers: [{image: a:1}]}\n`
    assert.deepStrictEqual(scan("t.yaml", deepFlow).map((s) => s.split(" ")[1]), ["a:1"])
    const unclosed = `${"{a: ".repeat(10000)}\n---\nb: 1\n`
    const docs = readYaml(unclosed).documents
    assert.strictEqual(docs.length, 2)
    const offset = unclosed.indexOf("b: 1") + 3
    assert.deepStrictEqual(docs[1], {
      type: "map",
      entries: [{ key: "b", value: { type: "scalar", value: "1", raw: "1", offset, plain: true, multiline: false } }]
    })
  })
})
