/**
 * Dockerfiles: `FROM` lines (with `--platform` and stages) and `COPY --from=<image>`, after the
 * substitution of the ARGs declared before the first `FROM` (Docker's rule) and the given build args.
 */
import { canonicalPlatform, type Draft } from "./Draft.js"

const splitLines = (content: string): Array<string> => {
  const lines = content.split(/\r\n|\r|\n/)
  // a byte-order mark becomes a space: columns stay those of the text as stored
  if (lines[0]?.charCodeAt(0) === 0xfeff) lines[0] = ` ${lines[0].slice(1)}`
  return lines
}

const isWs = (c: string | undefined) => c === " " || c === "\t"

const indentOf = (t: string) => {
  let p = 0
  while (p < t.length && isWs(t[p])) p++
  return p
}

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
    } else if (c === "\"" || c === "'") {
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
  } else if (value.length >= 2 && value[0] === "\"" && value.endsWith("\"")) {
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

/** The images a Dockerfile uses, in the order written; `buildArgs` play the part of `--build-arg`. */
export const scanDockerfile = (content: string, buildArgs: Readonly<Record<string, string>>): Array<Draft> => {
  const lines = splitLines(content)
  const out: Array<Draft> = []
  let escape = "\\"
  // parser directives: `# escape=`` ` etc., only before anything else
  for (const l of lines) {
    const m = /^\s*#\s*([A-Za-z][A-Za-z0-9_-]*)\s*=\s*(\S+)\s*$/.exec(l)
    if (m === null) break
    if (m[1]!.toLowerCase() === "escape" && (m[2] === "`" || m[2] === "\\")) escape = m[2]
  }
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
