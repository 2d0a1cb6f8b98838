/**
 * The SARIF 2.1.0 report (`--format sarif`), as GitHub code scanning takes it
 * (`github/codeql-action/upload-sarif`): one rule per mapping that judged a finding, its id the
 * mapping's key (`Mapping.mappingKey`: the normalized fromImage and platform scope, the same from
 * run to run); one result per out-of-policy or snoozed finding (a snoozed one carries a
 * suppression), located by line and UTF-16 column as the scanner reports them, with the
 * replacement in the message and, where `--fix` would rewrite it, as a fix that replaces exactly
 * the reference's text.
 */
import { type Decision, Mapping, Remediation, version } from "@image-policy/core"
import * as Report from "./Report.js"

const schema = "https://json.schemastore.org/sarif-2.1.0.json"

/** A relative path as a URI reference: each segment percent-encoded, `/` kept. */
export const uriOf = (path: string): string => path.split("/").map(encodeURIComponent).join("/")

type Resolution = NonNullable<Decision.Decision["resolution"]>

const keyOf = (r: Resolution) => Mapping.mappingKey(r.fromImage, r.platformScope)

const ruleOf = (id: string, r: Resolution) => {
  const scope = r.platformScope === undefined ? "" : ` on ${r.platformScope}`
  const text = `Use ${r.toImage} instead of ${r.fromImage}${scope}`
  return {
    id,
    shortDescription: { text },
    fullDescription: { text: r.mappingReason === undefined ? `${text}.` : `${text}: ${r.mappingReason}` },
    help: {
      text:
        `The image policy maps ${r.fromImage}${scope} to ${r.toImage}. Replace the reference (image-policy check --fix does it), or ask for a snooze.`
    },
    defaultConfiguration: { level: "error" },
    properties: {
      tags: ["container-image-policy"],
      fromImage: r.fromImage,
      toImage: r.toImage,
      ...(r.platformScope === undefined ? {} : { platformScope: r.platformScope }),
      policyGroupId: r.policyGroupId,
      phaseId: r.phaseId,
      mappingId: r.mappingId
    }
  }
}

export const sarif = (findings: ReadonlyArray<Remediation.DecidedFinding>): string => {
  const reported = findings.filter((f) => {
    const status = Report.statusOf(f)
    return status === "out-of-policy" || status === "snoozed"
  })
  // a key names one mapping within a phase; two groups may each have one: then the id tells them apart
  const idsByKey = new Map<string, Set<string>>()
  for (const { decision } of reported) {
    const r = decision!.resolution!
    const ids = idsByKey.get(keyOf(r)) ?? new Set()
    idsByKey.set(keyOf(r), ids.add(r.mappingId))
  }
  const ruleIdOf = (r: Resolution) => (idsByKey.get(keyOf(r))!.size === 1 ? keyOf(r) : `${keyOf(r)}|${r.mappingId}`)
  const rules = new Map<string, Resolution>()
  for (const { decision } of reported) rules.set(ruleIdOf(decision!.resolution!), decision!.resolution!)
  const ruleIds = [...rules.keys()].sort()
  const ruleIndex = new Map(ruleIds.map((id, i) => [id, i]))

  // the fixes are exactly `--fix`'s edits
  const changes = new Map(Remediation.changesOf(findings).map((c) => [`${c.file}:${c.line}:${c.column}`, c]))
  const results = reported.map(({ decision, finding }) => {
    const r = decision!.resolution!
    const ruleId = ruleIdOf(r)
    const region = { startLine: finding.line, startColumn: finding.column, endColumn: finding.column + finding.reference.length }
    const artifactLocation = { uri: uriOf(finding.file) }
    const change = changes.get(`${finding.file}:${finding.line}:${finding.column}`)
    const scope = finding.platform === undefined ? "" : ` (${finding.platform})`
    return {
      ruleId,
      ruleIndex: ruleIndex.get(ruleId)!,
      level: "error",
      message: {
        text: decision!.snoozed === undefined
          ? `${finding.reference}${scope} is out of policy: use ${r.toImage} instead (${Remediation.reasonOf(r)}).`
          : `${finding.reference}${scope} maps to ${r.toImage} (${Remediation.reasonOf(r)}), snoozed until ${decision!.snoozed.until}.`
      },
      locations: [{ physicalLocation: { artifactLocation, region } }],
      ...(change === undefined ? {} : {
        fixes: [{
          description: { text: `Replace ${change.from} with ${change.to}` },
          artifactChanges: [{ artifactLocation, replacements: [{ deletedRegion: region, insertedContent: { text: change.to } }] }]
        }]
      }),
      ...(decision!.snoozed === undefined ? {} : {
        suppressions: [{
          kind: "external",
          status: "accepted",
          justification: `snoozed until ${decision!.snoozed.until} (snooze request ${decision!.snoozed.snoozeRequestId})`
        }]
      })
    }
  })
  return JSON.stringify(
    {
      $schema: schema,
      version: "2.1.0",
      runs: [{
        tool: {
          driver: {
            name: "image-policy",
            version,
            semanticVersion: version,
            rules: ruleIds.map((id) => ruleOf(id, rules.get(id)!))
          }
        },
        columnKind: "utf16CodeUnits",
        results
      }]
    },
    null,
    2
  ) + "\n"
}
