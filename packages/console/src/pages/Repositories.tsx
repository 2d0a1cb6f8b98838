/**
 * Repositories: the tracked repositories, page by page, each with its team and routine and each
 * tracked branch's scan status (the repository's newest scan of that branch: when, and why it
 * failed). "Onboard a repository" opens the wizard for those who may track repositories.
 */
import type { Repository as Repo, Scan } from "@image-policy/core"
import { Link } from "wouter"
import { usePaged, useQuery } from "../api.js"
import { DataTable } from "../components/DataTable.js"
import { EmptyState } from "../components/EmptyState.js"
import { Page } from "../components/Page.js"
import { useSession } from "../session.js"
import "./repositories/repositories.css"
import { asId, formatDateTime, type RepositoryId, scanFailureText, ScanStatus, useRoutines, useTeams } from "./repositories/shared.js"

/** Each tracked branch with its newest scan (`listScans`, newest first), or the status the repository lists. */
function BranchScans({ repository }: { readonly repository: Repo.RepositoryView }) {
  const scans = useQuery(
    (api, orgId) =>
      api.scans.listScans({
        params: { orgId, repositoryId: asId<RepositoryId>(repository.id) },
        query: { limit: Math.min(200, Math.max(20, repository.branches.length * 4)) }
      }),
    [repository.id, repository.branches.length]
  )
  const newest = new Map<string, Scan.BranchScan>()
  for (const scan of scans.data?.items ?? []) if (!newest.has(scan.branchName)) newest.set(scan.branchName, scan)
  return (
    <ul className="repo-branches">
      {repository.branches.map((b) => {
        const scan = newest.get(b.branchName)
        const status = scan?.status ?? b.scan.status
        const when = scan === undefined ? undefined : scan.finishedAt ?? scan.startedAt ?? scan.queuedAt
        return (
          <li key={b.branchName}>
            <span className="repo-branches__name">{b.branchName}</span>
            <ScanStatus status={status} />
            {when !== undefined ? <span className="repo-branches__when">{formatDateTime(when)}</span> : null}
            {scan?.failure != null ? <span className="repo-branches__when">({scanFailureText(scan.failure)})</span> : null}
          </li>
        )
      })}
    </ul>
  )
}

export default function Repositories() {
  const { can } = useSession()
  const teams = useTeams(can("teams:read"))
  const routines = useRoutines(can("teams:read"))
  const repositories = usePaged(
    (api, orgId, cursor) => api.repositories.listRepositories({ params: { orgId }, query: { limit: 25, ...(cursor ? { cursor } : {}) } }),
    []
  )
  const canOnboard = can("repositories:manage") && can("vcs:read") && can("teams:read")
  const onboard = canOnboard ? <Link href="/repositories/onboard" className="button button--primary">Onboard a repository</Link> : null
  return (
    <Page
      title="Repositories"
      description="The repositories this organization tracks, with the scan status of each tracked branch."
      actions={onboard ?? undefined}
    >
      <DataTable
        caption="Tracked repositories"
        paged={repositories}
        rowKey={(r) => r.id}
        empty={
          <EmptyState title="No repositories tracked yet" action={onboard ?? undefined}>
            Onboard a repository from a VCS connection to scan its branches for base images.
          </EmptyState>
        }
        columns={[
          {
            header: "Repository",
            cell: (r) => <Link href={`/repositories/${encodeURIComponent(r.id)}`} className="repo-name">{r.fullName}</Link>
          },
          { header: "Team", cell: (r) => teams.byId.get(r.assignedTeamId)?.name ?? <span className="mono">{r.assignedTeamId}</span> },
          {
            header: "Routine",
            cell: (r) => {
              const routine = routines.byId.get(r.assignedRoutineId)
              return routine === undefined
                ? <span className="mono">{r.assignedRoutineId}</span>
                : `${routine.name} (every ${routine.intervalDays} day${routine.intervalDays === 1 ? "" : "s"}${
                  routine.active ? "" : ", paused"
                })`
            }
          },
          { header: "Branches and last scan", cell: (r) => <BranchScans repository={r} /> }
        ]}
      />
    </Page>
  )
}
