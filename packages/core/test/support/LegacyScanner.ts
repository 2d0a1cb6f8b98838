/**
 * Finds the container image references a repository's files use: Dockerfiles, Compose files,
 * Kubernetes manifests (also Helm-rendered), GitHub Actions workflows and actions, GitLab CI.
 * Pure text in, findings out: nothing is fetched, run or rendered, and no input makes it throw.
 * What each kind of file yields, and what is not evaluated, is in docs/scanning.md.
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { normalizedText } from "../../src/ImageReference.js"
import { normalizePlatformScope } from "../../src/Platform.js"

export const FileKind = Schema.Literals(["dockerfile", "compose", "kubernetes", "workflow", "action", "gitlab-ci"])
export type FileKind = typeof FileKind.Type

export const Finding = Schema.Struct({
  kind: FileKind,
  /** The path as given to the scanner. */
  file: Schema.String,
  /** 1-based line of `reference`. */
  line: Schema.Int,
  /** 1-based column (UTF-16 code units) where `reference` starts on that line. */
  column: Schema.Int,
  /** The text exactly as written at line:column, e.g. `node:20`, `${BASE}:${TAG}`, `{{ .Values.image }}`. */
  reference: Schema.String,
  /** The image the text stands for (after ARG substitution or YAML unescaping); absent when unresolved. */
  image: Schema.optionalKey(Schema.String),
  /** `image` after Docker's familiar-name normalization; absent when it is not a valid reference. */
  normalized: Schema.optionalKey(Schema.String),
  /** Canonical platform (`linux/arm64`) when the file states one for this use. */
  platform: Schema.optionalKey(Schema.String),
  /** Dockerfile: the stage this `FROM` starts (`FROM image AS name`). */
  stage: Schema.optionalKey(Schema.String),
  /** Variables or template expressions the scanner does not evaluate; set when the image cannot be known. */
  unresolved: Schema.optionalKey(Schema.Array(Schema.String))
})
export type Finding = typeof Finding.Type

export interface ScanOptions {
  /** Dockerfile build arguments (`--build-arg NAME=value`): they override `ARG` defaults. */
  readonly buildArgs?: Readonly<Record<string, string>>
}

// File kinds --------------------------------------------------------------------------------------

const baseName = (path: string) => path.slice(path.lastIndexOf("/") + 1)

/**
 * How a file is read, from its path alone; `undefined` when the scanner never reads it. Other
 * `.yml`/`.yaml` files are read as Kubernetes manifests: only documents with `apiVersion` and
 * `kind` yield findings.
 */
export const fileKind = (path: string): FileKind | undefined => {
  const p = path.replace(/\\/g, "/")
  const base = baseName(p)
  if (/\.dockerignore$/i.test(base)) return undefined // `Dockerfile.dockerignore` is an ignore file
  if (/^(?:docker|container)file(?:\..*)?$/i.test(base) || /\.(?:docker|container)file$/i.test(base)) return "dockerfile"
  if (!/\.ya?ml$/i.test(base)) return undefined
  if (/(?:^|\/)\.github\/workflows\/[^/]+$/.test(p)) return "workflow"
  if (/^action\.ya?ml$/.test(base)) return "action"
  if (/(?:^|\.)gitlab-ci\.ya?ml$/i.test(base) || /(?:^|\/)\.gitlab\/ci\//.test(p)) return "gitlab-ci"
  if (/^(?:docker-compose|compose)[^/]*\.ya?ml$/i.test(base)) return "compose"
  return "kubernetes"
}

/** Whether the scanner reads this path at all (a branch scan fetches only these files). */
export const isScannable = (path: string): boolean => fileKind(path) !== undefined

// Shared helpers ----------------------------------------------------------------------------------

const splitLines = (content: string): Array<string> => {
  const lines = content.split(/\r\n|\r|\n/)
  // a byte-order mark becomes a space: columns stay those of the text as stored
  if (lines[0]?.charCodeAt(0) === 0xfeff) lines[0] = ` ${lines[0].slice(1)}`
  return lines
}

const isWs = (c: string | undefined) => c === " " || c === "\t"

const skipWs = (t: string, p: number) => {
  while (p < t.length && isWs(t[p])) p++
  return p
}

const indentOf = (t: string) => skipWs(t, 0)

const canonicalPlatform = (text: string | undefined): string | undefined => {
  if (text === undefined) return undefined
  const p = normalizePlatformScope(text)
  return Result.isSuccess(p) && p.success !== "" ? p.success : undefined
}

interface Draft {
  readonly line: number
  readonly column: number
  readonly reference: string
  readonly image?: string | undefined
  readonly unresolved?: ReadonlyArray<string> | undefined
  readonly platform?: string | undefined
  readonly stage?: string | undefined
}

const toFinding = (kind: FileKind, file: string, d: Draft): Finding => {
  const normalized = d.image === undefined ? undefined : Result.getOrUndefined(normalizedText(d.image))
  return {
    kind,
    file,
    line: d.line,
    column: d.column,
    reference: d.reference,
    ...(d.unresolved !== undefined && d.unresolved.length > 0 ? { unresolved: d.unresolved } : {}),
    ...(d.image !== undefined && (d.unresolved === undefined || d.unresolved.length === 0) ? { image: d.image } : {}),
    ...(normalized !== undefined && (d.unresolved === undefined || d.unresolved.length === 0) ? { normalized } : {}),
    ...(d.platform !== undefined ? { platform: d.platform } : {}),
    ...(d.stage !== undefined ? { stage: d.stage } : {})
  }
}

// Dockerfiles -------------------------------------------------------------------------------------

/** Value of a Dockerfile variable: a string, or `null` when declared without a value (a build arg). */
type Vars = ReadonlyMap<string, string | null>

const MAX_EXPANSION_DEPTH = 16
const nameRe = /[A-Za-z_][A-Za-z0-9_]*/y

/**
 * Dockerfile variable substitution (`$NAME`, `${NAME}`, `${NAME:-word}`, `${NAME-word}`,
 * `${NAME:+word}`, `${NAME+word}`), as BuildKit does it, with one difference: a variable without a
 * value is reported as unresolved instead of expanding to "".
 */
const expandVars = (
  s: string,
  vars: Vars,
  escape: string,
  depth = 0
): { readonly value: string; readonly unresolved: ReadonlyArray<string> } => {
  const unresolved: Array<string> = []
  if (depth > MAX_EXPANSION_DEPTH) return { value: s, unresolved: [s] }
  let out = ""
  let k = 0
  while (k < s.length) {
    const c = s[k]!
    if (c === escape && s[k + 1] === "$") {
      out += "$"
      k += 2
      continue
    }
    if (c !== "$") {
      out += c
      k++
      continue
    }
    if (s[k + 1] === "{") {
      let level = 0
      let close = -1
      for (let q = k + 1; q < s.length; q++) {
        if (s[q] === "{") level++
        else if (s[q] === "}" && --level === 0) {
          close = q
          break
        }
      }
      if (close < 0) {
        out += c
        k++
        continue
      }
      const inner = s.slice(k + 2, close)
      k = close + 1
      const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-+])([\s\S]*))?$/.exec(inner)
      if (m === null) {
        unresolved.push(inner) // other modifiers (`${A#x}`, `${A%x}`, ...) are not evaluated
        continue
      }
      const [, name = "", op, word = ""] = m
      const v = vars.get(name)
      const known = typeof v === "string"
      const use = (w: string) => {
        const r = expandVars(w, vars, escape, depth + 1)
        out += r.value
        unresolved.push(...r.unresolved)
      }
      if (op === undefined) {
        if (known) out += v
        else unresolved.push(name)
      } else if (op === ":-") {
        if (known && v !== "") out += v
        else use(word)
      } else if (op === "-") {
        if (known) out += v
        else use(word)
      } else if (op === ":+") {
        if (known && v !== "") use(word)
      } else if (known) {
        use(word) // "+"
      }
      continue
    }
    nameRe.lastIndex = k + 1
    const m = nameRe.exec(s)
    if (m === null) {
      out += c
      k++
      continue
    }
    const v = vars.get(m[0])
    if (typeof v === "string") out += v
    else unresolved.push(m[0])
    k += 1 + m[0].length
  }
  return { value: out, unresolved }
}

/** Shell-like words of an ARG line, quotes kept so that single-quoted values stay literal. */
const argWords = (text: string): Array<string> => {
  const words: Array<string> = []
  let word = ""
  let quote: string | undefined
  for (const c of text) {
    if (quote !== undefined) {
      word += c
      if (c === quote) quote = undefined
    } else if (c === '"' || c === "'") {
      word += c
      quote = c
    } else if (isWs(c)) {
      if (word !== "") words.push(word)
      word = ""
    } else {
      word += c
    }
  }
  if (word !== "") words.push(word)
  return words
}

const unquoteArg = (value: string, vars: Vars, escape: string): string | null => {
  let literal = ""
  let expandable = true
  if (value.length >= 2 && value[0] === "'" && value.endsWith("'")) {
    literal = value.slice(1, -1)
    expandable = false
  } else if (value.length >= 2 && value[0] === '"' && value.endsWith('"')) {
    literal = value.slice(1, -1)
  } else {
    literal = value
  }
  if (!expandable) return literal
  const r = expandVars(literal, vars, escape)
  return r.unresolved.length > 0 ? null : r.value
}

const isCommentLine = (t: string) => t[indentOf(t)] === "#"
const isBlankLine = (t: string) => indentOf(t) >= t.length

/** Index of the line-continuation escape character, or -1 when the line does not continue. */
const continuation = (t: string, escape: string): number => {
  let e = t.length
  while (e > 0 && isWs(t[e - 1])) e--
  return e > 0 && t[e - 1] === escape ? e - 1 : -1
}

interface HeredocIndex {
  /** The first line at or after `from` that is `word` alone (a heredoc terminator). */
  readonly next: (word: string, from: number) => number | undefined
}

/** Lines that could end a heredoc, by word: finding the end of every heredoc stays linear overall. */
const heredocIndex = (lines: ReadonlyArray<string>): HeredocIndex => {
  const at = new Map<string, Array<number>>()
  lines.forEach((l, i) => {
    const word = l.trim()
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(word)) return
    const list = at.get(word)
    if (list === undefined) at.set(word, [i])
    else list.push(i)
  })
  return {
    next: (word, from) => {
      const list = at.get(word)
      if (list === undefined) return undefined
      let lo = 0
      let hi = list.length
      while (lo < hi) {
        const mid = (lo + hi) >> 1
        if (list[mid]! < from) lo = mid + 1
        else hi = mid
      }
      return list[lo]
    }
  }
}

const scanDockerfile = (lines: ReadonlyArray<string>, options: ScanOptions): Array<Draft> => {
  const out: Array<Draft> = []
  let escape = "\\"
  // parser directives: `# escape=`` ` etc., only before anything else
  for (const l of lines) {
    const m = /^\s*#\s*([A-Za-z][A-Za-z0-9_-]*)\s*=\s*(\S+)\s*$/.exec(l)
    if (m === null) break
    if (m[1]!.toLowerCase() === "escape" && (m[2] === "`" || m[2] === "\\")) escape = m[2]
  }
  const buildArgs = options.buildArgs ?? {}
  const globals = new Map<string, string | null>()
  const stages = new Set<string>()
  let seenFrom = false
  let index: HeredocIndex | undefined
  const terminators = () => (index ??= heredocIndex(lines))

  let idx = 0
  while (idx < lines.length) {
    const first = lines[idx]!
    if (isBlankLine(first) || isCommentLine(first)) {
      idx++
      continue
    }
    // one instruction: physical lines joined at their escape characters; comment and empty lines
    // inside a continuation are dropped, as Docker does
    const segments: Array<{ readonly start: number; readonly line: number }> = []
    let text = ""
    let j = idx
    while (j < lines.length) {
      const l = lines[j]!
      if (j > idx && (isCommentLine(l) || isBlankLine(l))) {
        j++
        continue
      }
      const cont = continuation(l, escape)
      segments.push({ start: text.length, line: j })
      text += cont >= 0 ? l.slice(0, cont) : l
      j++
      if (cont < 0) break
    }
    idx = j

    const segmentAt = (offset: number) => {
      let s = 0
      while (s + 1 < segments.length && segments[s + 1]!.start <= offset) s++
      return s
    }
    /** Where a word of the joined instruction is written; `undefined` when it spans a continuation. */
    const place = (start: number, length: number) => {
      const s = segmentAt(start)
      if (length > 0 && segmentAt(start + length - 1) !== s) return undefined
      const seg = segments[s]!
      return { line: seg.line + 1, column: start - seg.start + 1 }
    }

    const head = /^\s*([A-Za-z]+)(?=\s|$)/.exec(text)
    if (head === null) continue
    const instruction = head[1]!.toUpperCase()
    const words = [...text.slice(head[0].length).matchAll(/\S+/g)].map((m) => ({ text: m[0], start: head[0].length + m.index }))

    if (instruction === "ARG" && !seenFrom) {
      // only ARGs before the first FROM can be used in FROM lines
      for (const word of argWords(text.slice(head[0].length))) {
        const eq = word.indexOf("=")
        const name = eq < 0 ? word : word.slice(0, eq)
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) continue
        const given = Object.prototype.hasOwnProperty.call(buildArgs, name) ? buildArgs[name] : undefined
        if (typeof given === "string") globals.set(name, given)
        else if (eq >= 0) globals.set(name, unquoteArg(word.slice(eq + 1), globals, escape))
        else if (!globals.has(name)) globals.set(name, null)
      }
    } else if (instruction === "FROM") {
      seenFrom = true
      let k = 0
      let platformText: string | undefined
      while (k < words.length && words[k]!.text.startsWith("--")) {
        const flag = /^--platform=(.*)$/i.exec(words[k]!.text)
        if (flag !== null) platformText = flag[1]
        k++
      }
      const word = words[k]
      if (word === undefined) continue
      const stage = words[k + 1]?.text.toLowerCase() === "as" ? words[k + 2]?.text : undefined
      const expanded = word.text.length > 4096 ? { value: word.text, unresolved: [word.text] } : expandVars(word.text, globals, escape)
      const named = expanded.value.toLowerCase()
      // `scratch` and earlier stages are not images
      const isImage = !(expanded.unresolved.length === 0 && (named === "scratch" || stages.has(named)))
      if (stage !== undefined) stages.add(stage.toLowerCase())
      if (!isImage) continue
      const at = place(word.start, word.text.length)
      if (at === undefined) continue
      const platform = platformText === undefined ? undefined : expandVars(platformText, globals, escape)
      out.push({
        ...at,
        reference: word.text,
        ...(expanded.unresolved.length > 0 ? { unresolved: [...new Set(expanded.unresolved)] } : { image: expanded.value }),
        platform: platform !== undefined && platform.unresolved.length === 0 ? canonicalPlatform(platform.value) : undefined,
        stage
      })
    } else if (instruction === "COPY") {
      // `COPY --from=<image>` pulls an image unless it names a stage or a stage index
      for (const word of words) {
        if (!word.text.startsWith("--")) break
        const from = /^--from=(.+)$/.exec(word.text)
        if (from === null) continue
        const value = from[1]!
        if (value.includes("$") || /^[0-9]+$/.test(value) || stages.has(value.toLowerCase())) continue
        const at = place(word.start + 7, value.length)
        if (at !== undefined) out.push({ ...at, reference: value, image: value })
      }
    }

    if (instruction === "RUN" || instruction === "COPY" || instruction === "ADD") {
      // heredocs (`RUN <<EOF ... EOF`): their lines are content, not instructions
      for (const m of text.matchAll(/<<-?(["']?)([A-Za-z_][A-Za-z0-9_]*)\1/g)) {
        const end = terminators().next(m[2]!, idx)
        if (end !== undefined) idx = end + 1 // a heredoc that never ends is taken for text, not skipped to EOF
      }
    }
  }
  return out
}

// A small YAML reader --------------------------------------------------------------------------------
//
// Enough YAML for the keys the scanner reads: block mappings and sequences, flow collections,
// plain/quoted/block scalars, comments, anchors, aliases and merge keys (`<<`), tags (ignored),
// documents. Each scalar keeps where its text is written. Malformed input is read as far as it makes
// sense; nothing throws. Aliases point at already-read nodes, so the node graph has no cycles.

interface YScalar {
  readonly type: "scalar"
  readonly value: string
  /** The text as written (for quoted scalars: between the quotes). */
  readonly raw: string
  readonly line: number
  readonly column: number
  readonly plain: boolean
  /** Spans several lines (or is a block scalar): never an image reference. */
  readonly multiline: boolean
}
interface YMap {
  readonly type: "map"
  readonly entries: Array<{ readonly key: string; readonly value: YNode | null }>
}
interface YSeq {
  readonly type: "seq"
  readonly items: Array<YNode | null>
}
type YNode = YScalar | YMap | YSeq

const MAX_DEPTH = 200
const FLOW_INDICATORS = ",[]{}"

const isDashAt = (t: string, p: number) => t[p] === "-" && (p + 1 >= t.length || isWs(t[p + 1]))

/** End (exclusive) of a plain scalar starting at p: before a ` #` comment, trailing spaces trimmed. */
const plainEnd = (t: string, p: number) => {
  let e = t.length
  for (let q = p + 1; q < t.length; q++) {
    if (t[q] === "#" && isWs(t[q - 1])) {
      e = q
      break
    }
  }
  while (e > p && isWs(t[e - 1])) e--
  return e
}

/** Index of the quote closing the scalar opened at `open` (same line), or -1. */
const closingQuote = (t: string, from: number, quote: string) => {
  for (let q = from; q < t.length; q++) {
    if (quote === '"' && t[q] === "\\") {
      q++
      continue
    }
    if (t[q] === quote) {
      if (quote === "'" && t[q + 1] === "'") {
        q++
        continue
      }
      return q
    }
  }
  return -1
}

const doubleEscapes: Record<string, string> = {
  "0": "\0", "a": "\x07", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r", "e": "\x1b",
  " ": " ", "\"": "\"", "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029"
}

const unescapeDouble = (raw: string) =>
  raw.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[\s\S])/g, (all, e: string) => {
    if (e.length > 1) {
      const code = parseInt(e.slice(1), 16)
      return code <= 0x10ffff ? String.fromCodePoint(code) : all
    }
    return doubleEscapes[e] ?? all
  })

const unquote = (raw: string, quote: string) => (quote === '"' ? unescapeDouble(raw) : raw.replace(/''/g, "'"))

/** A block mapping key at p: `key:` followed by a space or the end of the line. */
const keyAt = (t: string, p: number): { readonly key: string; readonly after: number } | undefined => {
  const c = t[p]
  if (c === undefined) return undefined
  if (c === '"' || c === "'") {
    const end = closingQuote(t, p + 1, c)
    if (end < 0) return undefined
    const q = skipWs(t, end + 1)
    if (t[q] !== ":" || !(q + 1 >= t.length || isWs(t[q + 1]))) return undefined
    return { key: unquote(t.slice(p + 1, end), c), after: q + 1 }
  }
  if ("[]{}#|>*&!%@`,".includes(c) || isDashAt(t, p)) return undefined
  for (let q = p; q < t.length; q++) {
    if (t[q] === ":" && (q + 1 >= t.length || isWs(t[q + 1]))) {
      const key = t.slice(p, q).trimEnd()
      return key === "" ? undefined : { key, after: q + 1 }
    }
    if (t[q] === "#" && q > p && isWs(t[q - 1])) return undefined
  }
  return undefined
}

class DocumentReader {
  private i: number
  /** A "virtual" line start: the content after `- ` or `--- ` is read as if it began a line there. */
  private vline: number
  private vcol: number
  private readonly anchors = new Map<string, YNode | null>()
  /** Per quote character: a line from which no later line closes that quote (keeps unclosed quotes linear). */
  private readonly unclosedFrom = new Map<string, number>()

  constructor(private readonly lines: ReadonlyArray<string>, start: number, startCol: number, private readonly end: number) {
    this.i = start
    this.vline = startCol > 0 ? start : -1
    this.vcol = startCol > 0 ? skipWs(lines[start] ?? "", startCol) : 0
  }

  private line(i: number) {
    return this.lines[i] ?? ""
  }

  private col(i: number) {
    return i === this.vline ? this.vcol : indentOf(this.line(i))
  }

  private blank(i: number) {
    const t = this.line(i)
    const c = this.col(i)
    return c >= t.length || t[c] === "#"
  }

  private skipBlank() {
    while (this.i < this.end && this.blank(this.i)) this.i++
  }

  private virtual(p: number) {
    this.vline = this.i
    this.vcol = p
  }

  /** Skips the lines of a node nested too deep to read. */
  private skipDeeper(min: number) {
    this.i++
    while (this.i < this.end && (this.blank(this.i) || this.col(this.i) >= min)) this.i++
  }

  read(): YNode | null {
    let root: YNode | null = null
    let merged: YMap | undefined
    // a document is one node; after malformed lines (or unrendered template lines) reading resumes
    // and top-level mappings are merged
    for (;;) {
      this.skipBlank()
      if (this.i >= this.end) break
      const before = this.i
      const node = this.node(0, 0)
      if (this.i === before) this.i++
      if (node !== null && node.type === "map") {
        if (merged === undefined) merged = { type: "map", entries: [...node.entries] }
        else merged.entries.push(...node.entries)
      } else if (root === null) {
        root = node
      }
    }
    return merged ?? root
  }

  /** A block node starting on the current line, indented at least `min`. */
  private node(min: number, depth: number): YNode | null {
    this.skipBlank()
    if (this.i >= this.end) return null
    const c = this.col(this.i)
    if (c < min) return null
    return this.value(c, min - 1, depth, true, false)
  }

  /**
   * The node at column p of the current line. `owner` is the indentation of the key or dash that
   * owns it; `compact` allows a sequence or mapping to start here (`- key: v`, `- - a`);
   * `mapValue` allows a sequence at the owner's own indentation on the next lines (`key:\n- a`).
   */
  private value(p: number, owner: number, depth: number, compact: boolean, mapValue: boolean): YNode | null {
    const t = this.line(this.i)
    if (depth > MAX_DEPTH) {
      this.skipDeeper(owner + 1)
      return null
    }
    let anchor: string | undefined
    for (;;) {
      if (t[p] === "&" || t[p] === "!") {
        let q = p + 1
        while (q < t.length && !isWs(t[q])) q++
        if (t[p] === "&") anchor = t.slice(p + 1, q)
        p = skipWs(t, q)
        continue
      }
      break
    }
    let node: YNode | null
    if (p >= t.length || t[p] === "#") {
      this.i++
      this.skipBlank()
      node = null
      if (this.i < this.end) {
        const c = this.col(this.i)
        if (c > owner) node = this.node(owner + 1, depth + 1)
        else if (mapValue && c === owner && isDashAt(this.line(this.i), c)) node = this.sequence(c, depth + 1)
      }
    } else if (compact && isDashAt(t, p)) {
      this.virtual(p)
      node = this.sequence(p, depth + 1)
    } else if (compact && keyAt(t, p) !== undefined) {
      this.virtual(p)
      node = this.mapping(p, depth + 1)
    } else if (t[p] === "*") {
      let q = p + 1
      while (q < t.length && !isWs(t[q])) q++
      node = this.anchors.get(t.slice(p + 1, q)) ?? null
      this.i++
    } else if (t[p] === "|" || t[p] === ">") {
      node = this.blockScalar(p, owner)
    } else if (t.startsWith("{{", p)) {
      // an unrendered template expression (Helm, Go templates) reads best as text
      node = this.plain(p, owner)
    } else if (t[p] === "[" || t[p] === "{") {
      const cur = { li: this.i, ci: p }
      node = this.flowNode(cur, depth + 1)
      this.i = Math.max(cur.li + 1, this.i + 1)
    } else if (t[p] === '"' || t[p] === "'") {
      node = this.quoted(p)
    } else {
      node = this.plain(p, owner)
    }
    if (anchor !== undefined) this.anchors.set(anchor, node)
    return node
  }

  private mapping(c: number, depth: number): YMap {
    const entries: Array<{ key: string; value: YNode | null }> = []
    for (;;) {
      this.skipBlank()
      if (this.i >= this.end) break
      const ci = this.col(this.i)
      if (ci < c) break
      const t = this.line(this.i)
      if (ci > c) {
        this.i++ // a stray, more indented line: skipped
        continue
      }
      if (isDashAt(t, ci)) break
      const k = keyAt(t, ci)
      if (k === undefined) {
        this.i++ // not an entry (e.g. a template line): skipped
        continue
      }
      entries.push({ key: k.key, value: this.value(skipWs(t, k.after), c, depth + 1, false, true) })
    }
    return { type: "map", entries }
  }

  private sequence(c: number, depth: number): YSeq {
    const items: Array<YNode | null> = []
    for (;;) {
      this.skipBlank()
      if (this.i >= this.end) break
      const ci = this.col(this.i)
      if (ci < c) break
      const t = this.line(this.i)
      if (ci > c) {
        this.i++
        continue
      }
      if (!isDashAt(t, ci)) break
      items.push(this.value(skipWs(t, ci + 1), c, depth + 1, true, false))
    }
    return { type: "seq", items }
  }

  private plain(p: number, owner: number): YScalar {
    const t = this.line(this.i)
    const e = plainEnd(t, p)
    const raw = t.slice(p, e)
    const line = this.i + 1
    let value = raw
    let multiline = false
    this.i++
    // continuation lines: more indented than the owner; a line with `key: ` cannot continue a plain scalar
    let j = this.i
    while (j < this.end) {
      const tj = this.line(j)
      const cj = indentOf(tj)
      if (cj >= tj.length) {
        j++
        continue
      }
      if (tj[cj] === "#" || cj <= owner || keyAt(tj, cj) !== undefined) break
      value += ` ${tj.slice(cj, plainEnd(tj, cj))}`
      multiline = true
      j++
      this.i = j
    }
    return { type: "scalar", value, raw, line, column: p + 1, plain: true, multiline }
  }

  private quoted(p: number): YScalar {
    const t = this.line(this.i)
    const quote = t[p]!
    const close = closingQuote(t, p + 1, quote)
    const line = this.i + 1
    if (close >= 0) {
      const raw = t.slice(p + 1, close)
      this.i++
      return { type: "scalar", value: unquote(raw, quote), raw, line, column: p + 2, plain: false, multiline: false }
    }
    // a quoted scalar over several lines, or one never closed (then only this line is taken)
    const closing = this.closingLine(this.i, quote)
    this.i = closing === undefined ? this.i + 1 : closing.line + 1
    return { type: "scalar", value: "", raw: "", line, column: p + 2, plain: false, multiline: true }
  }

  private blockScalar(p: number, owner: number): YScalar {
    const line = this.i + 1
    this.i++
    while (this.i < this.end) {
      const t = this.line(this.i)
      const c = indentOf(t)
      if (c < t.length && c <= owner) break
      this.i++
    }
    return { type: "scalar", value: "", raw: "", line, column: p + 1, plain: false, multiline: true }
  }

  /** The first line after `from` holding a quote that closes a scalar opened before it, and where; or undefined. */
  private closingLine(from: number, quote: string): { readonly line: number; readonly at: number } | undefined {
    if (from >= (this.unclosedFrom.get(quote) ?? Infinity)) return undefined
    for (let j = from + 1; j < this.end; j++) {
      const at = closingQuote(this.line(j), 0, quote)
      if (at >= 0) return { line: j, at }
    }
    this.unclosedFrom.set(quote, from)
    return undefined
  }

  // flow collections: a character cursor that may cross lines (within the document)

  private flowSkip(cur: { li: number; ci: number }) {
    while (cur.li < this.end) {
      const t = this.line(cur.li)
      cur.ci = skipWs(t, cur.ci)
      if (cur.ci < t.length && t[cur.ci] !== "#") return
      cur.li++
      cur.ci = 0
    }
  }

  private flowNode(cur: { li: number; ci: number }, depth: number): YNode | null {
    this.flowSkip(cur)
    if (cur.li >= this.end) return null
    let anchor: string | undefined
    while (this.line(cur.li)[cur.ci] === "&" || this.line(cur.li)[cur.ci] === "!") {
      const t = this.line(cur.li)
      const start = cur.ci + 1
      cur.ci++
      while (cur.ci < t.length && !isWs(t[cur.ci]) && !FLOW_INDICATORS.includes(t[cur.ci]!)) cur.ci++
      if (t[start - 1] === "&") anchor = t.slice(start, cur.ci)
      this.flowSkip(cur)
      if (cur.li >= this.end) break
    }
    const node = this.flowValue(cur, depth)
    if (anchor !== undefined) this.anchors.set(anchor, node)
    return node
  }

  private flowValue(cur: { li: number; ci: number }, depth: number): YNode | null {
    if (cur.li >= this.end) return null
    const t = this.line(cur.li)
    const c = t[cur.ci]!
    if (c === "*") {
      const start = ++cur.ci
      while (cur.ci < t.length && !isWs(t[cur.ci]) && !FLOW_INDICATORS.includes(t[cur.ci]!)) cur.ci++
      return this.anchors.get(t.slice(start, cur.ci)) ?? null
    }
    if (c === "[" || c === "{") {
      if (depth > MAX_DEPTH) {
        this.flowSkipBalanced(cur)
        return null
      }
      cur.ci++
      return c === "[" ? this.flowSequence(cur, depth) : this.flowMapping(cur, depth)
    }
    if (c === '"' || c === "'") {
      const close = closingQuote(t, cur.ci + 1, c)
      const line = cur.li + 1
      const column = cur.ci + 2
      if (close >= 0) {
        const raw = t.slice(cur.ci + 1, close)
        cur.ci = close + 1
        return { type: "scalar", value: unquote(raw, c), raw, line, column, plain: false, multiline: false }
      }
      const closing = this.closingLine(cur.li, c)
      if (closing === undefined) {
        cur.ci = t.length
      } else {
        cur.li = closing.line
        cur.ci = closing.at + 1
      }
      return { type: "scalar", value: "", raw: "", line, column, plain: false, multiline: true }
    }
    const start = cur.ci
    while (cur.ci < t.length) {
      const ch = t[cur.ci]!
      if (FLOW_INDICATORS.includes(ch)) break
      if (ch === ":" && (cur.ci + 1 >= t.length || isWs(t[cur.ci + 1]) || FLOW_INDICATORS.includes(t[cur.ci + 1]!))) break
      if (ch === "#" && cur.ci > start && isWs(t[cur.ci - 1])) break
      cur.ci++
    }
    const raw = t.slice(start, cur.ci).trimEnd()
    return { type: "scalar", value: raw, raw, line: cur.li + 1, column: start + 1, plain: true, multiline: false }
  }

  private flowSequence(cur: { li: number; ci: number }, depth: number): YSeq {
    const items: Array<YNode | null> = []
    for (;;) {
      this.flowSkip(cur)
      if (cur.li >= this.end) break
      const t = this.line(cur.li)
      const ch = t[cur.ci]
      if (ch === "]") {
        cur.ci++
        break
      }
      if (ch === ",") {
        cur.ci++
        continue
      }
      const before = `${cur.li}:${cur.ci}`
      let item = this.flowNode(cur, depth + 1)
      this.flowSkip(cur)
      if (cur.li < this.end && this.line(cur.li)[cur.ci] === ":") {
        // `[key: value]`: a single-pair mapping
        cur.ci++
        this.flowSkip(cur)
        const next = this.line(cur.li)[cur.ci]
        const value = next === "," || next === "]" ? null : this.flowNode(cur, depth + 1)
        item = { type: "map", entries: [{ key: item?.type === "scalar" ? item.value : "", value }] }
      }
      items.push(item)
      if (`${cur.li}:${cur.ci}` === before) cur.ci++ // a stray character: skipped
    }
    return { type: "seq", items }
  }

  private flowMapping(cur: { li: number; ci: number }, depth: number): YMap {
    const entries: Array<{ key: string; value: YNode | null }> = []
    for (;;) {
      this.flowSkip(cur)
      if (cur.li >= this.end) break
      const ch = this.line(cur.li)[cur.ci]
      if (ch === "}") {
        cur.ci++
        break
      }
      if (ch === ",") {
        cur.ci++
        continue
      }
      const before = `${cur.li}:${cur.ci}`
      const key = this.flowNode(cur, depth + 1)
      this.flowSkip(cur)
      let value: YNode | null = null
      if (cur.li < this.end && this.line(cur.li)[cur.ci] === ":") {
        cur.ci++
        this.flowSkip(cur)
        const next = this.line(cur.li)[cur.ci]
        if (cur.li < this.end && next !== "," && next !== "}") value = this.flowNode(cur, depth + 1)
      }
      entries.push({ key: key?.type === "scalar" ? key.value : "", value })
      if (`${cur.li}:${cur.ci}` === before) cur.ci++
    }
    return { type: "map", entries }
  }

  /** Past the bracket that closes the one at the cursor (quotes not considered): too deep to read. */
  private flowSkipBalanced(cur: { li: number; ci: number }) {
    let level = 0
    while (cur.li < this.end) {
      const t = this.line(cur.li)
      while (cur.ci < t.length) {
        const ch = t[cur.ci++]
        if (ch === "[" || ch === "{") level++
        else if ((ch === "]" || ch === "}") && --level === 0) return
      }
      cur.li++
      cur.ci = 0
    }
  }
}

/** The documents of a YAML stream (`---` / `...` separated). */
const readYaml = (lines: ReadonlyArray<string>): Array<YNode | null> => {
  const docs: Array<YNode | null> = []
  let start = 0
  let startCol = 0
  const flush = (end: number) => {
    if (end > start) docs.push(new DocumentReader(lines, start, startCol, end).read())
  }
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!
    if (/^---(?:[ \t]|$)/.test(l)) {
      flush(i)
      start = i
      startCol = 3
    } else if (/^\.\.\.(?:[ \t]|$)/.test(l)) {
      flush(i)
      start = i + 1
      startCol = 0
    }
  }
  flush(lines.length)
  return docs
}

// Reading the YAML tree (merge keys included) ------------------------------------------------------

type Maybe = YNode | null | undefined

const mergeSources = (node: YNode | null): ReadonlyArray<YNode | null> => (node?.type === "seq" ? node.items : [node])

/** The value of `key` in a mapping: its own entries first (the last one wins), then `<<` merges in order. */
const get = (node: Maybe, key: string): Maybe => {
  if (node === null || node === undefined || node.type !== "map") return undefined
  let merges = false
  for (let k = node.entries.length - 1; k >= 0; k--) {
    const e = node.entries[k]!
    if (e.key === "<<") merges = true
    else if (e.key === key) return e.value
  }
  return merges ? getMerged(node, key, new Set()) : undefined
}

const getMerged = (node: YMap, key: string, visited: Set<YNode>): Maybe => {
  visited.add(node)
  for (const e of node.entries) {
    if (e.key !== "<<") continue
    for (const source of mergeSources(e.value)) {
      if (source === null || source.type !== "map" || visited.has(source)) continue
      for (let k = source.entries.length - 1; k >= 0; k--) {
        const x = source.entries[k]!
        if (x.key === key && key !== "<<") return x.value
      }
      const v = getMerged(source, key, visited)
      if (v !== undefined) return v
    }
  }
  return undefined
}

const hasMergeOrDuplicate = (entries: ReadonlyArray<{ readonly key: string }>) => {
  for (let a = 0; a < entries.length; a++) {
    const key = entries[a]!.key
    if (key === "<<") return true
    for (let b = a + 1; b < entries.length; b++) if (entries[b]!.key === key) return true
  }
  return false
}

/** The entries of a mapping with merged ones, each key once. */
const entriesOf = (node: Maybe): ReadonlyArray<{ readonly key: string; readonly value: YNode | null }> => {
  if (node === null || node === undefined || node.type !== "map") return []
  if (node.entries.length <= 16 && !hasMergeOrDuplicate(node.entries)) return node.entries // the usual case
  const out: Array<{ key: string; value: YNode | null }> = []
  const seen = new Set<string>()
  const visited = new Set<YNode>()
  const walk = (n: Maybe) => {
    if (n === null || n === undefined || n.type !== "map" || visited.has(n)) return
    visited.add(n)
    const own = new Map<string, YNode | null>()
    for (const e of n.entries) if (e.key !== "<<") own.set(e.key, e.value) // the last one wins, as in `get`
    for (const [key, value] of own) {
      if (seen.has(key)) continue
      seen.add(key)
      out.push({ key, value })
    }
    for (const e of n.entries) if (e.key === "<<") mergeSources(e.value).forEach(walk)
  }
  walk(node)
  return out
}

const isMap = (n: Maybe): n is YMap => n !== null && n !== undefined && n.type === "map"
const isSeq = (n: Maybe): n is YSeq => n !== null && n !== undefined && n.type === "seq"
const textOf = (n: Maybe): string | undefined => (n !== null && n !== undefined && n.type === "scalar" && !n.multiline ? n.value : undefined)

/** `${VAR}`, `$VAR`, `{{ expr }}`, `${{ expr }}`: text the scanner does not evaluate. */
const expressionRe = /\$\{\{[\s\S]*?\}\}|\{\{[\s\S]*?\}\}|\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}|\$([A-Za-z_][A-Za-z0-9_]*)/g

const expressionsIn = (value: string): Array<string> => {
  const found: Array<string> = []
  for (const m of value.matchAll(expressionRe)) {
    if (m[0] === "$$") continue
    found.push(m[1] ?? m[2] ?? m[0])
  }
  return [...new Set(found)]
}

class YamlFindings {
  readonly out: Array<Draft> = []
  private readonly seen = new Set<string>()

  /** A scalar used as an image. `prefix` (e.g. `docker://`) must start it and is not part of the reference. */
  add(node: Maybe, options: { readonly platform?: string | undefined; readonly prefix?: string } = {}) {
    if (node === null || node === undefined || node.type !== "scalar" || node.multiline) return
    if (node.plain && (node.value === "" || node.value === "~" || /^null$/i.test(node.value))) return
    let { column, raw, value } = node
    const prefix = options.prefix
    if (prefix !== undefined) {
      if (!value.startsWith(prefix) || !raw.startsWith(prefix)) return
      value = value.slice(prefix.length)
      raw = raw.slice(prefix.length)
      column += prefix.length
    }
    if (value.trim() === "" || raw === "") return
    // one finding per place in the file: anchors, merges and aliases can reach it several times
    const key = `${node.line}:${column}:${options.platform ?? ""}`
    if (this.seen.has(key)) return
    this.seen.add(key)
    const unresolved = expressionsIn(value)
    this.out.push({
      line: node.line,
      column,
      reference: raw,
      ...(unresolved.length > 0 ? { unresolved } : { image: value }),
      platform: options.platform
    })
  }
}

const scanCompose = (docs: ReadonlyArray<YNode | null>, f: YamlFindings) => {
  for (const doc of docs) {
    const services = get(doc, "services")
    // Compose file format 1 has the services at the top level
    const list = isMap(services)
      ? entriesOf(services)
      : services === undefined ? entriesOf(doc).filter((e) => !e.key.startsWith("x-") && get(e.value, "image") !== undefined) : []
    for (const { value: service } of list) {
      if (!isMap(service)) continue
      // with `build`, `image` names what compose builds, not an image it pulls
      const build = get(service, "build")
      if (build !== undefined && build !== null) continue
      f.add(get(service, "image"), { platform: canonicalPlatform(textOf(get(service, "platform"))) })
    }
  }
}

const containerKeys = ["containers", "initContainers", "ephemeralContainers"] as const

/** `nodeSelector` `kubernetes.io/arch` (and `/os` or `spec.os.name`; Linux when unstated). */
const podPlatform = (spec: YMap): string | undefined => {
  const selector = get(spec, "nodeSelector")
  const arch = textOf(get(selector, "kubernetes.io/arch")) ?? textOf(get(selector, "beta.kubernetes.io/arch"))
  if (arch === undefined) return undefined
  const os = textOf(get(selector, "kubernetes.io/os")) ?? textOf(get(selector, "beta.kubernetes.io/os")) ??
    textOf(get(get(spec, "os"), "name")) ?? "linux"
  return canonicalPlatform(`${os}/${arch}`)
}

const scanKubernetes = (docs: ReadonlyArray<YNode | null>, f: YamlFindings) => {
  const visited = new Set<YNode>()
  const walk = (node: Maybe) => {
    if (node === null || node === undefined || node.type === "scalar" || visited.has(node)) return
    visited.add(node)
    if (isSeq(node)) {
      node.items.forEach(walk)
      return
    }
    if (!isMap(node)) return
    for (const key of containerKeys) {
      const containers = get(node, key)
      if (!isSeq(containers)) continue
      const platform = podPlatform(node)
      for (const container of containers.items) f.add(get(container, "image"), { platform })
    }
    for (const e of entriesOf(node)) {
      if (e.key !== "metadata" && e.key !== "status") walk(e.value)
    }
  }
  for (const doc of docs) {
    if (textOf(get(doc, "apiVersion")) !== undefined && textOf(get(doc, "kind")) !== undefined) walk(doc)
  }
}

const dockerSteps = (steps: Maybe, f: YamlFindings) => {
  if (isSeq(steps)) for (const step of steps.items) f.add(get(step, "uses"), { prefix: "docker://" })
}

const scanWorkflow = (docs: ReadonlyArray<YNode | null>, f: YamlFindings) => {
  for (const doc of docs) {
    for (const { value: job } of entriesOf(get(doc, "jobs"))) {
      const container = get(job, "container")
      f.add(isMap(container) ? get(container, "image") : container)
      for (const { value: service } of entriesOf(get(job, "services"))) f.add(get(service, "image"))
      dockerSteps(get(job, "steps"), f)
    }
  }
}

const scanAction = (docs: ReadonlyArray<YNode | null>, f: YamlFindings) => {
  for (const doc of docs) {
    const runs = get(doc, "runs")
    f.add(get(runs, "image"), { prefix: "docker://" }) // `image: Dockerfile` is a path, not an image
    dockerSteps(get(runs, "steps"), f)
  }
}

const gitlabKeywords = new Set(["variables", "workflow", "include", "stages", "spec", "before_script", "after_script", "cache", "types"])

const gitlabPlatform = (text: string | undefined) =>
  text === undefined ? undefined : canonicalPlatform(text) ?? canonicalPlatform(`linux/${text}`)

const scanGitlab = (docs: ReadonlyArray<YNode | null>, f: YamlFindings) => {
  const image = (node: Maybe) => {
    if (isMap(node)) f.add(get(node, "name"), { platform: gitlabPlatform(textOf(get(get(node, "docker"), "platform"))) })
    else f.add(node)
  }
  const services = (node: Maybe) => {
    if (isSeq(node)) for (const s of node.items) f.add(isMap(s) ? get(s, "name") : s)
  }
  for (const doc of docs) {
    image(get(doc, "image"))
    services(get(doc, "services"))
    // `default:`, jobs and hidden jobs (`.template:`) alike
    for (const { key, value } of entriesOf(doc)) {
      if (gitlabKeywords.has(key) || key === "image" || key === "services" || !isMap(value)) continue
      image(get(value, "image"))
      services(get(value, "services"))
    }
  }
}

const yamlScanners: Record<Exclude<FileKind, "dockerfile">, (docs: ReadonlyArray<YNode | null>, f: YamlFindings) => void> = {
  compose: scanCompose,
  kubernetes: scanKubernetes,
  workflow: scanWorkflow,
  action: scanAction,
  "gitlab-ci": scanGitlab
}

// Entry points ---------------------------------------------------------------------------------------

const byPosition = (a: Finding, b: Finding) => a.line - b.line || a.column - b.column

/**
 * The image references a file uses, in the order they are written. `path` decides how the file is
 * read (see `fileKind`); files the scanner does not read give no findings.
 */
export const scanFile = (path: string, content: string, options: ScanOptions = {}): ReadonlyArray<Finding> => {
  const kind = fileKind(path)
  if (kind === undefined) return []
  const lines = splitLines(content)
  let drafts: ReadonlyArray<Draft>
  if (kind === "dockerfile") {
    drafts = scanDockerfile(lines, options)
  } else {
    const f = new YamlFindings()
    yamlScanners[kind](readYaml(lines), f)
    drafts = f.out
  }
  return drafts.map((d) => toFinding(kind, path, d)).sort(byPosition)
}

/** `scanFile` over many files, in the order given. */
export const scanFiles = (
  files: Iterable<{ readonly path: string; readonly content: string }>,
  options: ScanOptions = {}
): ReadonlyArray<Finding> => {
  const out: Array<Finding> = []
  for (const file of files) out.push(...scanFile(file.path, file.content, options))
  return out
}
