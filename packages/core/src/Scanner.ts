/**
 * Finds the container image references a repository's files use: Dockerfiles, Compose files,
 * Kubernetes manifests (also Helm-rendered), GitHub Actions workflows and actions, GitLab CI.
 * Pure text in, findings out: nothing is fetched, run or rendered, and no input makes it throw.
 * What each kind of file yields, and what is not evaluated, is in docs/scanning.md. The readers of
 * each format are the internal modules under `scanner/`; YAML is read with the `yaml` package.
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { normalizedText } from "./ImageReference.js"
import { Compose } from "./scanner/Compose.js"
import { scanDockerfile } from "./scanner/Dockerfile.js"
import type { Draft } from "./scanner/Draft.js"
import { Action, Workflow } from "./scanner/GitHubActions.js"
import { GitLabCi } from "./scanner/GitLabCi.js"
import { Kubernetes } from "./scanner/Kubernetes.js"
import { readYaml } from "./scanner/Yaml.js"
import { YamlFindings, type YamlFormat } from "./scanner/YamlFindings.js"

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

// Entry points ---------------------------------------------------------------------------------------

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

const yamlFormats: Record<Exclude<FileKind, "dockerfile">, YamlFormat> = {
  compose: Compose,
  kubernetes: Kubernetes,
  workflow: Workflow,
  action: Action,
  "gitlab-ci": GitLabCi
}

const readYamlFile = (format: YamlFormat, content: string): ReadonlyArray<Draft> => {
  // most YAML in a repository is not a manifest: parsing is the scan's main cost
  if (!format.mentions(content) && !content.includes("\\")) return []
  const yaml = readYaml(content)
  const f = new YamlFindings(yaml.position)
  format.read(yaml.documents, f)
  return f.out
}

const byPosition = (a: Finding, b: Finding) => a.line - b.line || a.column - b.column

/**
 * The image references a file uses, in the order they are written. `path` decides how the file is
 * read (see `fileKind`); files the scanner does not read give no findings.
 */
export const scanFile = (path: string, content: string, options: ScanOptions = {}): ReadonlyArray<Finding> => {
  const kind = fileKind(path)
  if (kind === undefined) return []
  const drafts = kind === "dockerfile" ? scanDockerfile(content, options.buildArgs ?? {}) : readYamlFile(yamlFormats[kind], content)
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
