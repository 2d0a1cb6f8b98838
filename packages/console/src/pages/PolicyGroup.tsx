/**
 * A policy group (issue 17, page 3): what the next publish does (the draft against the published
 * mappings) and Publish; its phases (internal, or external with last sync, last error and "Sync
 * now"); the selected phase's mappings (`/policy-groups/:groupId/phases/:phaseId`: draft mappings
 * to add, edit and delete for an internal phase, the file's mappings for an external one); every
 * published mapping; and its settings (notification routing, cooldown), edit and delete.
 */
import { useCallback } from "react"
import { Link, useLocation, useParams } from "wouter"
import { useQuery } from "../api.js"
import { ErrorMessage } from "../components/ErrorMessage.js"
import { Loading } from "../components/Loading.js"
import { Page } from "../components/Page.js"
import { DraftChanges } from "./policy/Changes.js"
import { groupIdOf } from "./policy/data.js"
import { formatDateTime } from "./policy/format.js"
import { InternalPhaseMappings, PublishedMappings } from "./policy/Mappings.js"
import { Phases } from "./policy/Phases.js"
import "./policy/policy.css"
import { GroupSettings } from "./policy/Settings.js"

export default function PolicyGroup() {
  const params = useParams<{ groupId: string; phaseId?: string }>()
  const groupId = params.groupId
  const [, navigate] = useLocation()
  const gid = groupIdOf(groupId)
  const settings = useQuery((api, orgId) => api.policy.getPolicyGroup({ params: { orgId, groupId: gid } }), [groupId])
  const details = useQuery((api, orgId) => api.policy.getPolicyGroupDetails({ params: { orgId, groupId: gid } }), [groupId])
  const draft = useQuery((api, orgId) => api.policy.getPolicyGroupDraft({ params: { orgId, groupId: gid } }), [groupId])
  const reloadSettings = settings.reload
  const reloadDetails = details.reload
  const reloadDraft = draft.reload
  const reloadAll = useCallback(() => {
    reloadSettings()
    reloadDetails()
    reloadDraft()
  }, [reloadSettings, reloadDetails, reloadDraft])

  const group = settings.data
  if (group === undefined) {
    if (settings.loading) return <Loading label="Loading the policy group" />
    return (
      <Page title={settings.error?.status === 404 ? "Policy group not found" : "Policy group"}>
        {settings.error?.status === 404
          ? <p>There is no such policy group in this organization. It may have been deleted.</p>
          : <ErrorMessage error={settings.error} onRetry={settings.reload} />}
        <p>
          <Link href="/policy-groups">Back to the policy groups</Link>
        </p>
      </Page>
    )
  }
  const phases = group.phases
  const phaseName = (id: string) => phases.find((p) => p.id === id)?.name ?? "(deleted phase)"
  const selected = params.phaseId !== undefined
    ? phases.find((p) => p.id === params.phaseId)
    : phases.find((p) => p.sourceType === "internal") ?? phases[0]
  const published = details.data?.publishedMappings ?? []
  return (
    <Page
      title={group.name}
      description={
        <>
          {group.applyToAllRepos ? "Applies to all repositories" : "Applies to the repositories assigned to it"} ·{" "}
          {phases.length === 1 ? "1 phase" : `${phases.length} phases`} · {published.length.toLocaleString()} published{" "}
          {published.length === 1 ? "mapping" : "mappings"}
        </>
      }
    >
      <nav aria-label="Breadcrumb" className="pg-crumbs">
        <ol>
          <li>
            <Link href="/policy-groups">Policy groups</Link>
          </li>
          <li aria-current={selected === undefined || params.phaseId === undefined ? "page" : undefined}>
            {params.phaseId !== undefined ? <Link href={`/policy-groups/${groupId}`}>{group.name}</Link> : group.name}
          </li>
          {params.phaseId !== undefined && selected !== undefined ? <li aria-current="page">Phase {selected.name}</li> : null}
        </ol>
      </nav>
      <DraftChanges
        groupId={groupId}
        groupName={group.name}
        draft={draft.data}
        loading={draft.loading}
        error={draft.error}
        onRetry={draft.reload}
        phaseName={phaseName}
        onPublished={reloadAll}
      />
      <Phases groupId={groupId} phases={phases} selectedPhaseId={selected?.id} onChanged={reloadAll} />
      {params.phaseId !== undefined && selected === undefined
        ? (
          <div className="alert alert--warning" role="alert">
            <p>
              This group has no such phase (it may have been deleted). <Link href={`/policy-groups/${groupId}`}>Show the group</Link>.
            </p>
          </div>
        )
        : null}
      {selected?.sourceType === "internal"
        ? <InternalPhaseMappings key={selected.id} groupId={groupId} phase={selected} draft={draft.data} onChanged={reloadDraft} />
        : null}
      {selected?.sourceType === "external" && selected.external !== undefined
        ? (
          <section className="pg-section" aria-labelledby="pg-external-title">
            <h2 id="pg-external-title">Mappings of {selected.name} (from its file)</h2>
            <p className="muted">
              This phase follows <code>{selected.external.path}</code> on branch <code>{selected.external.branch}</code> of{" "}
              <code>{selected.external.repositoryFullName}</code>: edit the file to change them. Last sync:{" "}
              {formatDateTime(selected.external.lastSyncedAt)}.
            </p>
            {details.data === undefined
              ? details.loading ? <Loading label="Loading the published mappings" /> : <ErrorMessage error={details.error} />
              : (
                <PublishedMappings
                  title={`Mappings of ${selected.name}`}
                  mappings={published.filter((m) => m.phaseId === selected.id)}
                  empty="The file has published no mappings yet"
                />
              )}
          </section>
        )
        : null}
      <section className="pg-section" aria-labelledby="pg-published-title">
        <h2 id="pg-published-title">Published mappings</h2>
        <p className="muted">What repositories follow now, every phase together.</p>
        {details.data === undefined
          ? details.loading
            ? <Loading label="Loading the published mappings" />
            : <ErrorMessage error={details.error} onRetry={details.reload} />
          : (
            <PublishedMappings
              title="Published mappings"
              mappings={published}
              phaseName={phaseName}
              empty="Nothing is published yet"
            />
          )}
      </section>
      <GroupSettings settings={group} onSaved={reloadAll} onDeleted={() => navigate("/policy-groups")} />
    </Page>
  )
}
