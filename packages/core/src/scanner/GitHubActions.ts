/** GitHub Actions: workflows' job containers, service containers and `docker://` steps; Docker actions' `runs`. */
import type { YamlFindings, YamlFormat } from "./YamlFindings.js"
import { entriesOf, get, isMap, isSeq, type Maybe, type YNode } from "./YamlTree.js"

const dockerSteps = (steps: Maybe, f: YamlFindings) => {
  if (isSeq(steps)) { for (const step of steps.items) f.add(get(step, "uses"), { prefix: "docker://" }) }
}

const readWorkflow = (docs: ReadonlyArray<YNode | null>, f: YamlFindings) => {
  for (const doc of docs) {
    for (const { value: job } of entriesOf(get(doc, "jobs"))) {
      const container = get(job, "container")
      f.add(isMap(container) ? get(container, "image") : container)
      for (const { value: service } of entriesOf(get(job, "services"))) f.add(get(service, "image"))
      dockerSteps(get(job, "steps"), f)
    }
  }
}

const readAction = (docs: ReadonlyArray<YNode | null>, f: YamlFindings) => {
  for (const doc of docs) {
    const runs = get(doc, "runs")
    f.add(get(runs, "image"), { prefix: "docker://" }) // `image: Dockerfile` is a path, not an image
    dockerSteps(get(runs, "steps"), f)
  }
}

export const Workflow: YamlFormat = { mentions: (text) => text.includes("jobs"), read: readWorkflow }

export const Action: YamlFormat = { mentions: (text) => text.includes("runs"), read: readAction }
