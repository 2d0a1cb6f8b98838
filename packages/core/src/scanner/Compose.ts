/** Compose files: `services.<name>.image` (file format 1: services at the top level) and `platform`. */
import { canonicalPlatform } from "./Draft.js"
import type { YamlFindings, YamlFormat } from "./YamlFindings.js"
import { entriesOf, get, isMap, textOf, type YNode } from "./YamlTree.js"

const read = (docs: ReadonlyArray<YNode | null>, f: YamlFindings) => {
  for (const doc of docs) {
    const services = get(doc, "services")
    // Compose file format 1 has the services at the top level
    const list = isMap(services)
      ? entriesOf(services)
      : services === undefined
      ? entriesOf(doc).filter((e) => !e.key.startsWith("x-") && get(e.value, "image") !== undefined)
      : []
    for (const { value: service } of list) {
      if (!isMap(service)) continue
      // with `build`, `image` names what compose builds, not an image it pulls
      const build = get(service, "build")
      if (build !== undefined && build !== null) continue
      f.add(get(service, "image"), { platform: canonicalPlatform(textOf(get(service, "platform"))) })
    }
  }
}

export const Compose: YamlFormat = { mentions: (text) => text.includes("image"), read }
