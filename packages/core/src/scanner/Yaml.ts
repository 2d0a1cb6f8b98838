/**
 * Reads a YAML stream into the scanner's tree (`YamlTree`) with the `yaml` package: its lexer and
 * parser give the concrete syntax, its composer the documents, and each node's `range` where its
 * text is written. Pure, and it never throws:
 * - documents are split at their `---` / `...` lines before parsing, so a document the parser cannot
 *   make sense of (an unclosed quote swallows the rest of its document) leaves the others whole;
 * - nesting deeper than `MAX_DEPTH` is not read (the parser and composer recurse per level);
 * - templates (`{{ ... }}`) are masked first (see `Templates`), and a lone carriage return, a line
 *   break to the scanner but not to the `yaml` package, is read as a line feed;
 * - errors in a document do not discard it: what the composer made of it is read.
 */
import { Composer, CST, isAlias, isMap, isPair, isScalar, isSeq, Lexer, LineCounter, Parser, Scalar } from "yaml"
import type { Document, Node as YamlNode } from "yaml"
import { maskTemplates } from "./Templates.js"
import type { YMap, YNode, YScalar } from "./YamlTree.js"

export interface Position {
  readonly line: number
  readonly column: number
}

export interface YamlText {
  readonly documents: ReadonlyArray<YNode | null>
  /** 1-based line and column (UTF-16 code units) of an offset in the file. */
  readonly position: (offset: number) => Position
}

/** Deeper collections are not read: the yaml package's parser and composer recurse once per level. */
const MAX_DEPTH = 200

/** Only the structure is needed: every scalar stays a string, keys may repeat, `<<` is a key like any other. */
const composerOptions = { schema: "failsafe", uniqueKeys: false, merge: false, prettyErrors: false, strict: false } as const

/** Lexemes that never open a node: the parser stays at its depth whatever it is given. */
const neutral = new Set<string>([
  "byte-order-mark",
  "doc-mode",
  "flow-error-end",
  "doc-start",
  "doc-end",
  "newline",
  "space",
  "comment",
  "directive-line"
])

/**
 * The CST of one document's text: lexemes go to the parser one by one, and once its stack is
 * `MAX_DEPTH` deep every lexeme that could open a node is given as blanks of the same length, so
 * that offsets stay right and nesting stops growing.
 */
const parseSegment = (text: string, start: number, end: number): Array<CST.Token> => {
  const parser = new Parser()
  parser.offset = start
  const tokens: Array<CST.Token> = []
  let scalarSource: "read" | "blank" | undefined
  let blankedFlows = 0
  for (const lexeme of new Lexer().lex(text.slice(start, end))) {
    let given = lexeme
    if (scalarSource !== undefined) {
      // the lexeme after a scalar marker is the scalar's text
      if (scalarSource === "blank") given = " ".repeat(lexeme.length)
      scalarSource = undefined
    } else if (parser.stack.length >= MAX_DEPTH || blankedFlows > 0) {
      const type = CST.tokenType(lexeme)
      if (type === "scalar") {
        scalarSource = "blank"
        continue
      }
      // a comma or a closing bracket of a collection that was read is given as is: neither opens a node
      const inRead = blankedFlows === 0 && (type === "comma" || type === "flow-map-end" || type === "flow-seq-end")
      if (type === "flow-map-start" || type === "flow-seq-start") blankedFlows++
      else if ((type === "flow-map-end" || type === "flow-seq-end") && blankedFlows > 0) blankedFlows--
      if (!inRead && (type === null || !neutral.has(type))) given = " ".repeat(lexeme.length)
    } else if (lexeme === CST.SCALAR) {
      scalarSource = "read"
    }
    if (given === "") continue // an empty lexeme would read as a line break
    for (const token of parser.next(given)) tokens.push(token)
  }
  for (const token of parser.end()) tokens.push(token)
  return tokens
}

/** Offsets where a document starts: the file's start and every `---` or `...` line. */
const documentStarts = (text: string): Array<number> => {
  const starts = [0]
  for (const m of text.matchAll(/^(?:---|\.\.\.)(?=[ \t\n]|$)/gm)) if (m.index > 0) starts.push(m.index)
  return starts
}

const lineCounter = (text: string): LineCounter => {
  const lc = new LineCounter()
  lc.addNewLine(0)
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lc.addNewLine(i + 1)
  return lc
}

const flowScalarTypes: Partial<Record<string, CST.FlowScalar["type"]>> = {
  [Scalar.QUOTE_DOUBLE]: "double-quoted-scalar",
  [Scalar.QUOTE_SINGLE]: "single-quoted-scalar"
}

/** Converts one composed document into the scanner's tree, aliases resolved to the nodes they name. */
class Converter {
  private readonly anchors = new Map<string, YNode | null>()

  constructor(private readonly file: string, private readonly masked: string) {}

  node(node: YamlNode | null | undefined, depth: number): YNode | null {
    if (node === null || node === undefined || depth > MAX_DEPTH) return null
    if (isAlias(node)) return this.anchors.get(node.source) ?? null
    let out: YNode | null
    if (isScalar(node)) out = this.scalar(node)
    else if (isMap(node)) out = { type: "map", entries: node.items.map((pair) => this.entry(pair.key, pair.value, depth)) }
    else if (isSeq(node)) {
      out = {
        type: "seq",
        items: node.items.map((item): YNode | null =>
          isPair(item) // `[key: value]`: a single-pair mapping
            ? { type: "map", entries: [this.entry(item.key, item.value, depth)] } satisfies YMap
            : this.node(item as YamlNode, depth + 1)
        )
      }
    } else out = null
    const anchor = (node as { readonly anchor?: string }).anchor
    if (anchor !== undefined) this.anchors.set(anchor, out) // after the node: an alias inside it names an earlier one
    return out
  }

  private entry(key: unknown, value: unknown, depth: number) {
    const k = this.node(key as YamlNode | null, depth + 1)
    return { key: k?.type === "scalar" ? k.value : "", value: this.node(value as YamlNode | null, depth + 1) }
  }

  private scalar(node: Scalar): YScalar | null {
    const [start, end] = node.range ?? [0, 0]
    const type = node.type ?? Scalar.PLAIN
    const plain = type === Scalar.PLAIN
    const written = this.file.slice(start, end)
    if (plain && written === "") return null // `key:` without a value
    const multiline = type === Scalar.BLOCK_FOLDED || type === Scalar.BLOCK_LITERAL || /[\n\r]/.test(written)
    if (plain) {
      return { type: "scalar", value: multiline ? String(node.source ?? "") : written, raw: written, offset: start, plain, multiline }
    }
    const quote = written[0]
    const closed = written.length >= 2 && written[written.length - 1] === quote
    if (!closed || multiline || flowScalarTypes[type] === undefined) {
      return { type: "scalar", value: "", raw: "", offset: start + 1, plain, multiline: true }
    }
    // a masked template inside the quotes: the value is read again from the file's own text
    const value = this.masked.slice(start, end) === written
      ? String(node.source ?? "")
      : CST.resolveAsScalar({ type: flowScalarTypes[type]!, offset: start, indent: 0, source: written })?.value ?? ""
    return { type: "scalar", value, raw: written.slice(1, -1), offset: start + 1, plain, multiline }
  }
}

/** The documents of a YAML file, in order, and where an offset of it is. */
export const readYaml = (content: string): YamlText => {
  // a lone carriage return is a line break to the scanner; the yaml package takes it for text
  const file = content.includes("\r") ? content.replace(/\r(?!\n)/g, "\n") : content
  const masked = maskTemplates(file)
  const lc = lineCounter(file)
  const documents: Array<YNode | null> = []
  const starts = documentStarts(masked)
  starts.forEach((start, i) => {
    const end = starts[i + 1] ?? masked.length
    const composed: Array<Document.Parsed> = [...new Composer(composerOptions).compose(parseSegment(masked, start, end), false, end)]
    for (const doc of composed) documents.push(new Converter(file, masked).node(doc.contents, 0))
  })
  return {
    documents,
    position: (offset) => {
      const { col, line } = lc.linePos(offset)
      return { line, column: col }
    }
  }
}
