/**
 * Turns the YAML scalars a format reader takes for images into drafts: one per place in the file and
 * platform, however many anchors, merges and aliases reach it.
 */
import type { Draft } from "./Draft.js"
import { expressionsIn } from "./Expressions.js"
import type { Position } from "./Yaml.js"
import type { Maybe, YNode } from "./YamlTree.js"

/** How one kind of YAML file is read. */
export interface YamlFormat {
  /**
   * Whether the text names the keys `read` looks for: when it does not, and has no escapes (a
   * quoted key could spell one with `\u`), the file cannot hold a finding and is not parsed.
   */
  readonly mentions: (text: string) => boolean
  readonly read: (docs: ReadonlyArray<YNode | null>, f: YamlFindings) => void
}

export class YamlFindings {
  readonly out: Array<Draft> = []
  private readonly seen = new Set<string>()

  constructor(private readonly position: (offset: number) => Position) {}

  /** A scalar used as an image. `prefix` (e.g. `docker://`) must start it and is not part of the reference. */
  add(node: Maybe, options: { readonly platform?: string | undefined; readonly prefix?: string } = {}) {
    if (node === null || node === undefined || node.type !== "scalar" || node.multiline) return
    if (node.plain && (node.value === "" || node.value === "~" || /^null$/i.test(node.value))) return
    let { offset, raw, value } = node
    const prefix = options.prefix
    if (prefix !== undefined) {
      if (!value.startsWith(prefix) || !raw.startsWith(prefix)) return
      value = value.slice(prefix.length)
      raw = raw.slice(prefix.length)
      offset += prefix.length
    }
    if (value.trim() === "" || raw === "") return
    const key = `${offset}:${options.platform ?? ""}`
    if (this.seen.has(key)) return
    this.seen.add(key)
    const unresolved = expressionsIn(value)
    this.out.push({
      ...this.position(offset),
      reference: raw,
      ...(unresolved.length > 0 ? { unresolved } : { image: value }),
      platform: options.platform
    })
  }
}
