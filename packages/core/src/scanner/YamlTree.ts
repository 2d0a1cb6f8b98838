/**
 * The YAML tree the format readers walk: mappings with their entries in order (duplicates kept),
 * sequences and scalars that know where their text is written. Aliases are the node they name, so a
 * tree is a graph without cycles. `get` and `entriesOf` apply merge keys (`<<`).
 */

export interface YScalar {
  readonly type: "scalar"
  /** The value after unescaping. */
  readonly value: string
  /** The text as written (for quoted scalars: between the quotes). */
  readonly raw: string
  /** Offset of `raw` in the file. */
  readonly offset: number
  readonly plain: boolean
  /** Spans several lines (or is a block scalar): never an image reference. */
  readonly multiline: boolean
}
export interface YMap {
  readonly type: "map"
  readonly entries: Array<{ readonly key: string; readonly value: YNode | null }>
}
export interface YSeq {
  readonly type: "seq"
  readonly items: Array<YNode | null>
}
export type YNode = YScalar | YMap | YSeq

export type Maybe = YNode | null | undefined

const mergeSources = (node: YNode | null): ReadonlyArray<YNode | null> => (node?.type === "seq" ? node.items : [node])

/** The value of `key` in a mapping: its own entries first (the last one wins), then `<<` merges in order. */
export const get = (node: Maybe, key: string): Maybe => {
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
export const entriesOf = (node: Maybe): ReadonlyArray<{ readonly key: string; readonly value: YNode | null }> => {
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

export const isMap = (n: Maybe): n is YMap => n !== null && n !== undefined && n.type === "map"
export const isSeq = (n: Maybe): n is YSeq => n !== null && n !== undefined && n.type === "seq"
export const textOf = (
  n: Maybe
): string | undefined => (n !== null && n !== undefined && n.type === "scalar" && !n.multiline ? n.value : undefined)
