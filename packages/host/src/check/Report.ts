/**
 * What `check` found, as a reader sees it: each finding's status, the counts, and the JSON report
 * (`--format json`, docs/cli.md#check). The statuses only name what the `Decision` says; whether a
 * finding is out of policy is `Decision.isOutOfPolicy`, nowhere else.
 */
import { Decision, type Remediation } from "@image-policy/core"

/**
 * `out-of-policy`: a mapping asks for another image; `snoozed`: it would, but a snooze request
 * suppresses it; `in-policy`: the mapping that applies asks for this very image; `no-mapping`: no
 * mapping applies; `unresolved`: the image is built from what the scanner does not evaluate;
 * `invalid`: the text is no valid image reference (or platform).
 */
export type Status = "out-of-policy" | "snoozed" | "in-policy" | "no-mapping" | "unresolved" | "invalid"

export const statuses: ReadonlyArray<Status> = ["out-of-policy", "snoozed", "in-policy", "no-mapping", "unresolved", "invalid"]

export const statusOf = ({ decision }: Remediation.DecidedFinding): Status =>
  decision === undefined
    ? "unresolved"
    : decision.invalid !== undefined
    ? "invalid"
    : decision.resolution === null
    ? "no-mapping"
    : decision.snoozed !== undefined
    ? "snoozed"
    : Decision.isOutOfPolicy(decision)
    ? "out-of-policy"
    : "in-policy"

export interface Summary {
  readonly files: number
  readonly findings: number
  readonly byStatus: Readonly<Record<Status, number>>
}

export const summaryOf = (files: number, findings: ReadonlyArray<Remediation.DecidedFinding>): Summary => {
  const byStatus = Object.fromEntries(statuses.map((s) => [s, 0])) as Record<Status, number>
  for (const f of findings) byStatus[statusOf(f)]++
  return { files, findings: findings.length, byStatus }
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** `12 files, 20 findings: 7 out of policy, 2 unresolved, 11 in policy or without a mapping`. */
export const summaryLine = ({ byStatus, files, findings }: Summary): string => {
  const parts = [
    `${byStatus["out-of-policy"]} out of policy`,
    ...(byStatus.snoozed > 0 ? [`${byStatus.snoozed} snoozed`] : []),
    ...(byStatus.unresolved > 0 ? [`${byStatus.unresolved} unresolved`] : []),
    ...(byStatus.invalid > 0 ? [`${byStatus.invalid} invalid`] : []),
    `${byStatus["in-policy"] + byStatus["no-mapping"]} in policy or without a mapping`
  ]
  return `${plural(files, "file")}, ${plural(findings, "finding")}: ${parts.join(", ")}`
}

/** The JSON report's version: a field is only ever added within one version. */
export const jsonReportVersion = 1

/**
 * `{ version, summary, findings }`: every finding as the scanner gives it (`file`, `line`,
 * `column`, `reference`, `image`, ...) with its `status` and the `decision` on its image (the
 * decision API's `Decision`; `null` when the image is unresolved).
 */
export const json = (files: number, findings: ReadonlyArray<Remediation.DecidedFinding>): string => {
  const summary = summaryOf(files, findings)
  return JSON.stringify(
    {
      version: jsonReportVersion,
      summary: {
        files: summary.files,
        findings: summary.findings,
        outOfPolicy: summary.byStatus["out-of-policy"],
        snoozed: summary.byStatus.snoozed,
        inPolicy: summary.byStatus["in-policy"],
        noMapping: summary.byStatus["no-mapping"],
        unresolved: summary.byStatus.unresolved,
        invalid: summary.byStatus.invalid
      },
      findings: findings.map((f) => ({ ...f.finding, status: statusOf(f), decision: f.decision ?? null }))
    },
    null,
    2
  ) + "\n"
}
