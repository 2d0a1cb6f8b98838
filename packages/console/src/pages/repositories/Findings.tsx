/**
 * A branch's findings (the image references of its newest succeeded scan), page by page, each with
 * the published mapping that applies to it now. "Why?" opens the explanation: the replacement, the
 * policy group, phase and mapping, and the reason it won; "Show every mapping considered" asks the
 * resolve endpoint for the full list of mappings looked at for that image on that branch.
 */
import type { Scan } from "@image-policy/core"
import { useId, useState } from "react"
import { usePaged, useQuery } from "../../api.js"
import { DataTable } from "../../components/DataTable.js"
import { EmptyState } from "../../components/EmptyState.js"
import { ErrorMessage } from "../../components/ErrorMessage.js"
import { Loading } from "../../components/Loading.js"
import { useSession } from "../../session.js"
import { asId, type PolicyGroupId, type RepositoryId, usePolicyGroups } from "./shared.js"

type Finding = Scan.FindingView

/** The phase's name from the group's details (the finding only has its id). */
function PhaseName({ groupId, phaseId }: { readonly groupId: string; readonly phaseId: string }) {
  const details = useQuery(
    (api, orgId) => api.policy.getPolicyGroupDetails({ params: { orgId, groupId: asId<PolicyGroupId>(groupId) } }),
    [groupId]
  )
  const phase = details.data?.phases.find((p) => p.id === phaseId)
  return <>{phase?.name ?? <span className="mono">{phaseId}</span>}</>
}

function Considered(props: {
  readonly repositoryId: string
  readonly branch: string
  readonly image: string
  readonly platform: string | undefined
  readonly groupName: (id: string) => string
}) {
  const result = useQuery(
    (api, orgId) =>
      api.repositories.resolve({
        params: { orgId, repositoryId: asId<RepositoryId>(props.repositoryId) },
        query: { image: props.image, branch: props.branch, ...(props.platform !== undefined ? { platform: props.platform } : {}) }
      }),
    [props.repositoryId, props.branch, props.image, props.platform]
  )
  if (result.loading && result.data === undefined) return <Loading label="Asking which mappings apply" />
  if (result.error !== undefined) return <ErrorMessage error={result.error} onRetry={result.reload} />
  const considered = result.data?.considered ?? []
  if (considered.length === 0) {
    return <p className="repo-note">No published mapping of the groups that apply to this branch names this image.</p>
  }
  return (
    <ol className="considered" aria-label={`Mappings considered for ${props.image}`}>
      {considered.map((c, i) => (
        <li key={`${c.mappingId}-${i}`} className={c.matched ? "considered--matched" : undefined}>
          <span className="mono">{c.fromImage}</span>
          {c.platformScope !== "" && c.platformScope !== "all" ? <span className="muted">({c.platformScope})</span> : null} in{" "}
          {props.groupName(c.policyGroupId)}: <strong>{c.matched ? "matched" : "not matched"}</strong>, {c.reason}
        </li>
      ))}
    </ol>
  )
}

/** "Which mapping applies and why" for one finding. */
function Why(props: {
  readonly finding: Finding
  readonly repositoryId: string
  readonly branch: string
  readonly groupName: (id: string) => string
}) {
  const { can } = useSession()
  const [showAll, setShowAll] = useState(false)
  const f = props.finding
  const r = f.resolution
  const image = f.normalized ?? f.image
  return (
    <div className="why">
      {r !== null
        ? (
          <dl>
            <dt>Replace with</dt>
            <dd className="mono">{r.toImage}</dd>
            <dt>Policy group</dt>
            <dd>{props.groupName(r.policyGroupId)}</dd>
            <dt>Phase</dt>
            <dd>{can("policy:read") ? <PhaseName groupId={r.policyGroupId} phaseId={r.phaseId} /> : r.phaseId}</dd>
            <dt>Mapping</dt>
            <dd>
              <span className="mono">{r.fromImage}</span> → <span className="mono">{r.toImage}</span>
            </dd>
            <dt>Why it applies</dt>
            <dd>{r.reason}</dd>
            {r.mappingReason !== undefined
              ? (
                <>
                  <dt>Mapping's reason</dt>
                  <dd>{r.mappingReason}</dd>
                </>
              )
              : null}
          </dl>
        )
        : image === undefined || (f.unresolved !== undefined && f.unresolved.length > 0)
        ? (
          <p className="repo-note">
            The image cannot be known from the file
            {f.unresolved !== undefined && f.unresolved.length > 0 ? <>: it depends on {f.unresolved.join(", ")}</> : null}, so no mapping
            can apply.
          </p>
        )
        : <p className="repo-note">No published mapping of the groups that apply to this branch replaces this image.</p>}
      {image !== undefined && can("policy:read")
        ? showAll
          ? (
            <Considered
              repositoryId={props.repositoryId}
              branch={props.branch}
              image={image}
              platform={f.platform}
              groupName={props.groupName}
            />
          )
          : (
            <button type="button" className="button button--small" onClick={() => setShowAll(true)}>
              Show every mapping considered
            </button>
          )
        : null}
    </div>
  )
}

function FindingMapping(
  props: { readonly finding: Finding; readonly repositoryId: string; readonly branch: string; readonly groupName: (id: string) => string }
) {
  const [open, setOpen] = useState(false)
  const panel = useId()
  const r = props.finding.resolution
  return (
    <div>
      {r !== null ? <span className="badge badge--warning">Replace</span> : <span className="badge">No mapping</span>}{" "}
      {r !== null ? <span className="mono finding-ref">{r.toImage}</span> : null}{" "}
      <button
        type="button"
        className="button button--small"
        aria-expanded={open}
        aria-controls={panel}
        onClick={() => setOpen((o) => !o)}
        aria-label={`Why: ${props.finding.reference} at ${props.finding.file} line ${props.finding.line}`}
      >
        Why?
      </button>
      <div id={panel} hidden={!open}>
        {open ? <Why {...props} /> : null}
      </div>
    </div>
  )
}

export function Findings(props: {
  readonly repositoryId: string
  readonly branches: ReadonlyArray<string>
  /** Changes when a scan of the repository finishes: the findings are read again. */
  readonly version: string
}) {
  const { can } = useSession()
  const [branch, setBranch] = useState(props.branches[0] ?? "")
  const selectId = useId()
  const groups = usePolicyGroups(can("policy:read"))
  const groupName = (id: string) => groups.byId.get(id)?.name ?? id
  const active = props.branches.includes(branch) ? branch : props.branches[0] ?? ""
  const findings = usePaged(
    (api, orgId, cursor) =>
      api.scans.listFindings({
        params: { orgId, repositoryId: asId<RepositoryId>(props.repositoryId) },
        query: { limit: 50, branch: active, ...(cursor ? { cursor } : {}) }
      }),
    [props.repositoryId, active, props.version]
  )
  return (
    <section className="repo-section" aria-labelledby="findings-title">
      <div className="repo-section__header">
        <h2 id="findings-title">Findings</h2>
        <div className="field" style={{ minWidth: 200 }}>
          <label className="field__label" htmlFor={selectId}>Branch</label>
          <select id={selectId} className="input" value={active} onChange={(e) => setBranch(e.currentTarget.value)}>
            {props.branches.map((b) => <option key={b} value={b}>{b}</option>)}
          </select>
        </div>
      </div>
      <p className="muted repo-note">
        The image references of the branch's last successful scan, with the published mapping that applies to each now.
      </p>
      <DataTable
        caption={`Findings on ${active}`}
        rows={findings.items}
        rowKey={(f) => `${active}:${f.file}:${f.line}:${f.column}`}
        loading={findings.loading}
        error={findings.error}
        onRetry={findings.reload}
        loadMore={findings.loadMore}
        empty={<EmptyState title="No findings">No successful scan of {active} found an image reference yet.</EmptyState>}
        columns={[
          {
            header: "Where",
            cell: (f) => <span className="mono finding-ref">{f.file}:{f.line}:{f.column}</span>
          },
          {
            header: "Image",
            cell: (f) => (
              <span className="finding-ref">
                <span className="mono">{f.reference}</span>
                {f.normalized !== undefined && f.normalized !== f.reference
                  ? <span className="muted repo-note finding-extra">({f.normalized})</span>
                  : null}
                {f.platform !== undefined ? <span className="muted repo-note finding-extra">· {f.platform}</span> : null}
              </span>
            )
          },
          {
            header: "Mapping that applies",
            cell: (f) => <FindingMapping finding={f} repositoryId={props.repositoryId} branch={active} groupName={groupName} />
          }
        ]}
      />
    </section>
  )
}
