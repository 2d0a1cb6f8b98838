/**
 * One tracked repository: its team and routine (edit), its branches and their last scans (scan
 * now), its policy group assignments (replace), the findings of each branch with which mapping
 * applies and why, its remediation requests, a link to its snooze requests, and "Stop tracking"
 * behind a confirmation. Every write action shows only to those who may take it.
 */
import { useState } from "react"
import { Link, useLocation, useParams } from "wouter"
import { useMutation, useQuery } from "../api.js"
import { ConfirmDialog } from "../components/ConfirmDialog.js"
import { ErrorMessage } from "../components/ErrorMessage.js"
import { Loading } from "../components/Loading.js"
import { Page } from "../components/Page.js"
import { useToast } from "../components/Toast.js"
import { useSession } from "../session.js"
import { Assignments } from "./repositories/Assignments.js"
import { Branches, branchRows } from "./repositories/Branches.js"
import { EditRepository } from "./repositories/EditRepository.js"
import { Findings } from "./repositories/Findings.js"
import { Remediations } from "./repositories/Remediations.js"
import "./repositories/repositories.css"
import { asId, type RepositoryId, useRoutines, useTeams } from "./repositories/shared.js"

export default function Repository() {
  const { repositoryId: rawId = "" } = useParams<{ repositoryId: string }>()
  const repositoryId = decodeURIComponent(rawId)
  const { can } = useSession()
  const toast = useToast()
  const [, navigate] = useLocation()
  const [editing, setEditing] = useState(false)
  const [deleting, setDeleting] = useState(false)
  // bumped when the assignments change: which mapping applies to each finding is read again
  const [policyVersion, setPolicyVersion] = useState(0)
  const teams = useTeams(can("teams:read"))
  const routines = useRoutines(can("teams:read"))

  const found = useQuery(
    (api, orgId) =>
      api.repositories.listRepositories({ params: { orgId }, query: { limit: 1, repositoryId: asId<RepositoryId>(repositoryId) } }),
    [repositoryId]
  )
  const repository = found.data?.items[0]
  const branchCount = repository?.branches.length ?? 1
  const scans = useQuery(
    (api, orgId) =>
      api.scans.listScans({
        params: { orgId, repositoryId: asId<RepositoryId>(repositoryId) },
        query: { limit: Math.min(200, Math.max(20, branchCount * 4)) }
      }),
    [repositoryId, branchCount]
  )
  const remove = useMutation((api, orgId, _: void) =>
    api.repositories.deleteRepository({ params: { orgId, repositoryId: asId<RepositoryId>(repositoryId) } })
  )

  if (found.loading && found.data === undefined) {
    return (
      <Page title="Repository">
        <Loading label="Loading the repository" />
      </Page>
    )
  }
  if (found.error !== undefined || repository === undefined) {
    return (
      <Page title="Repository not found">
        {found.error !== undefined
          ? <ErrorMessage error={found.error} onRetry={found.reload} />
          : <p>This organization tracks no repository with this id. It may have been untracked.</p>}
        <Link href="/repositories">Back to repositories</Link>
      </Page>
    )
  }

  const rows = branchRows(repository.branches, scans.data?.items ?? [])
  // findings are read again whenever a scan of the repository finishes
  const version = rows.map((r) => `${r.scan?.id ?? ""}:${r.scan?.status ?? r.listedStatus}`).join(",")
  const team = teams.byId.get(repository.assignedTeamId)
  const routine = routines.byId.get(repository.assignedRoutineId)
  const canManage = can("repositories:manage")

  return (
    <Page
      title={repository.fullName}
      description={<Link href="/repositories">All repositories</Link>}
      actions={canManage
        ? (
          <>
            <button type="button" className="button" onClick={() => setEditing(true)} disabled={editing}>
              Change team or routine
            </button>
            <button type="button" className="button button--danger" onClick={() => setDeleting(true)}>Stop tracking</button>
          </>
        )
        : undefined}
    >
      {editing
        ? (
          <EditRepository
            repository={repository}
            onDone={(changed) => {
              setEditing(false)
              if (changed) found.reload()
            }}
          />
        )
        : (
          <div className="card">
            <dl className="repo-facts">
              <dt>Team</dt>
              <dd>{team?.name ?? <span className="mono">{repository.assignedTeamId}</span>}</dd>
              <dt>Routine</dt>
              <dd>
                {routine === undefined
                  ? <span className="mono">{repository.assignedRoutineId}</span>
                  : `${routine.name}: every ${routine.intervalDays} day${routine.intervalDays === 1 ? "" : "s"}${
                    routine.active ? "" : " (paused)"
                  }`}
              </dd>
              <dt>Tracked branches</dt>
              <dd>{repository.branches.map((b) => b.branchName).join(", ")}</dd>
              {can("exceptions:read")
                ? (
                  <>
                    <dt>Snooze requests</dt>
                    <dd>
                      <Link href={`/snooze-requests?repositoryId=${encodeURIComponent(repository.id)}`}>
                        Snooze requests of this repository
                      </Link>
                    </dd>
                  </>
                )
                : null}
            </dl>
          </div>
        )}

      <Branches
        repositoryId={repository.id}
        rows={rows}
        scans={scans}
        onScanned={() => {
          scans.reload()
          found.reload()
        }}
      />

      <section className="repo-section" aria-labelledby="assignments-title">
        <h2 id="assignments-title">Policy groups</h2>
        <Assignments repositoryId={repository.id} onChanged={() => setPolicyVersion((v) => v + 1)} />
      </section>

      <Findings
        repositoryId={repository.id}
        branches={repository.branches.map((b) => b.branchName)}
        version={`${policyVersion}/${version}`}
      />

      <Remediations repositoryId={repository.id} />

      <ConfirmDialog
        open={deleting}
        title={`Stop tracking ${repository.fullName}?`}
        confirmLabel="Stop tracking"
        danger
        pending={remove.pending}
        error={remove.error}
        onClose={() => {
          setDeleting(false)
          remove.reset()
        }}
        onConfirm={async () => {
          const outcome = await remove.run()
          if (outcome.ok) {
            toast.show(`${repository.fullName} is no longer tracked`)
            navigate("/repositories")
          }
          return outcome
        }}
      >
        <p>
          Its policy group assignments, scans and findings are deleted. Its remediation requests are kept, marked closed. The repository
          itself on the provider is not touched; you can onboard it again later.
        </p>
      </ConfirmDialog>
    </Page>
  )
}
