/**
 * A repository's tracked branches and each one's newest scan (status, when, commit, files and
 * findings, why it failed), with "Scan now" per branch for those who may request scans. While a
 * scan is queued or running the list asks again every few seconds.
 */
import type { Scan } from "@image-policy/core"
import { useEffect } from "react"
import { type Query, useMutation } from "../../api.js"
import { DataTable } from "../../components/DataTable.js"
import { useToast } from "../../components/Toast.js"
import { useSession } from "../../session.js"
import { asId, formatDateTime, type RepositoryId, scanFailureText, ScanStatus } from "./shared.js"

export interface BranchRow {
  readonly branchName: string
  readonly listedStatus: string
  readonly scan: Scan.BranchScan | undefined
}

/** Each tracked branch with its newest scan (scans come newest first). */
export const branchRows = (
  branches: ReadonlyArray<{ readonly branchName: string; readonly scan: { readonly status: string } }>,
  scans: ReadonlyArray<Scan.BranchScan>
): ReadonlyArray<BranchRow> => {
  const newest = new Map<string, Scan.BranchScan>()
  for (const s of scans) if (!newest.has(s.branchName)) newest.set(s.branchName, s)
  return branches.map((b) => ({ branchName: b.branchName, listedStatus: b.scan.status, scan: newest.get(b.branchName) }))
}

export const isBusy = (rows: ReadonlyArray<BranchRow>) =>
  rows.some((r) => {
    const status = r.scan?.status ?? r.listedStatus
    return status === "queued" || status === "running"
  })

export function Branches(props: {
  readonly repositoryId: string
  readonly rows: ReadonlyArray<BranchRow>
  readonly scans: Query<unknown>
  readonly onScanned: () => void
}) {
  const { can } = useSession()
  const toast = useToast()
  const { rows, scans } = props
  const busy = isBusy(rows)
  // queued and running scans finish on the server: look again until none is left
  useEffect(() => {
    if (!busy) return
    const timer = window.setInterval(() => scans.reload(), 3_000)
    return () => window.clearInterval(timer)
  }, [busy, scans.reload])

  const scan = useMutation((api, orgId, branchNames: ReadonlyArray<string> | undefined) =>
    api.scans.requestScans({
      params: { orgId, repositoryId: asId<RepositoryId>(props.repositoryId) },
      payload: branchNames === undefined ? {} : { branchNames: [...branchNames] }
    })
  )
  const requestScan = async (branchNames?: ReadonlyArray<string>) => {
    const outcome = await scan.run(branchNames)
    if (outcome.ok) {
      const n = outcome.value.scans.length
      toast.show(`${n} scan${n === 1 ? "" : "s"} queued`)
      props.onScanned()
    } else {
      toast.show(outcome.error.detail, "error")
    }
  }
  const canScan = can("repositories:manage")

  return (
    <section className="repo-section" aria-labelledby="branches-title">
      <div className="repo-section__header">
        <h2 id="branches-title">Branches and scans</h2>
        {canScan
          ? (
            <button type="button" className="button button--primary" disabled={scan.pending} onClick={() => void requestScan()}>
              {scan.pending ? "Requesting scans…" : "Scan now"}
            </button>
          )
          : null}
      </div>
      <p className="visually-hidden" role="status" aria-live="polite">{busy ? "Scans are in progress." : ""}</p>
      <DataTable
        caption="Tracked branches and their last scans"
        rows={rows}
        rowKey={(r) => r.branchName}
        loading={scans.loading && rows.length === 0}
        error={scans.error}
        onRetry={scans.reload}
        columns={[
          { header: "Branch", cell: (r) => <strong>{r.branchName}</strong> },
          { header: "Last scan", cell: (r) => <ScanStatus status={r.scan?.status ?? r.listedStatus} /> },
          {
            header: "When",
            cell: (r) => r.scan === undefined ? "—" : formatDateTime(r.scan.finishedAt ?? r.scan.startedAt ?? r.scan.queuedAt)
          },
          {
            header: "Result",
            cell: (r) =>
              r.scan === undefined
                ? "—"
                : r.scan.status === "failed"
                ? scanFailureText(r.scan.failure)
                : r.scan.status === "succeeded"
                ? `${r.scan.findingCount} finding${r.scan.findingCount === 1 ? "" : "s"} in ${r.scan.fileCount} file${
                  r.scan.fileCount === 1 ? "" : "s"
                }${r.scan.commitSha !== null ? ` at ${r.scan.commitSha.slice(0, 8)}` : ""}`
                : `${r.scan.trigger} scan`
          },
          ...(canScan
            ? [{
              header: "Actions",
              visuallyHiddenHeader: true,
              kind: "actions" as const,
              cell: (r: BranchRow) => (
                <button
                  type="button"
                  className="button button--small"
                  disabled={scan.pending}
                  onClick={() => void requestScan([r.branchName])}
                  aria-label={`Scan ${r.branchName} now`}
                >
                  Scan
                </button>
              )
            }]
            : [])
        ]}
      />
    </section>
  )
}
