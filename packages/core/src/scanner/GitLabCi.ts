/** GitLab CI: `image` and `services` at the top level, under `default:`, in jobs and hidden jobs. */
import { canonicalPlatform } from "./Draft.js"
import type { YamlFindings, YamlFormat } from "./YamlFindings.js"
import { entriesOf, get, isMap, isSeq, type Maybe, textOf, type YNode } from "./YamlTree.js"

const gitlabKeywords = new Set(["variables", "workflow", "include", "stages", "spec", "before_script", "after_script", "cache", "types"])

/** `image: { docker: { platform: arm64/v8 } }`: Linux when only the architecture is written. */
const gitlabPlatform = (text: string | undefined) =>
  text === undefined ? undefined : canonicalPlatform(text) ?? canonicalPlatform(`linux/${text}`)

const read = (docs: ReadonlyArray<YNode | null>, f: YamlFindings) => {
  const image = (node: Maybe) => {
    if (isMap(node)) f.add(get(node, "name"), { platform: gitlabPlatform(textOf(get(get(node, "docker"), "platform"))) })
    else f.add(node)
  }
  const services = (node: Maybe) => {
    if (isSeq(node)) { for (const s of node.items) f.add(isMap(s) ? get(s, "name") : s) }
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

export const GitLabCi: YamlFormat = { mentions: (text) => text.includes("image") || text.includes("services"), read }
