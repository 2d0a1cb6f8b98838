/**
 * The table report (`--format table`, the default): one row per finding with its place, the image
 * as written, the replacement (or why there is none), the reason and the snooze, then the summary.
 */
import { Remediation } from "@image-policy/core"
import * as Report from "./Report.js"

const header = ["LOCATION", "IMAGE", "REPLACEMENT", "REASON", "SNOOZED"] as const

const rowOf = (decided: Remediation.DecidedFinding): ReadonlyArray<string> => {
  const { decision, finding } = decided
  const place = `${finding.file}:${finding.line}:${finding.column}`
  // what the text stands for when it is not the image itself (an ARG, a YAML escape), and where it runs
  const image = `${finding.reference}${finding.image !== undefined && finding.image !== finding.reference ? ` (${finding.image})` : ""}${
    finding.platform === undefined ? "" : ` [${finding.platform}]`
  }`
  const status = Report.statusOf(decided)
  const snoozed = decision?.snoozed === undefined ? "-" : `until ${decision.snoozed.until}`
  switch (status) {
    case "unresolved":
      return [place, image, "unresolved", `not evaluated: ${(finding.unresolved ?? []).join(", ")}`, snoozed]
    case "invalid":
      return [place, image, "invalid", decision?.invalid?.message ?? "", snoozed]
    case "no-mapping":
      return [place, image, "no mapping", "-", snoozed]
    default: {
      const resolution = decision!.resolution!
      const reason = Remediation.reasonOf(resolution)
      return [place, image, resolution.toImage, status === "in-policy" ? `already the mapped image (${reason})` : reason, snoozed]
    }
  }
}

/** Control characters of a file (a tab, an escape) would break the table's columns or the terminal. */
const printable = (cell: string) =>
  [...cell].map((c) => {
    const code = c.charCodeAt(0)
    return code < 0x20 || (code >= 0x7f && code <= 0x9f) ? "?" : c
  }).join("")

export const table = (files: number, findings: ReadonlyArray<Remediation.DecidedFinding>): string => {
  const rows = [header, ...findings.map(rowOf)].map((row) => row.map(printable))
  const widths = header.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)))
  const lines = findings.length === 0
    ? []
    : rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ").trimEnd())
  return [...lines, ...(lines.length > 0 ? [""] : []), Report.summaryLine(Report.summaryOf(files, findings))].join("\n") + "\n"
}
