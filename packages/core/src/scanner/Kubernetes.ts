/**
 * Kubernetes manifests (Helm output too): the `image` of every container of a pod spec anywhere in a
 * document that has `apiVersion` and `kind`, except under `metadata` and `status`.
 */
import { canonicalPlatform } from "./Draft.js"
import type { YamlFindings, YamlFormat } from "./YamlFindings.js"
import { entriesOf, get, isMap, isSeq, type Maybe, textOf, type YMap, type YNode } from "./YamlTree.js"

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

const read = (docs: ReadonlyArray<YNode | null>, f: YamlFindings) => {
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

export const Kubernetes: YamlFormat = {
  // `ontainers`: containers, initContainers and ephemeralContainers
  mentions: (text) => text.includes("apiVersion") && text.includes("kind") && text.includes("ontainers"),
  read
}
