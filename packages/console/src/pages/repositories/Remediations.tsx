/**
 * A repository's remediation requests (pull/merge requests the routine opened), newest first, each
 * with its changes and, once the provider's webhook told it, when it was merged.
 */
import type { Remediation } from "@image-policy/core"
import { usePaged } from "../../api.js"
import { DataTable } from "../../components/DataTable.js"
import { EmptyState } from "../../components/EmptyState.js"
import { asId, formatDateTime, type RepositoryId } from "./shared.js"

const statusBadge: Record<Remediation.RemediationStatus, string> = {
  open: "badge badge--success",
  failed: "badge badge--danger",
  superseded: "badge",
  closed: "badge",
  merged: "badge badge--merged"
}

const failureWords: Record<Remediation.RemediationFailure, string> = {
  "provider-unavailable": "the provider could not be reached",
  "permission-denied": "the connection may not open requests",
  conflict: "the branch changed meanwhile",
  "rate-limited": "the provider's rate limit was reached"
}

export function Remediations({ repositoryId }: { readonly repositoryId: string }) {
  const requests = usePaged(
    (api, orgId, cursor) =>
      api.scans.listRemediationRequests({
        params: { orgId, repositoryId: asId<RepositoryId>(repositoryId) },
        query: { limit: 20, ...(cursor ? { cursor } : {}) }
      }),
    [repositoryId]
  )
  return (
    <section className="repo-section" aria-labelledby="remediation-title">
      <h2 id="remediation-title">Remediation requests</h2>
      <DataTable
        caption="Remediation requests"
        rows={requests.items}
        rowKey={(r) => r.id}
        loading={requests.loading}
        error={requests.error}
        onRetry={requests.reload}
        loadMore={requests.loadMore}
        empty={
          <EmptyState title="No remediation requests">
            When the repository's routine runs and a mapping applies, it opens a pull or merge request here.
          </EmptyState>
        }
        columns={[
          { header: "Branch", cell: (r) => r.branchName },
          {
            header: "Status",
            cell: (r) => (
              <span>
                <span className={statusBadge[r.status]}>{r.status}</span>
                {r.failure !== null ? <span className="muted repo-note">({failureWords[r.failure]})</span> : null}
              </span>
            )
          },
          {
            header: "Request",
            cell: (r) =>
              r.url !== null
                ? <a href={r.url} target="_blank" rel="noreferrer noopener">#{r.number ?? "?"} (opens the provider)</a>
                : "—"
          },
          {
            header: "Changes",
            cell: (r) => (
              <details>
                <summary>{r.changes.length} change{r.changes.length === 1 ? "" : "s"}</summary>
                <ul className="considered">
                  {r.changes.map((c) => (
                    <li key={`${c.file}:${c.line}:${c.column}`}>
                      <span className="mono finding-ref">{c.file}:{c.line}</span>: <span className="mono">{c.from}</span> →{" "}
                      <span className="mono">{c.to}</span>
                      {c.reason !== "" ? <span className="muted">({c.reason})</span> : null}
                    </li>
                  ))}
                </ul>
              </details>
            )
          },
          {
            header: "Merged",
            cell: (r) => r.mergedAt !== null ? <time dateTime={r.mergedAt}>{formatDateTime(r.mergedAt)}</time> : "—"
          },
          { header: "Updated", cell: (r) => formatDateTime(r.updatedAt) }
        ]}
      />
    </section>
  )
}
