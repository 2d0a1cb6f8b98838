/**
 * Onboard a repository: a wizard of six steps (connection -> repository -> branches -> team ->
 * routine -> review), each a small form of its own so Enter moves on and Back keeps every choice.
 * The repository list comes from the connection's cache; "Refresh from provider" asks the provider
 * again (it spends the connection's API quota). The default branch is pre-selected and always
 * tracked (the API requires it). Creating lands on the new repository's page; a refused request
 * shows the API's reason at the step it is about, every choice kept.
 */
import type { VcsConnection } from "@image-policy/core"
import * as Effect from "effect/Effect"
import { type FormEvent, type ReactNode, useEffect, useId, useMemo, useRef, useState } from "react"
import { Link, useLocation } from "wouter"
import { type Client, useMutation, useQuery } from "../api.js"
import { ErrorMessage } from "../components/ErrorMessage.js"
import { Form } from "../components/Form.js"
import { Loading } from "../components/Loading.js"
import { Page } from "../components/Page.js"
import { useToast } from "../components/Toast.js"
import { useSession } from "../session.js"
import "./repositories/repositories.css"
import { asId, type RoutineId, type TeamId, type VcsConnectionId } from "./repositories/shared.js"

const steps = ["Connection", "Repository", "Branches", "Team", "Routine", "Review"] as const
type Step = 0 | 1 | 2 | 3 | 4 | 5

/** Which step an API field error belongs to (`branchNames[2]` -> Branches). */
const stepOfField = (key: string): Step | undefined =>
  key.startsWith("vcsConnectionId")
    ? 0
    : key.startsWith("externalRepoId")
    ? 1
    : key.startsWith("branchNames")
    ? 2
    : key.startsWith("assignedTeamId")
    ? 3
    : key.startsWith("assignedRoutineId")
    ? 4
    : undefined

/** One step: its heading (focused when the step opens), a form whose submit is "Next". */
function StepForm(props: {
  readonly step: Step
  readonly title: string
  readonly description?: ReactNode
  readonly problem?: string | undefined
  readonly onNext: () => void
  readonly onBack?: () => void
  readonly nextLabel?: string
  readonly children: ReactNode
  readonly toolbar?: ReactNode
}) {
  const heading = useRef<HTMLHeadingElement>(null)
  const problemId = useId()
  useEffect(() => {
    heading.current?.focus()
  }, [props.step])
  const submit = (e: FormEvent) => {
    e.preventDefault()
    props.onNext()
  }
  return (
    <section className="card wizard-card" aria-labelledby={`${problemId}-title`}>
      <h2 id={`${problemId}-title`} ref={heading} tabIndex={-1}>
        Step {props.step + 1} of {steps.length}: {props.title}
      </h2>
      {props.description !== undefined ? <p className="muted">{props.description}</p> : null}
      {props.toolbar}
      <form onSubmit={submit} noValidate aria-describedby={props.problem !== undefined ? problemId : undefined}>
        {props.children}
        {props.problem !== undefined
          ? <p id={problemId} className="field__error" role="alert">{props.problem}</p>
          : null}
        <div className="wizard-actions">
          {props.onBack !== undefined ? <button type="button" className="button" onClick={props.onBack}>Back</button> : null}
          <button type="submit" className="button button--primary">{props.nextLabel ?? "Next"}</button>
        </div>
      </form>
    </section>
  )
}

interface Choice {
  readonly value: string
  readonly title: ReactNode
  readonly meta?: ReactNode
  readonly disabled?: boolean
}

/** A radio group (one choice) or checkbox group, as a list people can scan and click anywhere in. */
function ChoiceList(props: {
  readonly legend: string
  readonly type: "radio" | "checkbox"
  readonly choices: ReadonlyArray<Choice>
  readonly selected: ReadonlySet<string>
  readonly onToggle: (value: string, on: boolean) => void
  readonly invalid?: boolean
  readonly legendHidden?: boolean
}) {
  const name = useId()
  return (
    <fieldset className="wizard-fieldset" aria-invalid={props.invalid === true ? true : undefined}>
      <legend className={props.legendHidden === true ? "visually-hidden" : undefined}>{props.legend}</legend>
      <ul className="choice-list">
        {props.choices.map((c) => (
          <li key={c.value} className={c.disabled === true ? "choice-list__disabled" : undefined}>
            <label>
              <input
                type={props.type}
                name={name}
                value={c.value}
                checked={props.selected.has(c.value)}
                disabled={c.disabled}
                onChange={(e) => props.onToggle(c.value, e.currentTarget.checked)}
              />
              <span className="choice-list__main">
                <span className="choice-list__title">{c.title}</span>
                {c.meta !== undefined ? <span className="choice-list__meta">{c.meta}</span> : null}
              </span>
            </label>
          </li>
        ))}
      </ul>
    </fieldset>
  )
}

const shownAtOnce = 200

type Organization = Client["organization"]
type Answer<K extends keyof Organization> = Extract<Effect.Success<ReturnType<Organization[K]>>, { readonly items: unknown }>

/** What a list step reads before its previous step is chosen: nothing (no request). */
const none = Effect.succeed({ items: [] })

export default function Onboard() {
  const { can } = useSession()
  const allowed = can("repositories:manage") && can("vcs:read") && can("teams:read")
  const [, navigate] = useLocation()
  const toast = useToast()
  const [step, setStep] = useState<Step>(0)
  const [problem, setProblem] = useState<string | undefined>()
  const [connection, setConnection] = useState<VcsConnection.VcsConnection | undefined>()
  const [repository, setRepository] = useState<VcsConnection.AvailableRepository | undefined>()
  const [branches, setBranches] = useState<ReadonlySet<string>>(new Set())
  const [teamId, setTeamId] = useState<string | undefined>()
  const [routineId, setRoutineId] = useState<string | undefined>()
  const [repoFilter, setRepoFilter] = useState("")
  const [branchFilter, setBranchFilter] = useState("")
  // 0: the connection's cached list; each press of "Refresh from provider" asks the provider once
  const [refreshes, setRefreshes] = useState(0)

  const go = (next: Step) => {
    setProblem(undefined)
    setStep(next)
  }

  const connections = useQuery(
    (api, orgId) => api.organization.listVcsConnections({ params: { orgId }, query: { limit: 200 } }),
    []
  )
  const connectionId = connection?.id
  const available = useQuery<Answer<"listAvailableRepositories">>(
    (api, orgId) =>
      connectionId !== undefined
        ? api.organization.listAvailableRepositories({
          params: { orgId, connectionId: asId<VcsConnectionId>(connectionId) },
          query: refreshes > 0 ? { refresh: true } : {}
        })
        : none,
    [connectionId, refreshes]
  )
  const repoFullName = repository?.fullName
  const repoDefault = repository?.defaultBranch
  const availableBranches = useQuery<Answer<"listAvailableBranches">>(
    (api, orgId) =>
      connectionId !== undefined && repoFullName !== undefined && repoDefault !== undefined
        ? api.organization.listAvailableBranches({
          params: { orgId, connectionId: asId<VcsConnectionId>(connectionId) },
          query: { repositoryFullName: repoFullName, defaultBranch: repoDefault }
        })
        : none,
    [connectionId, repoFullName, repoDefault]
  )
  const teams = useQuery((api, orgId) => api.organization.listTeams({ params: { orgId }, query: { limit: 200 } }), [])
  const routines = useQuery<Answer<"listTeamRoutines">>(
    (api, orgId) =>
      teamId !== undefined
        ? api.organization.listTeamRoutines({ params: { orgId, teamId: asId<TeamId>(teamId) }, query: { limit: 200 } })
        : none,
    [teamId]
  )

  // one active connection: chosen for the user
  useEffect(() => {
    const active = (connections.data?.items ?? []).filter((c) => c.status === "active")
    if (connection === undefined && active.length === 1) setConnection(active[0])
  }, [connections.data, connection])

  const create = useMutation((api, orgId, _: void) =>
    api.repositories.createRepository({
      params: { orgId },
      payload: {
        vcsConnectionId: asId<VcsConnectionId>(connection?.id ?? ""),
        externalRepoId: repository?.externalRepoId ?? "",
        assignedTeamId: asId<TeamId>(teamId ?? ""),
        assignedRoutineId: asId<RoutineId>(routineId ?? ""),
        // the default branch first, then the others in the provider's order
        branchNames: orderedBranches
      }
    })
  )

  const branchItems = availableBranches.data?.items ?? []
  const orderedBranches = useMemo(() => {
    const names = branchItems.map((b) => b.name).filter((n) => branches.has(n))
    for (const n of branches) if (!names.includes(n)) names.push(n)
    return repoDefault !== undefined && names.includes(repoDefault) ? [repoDefault, ...names.filter((n) => n !== repoDefault)] : names
  }, [branchItems, branches, repoDefault])

  const fieldErrors = create.error?.fieldErrors ?? {}
  const errorsOfStep = (s: Step) =>
    Object.entries(fieldErrors)
      .filter(([k]) => stepOfField(k) === s)
      .map(([k, message]) => {
        const i = /\[(\d+)\]/.exec(k)
        const branch = i !== null ? orderedBranches[Number(i[1])] : undefined
        return branch !== undefined ? `${branch}: ${message}` : message
      })
      .join(" ") || undefined

  if (!allowed) {
    return (
      <Page title="Onboard a repository">
        <p>You may not onboard repositories: that needs the repositories:manage, vcs:read and teams:read permissions.</p>
        <Link href="/repositories">Back to repositories</Link>
      </Page>
    )
  }

  const teamName = (teams.data?.items ?? []).find((t) => t.id === teamId)?.name
  const routine = (routines.data?.items ?? []).find((r) => r.id === routineId)

  const progress = (
    <ol className="wizard-steps" aria-label="Onboarding steps">
      {steps.map((label, i) => (
        <li key={label} aria-current={i === step ? "step" : undefined} className={i < step ? "wizard-steps__done" : undefined}>
          {label}
          {i < step ? <span className="visually-hidden">(done)</span> : null}
        </li>
      ))}
    </ol>
  )

  let body: ReactNode
  if (step === 0) {
    const items = connections.data?.items ?? []
    body = (
      <StepForm
        step={0}
        title="Connection"
        description="The provider account (GitHub or GitLab) the repository is reached through. Only active connections can onboard."
        problem={problem ?? errorsOfStep(0)}
        onNext={() => connection === undefined ? setProblem("Choose a connection.") : go(1)}
      >
        {connections.loading && items.length === 0
          ? <Loading label="Loading connections" />
          : connections.error !== undefined
          ? <ErrorMessage error={connections.error} onRetry={connections.reload} />
          : items.length === 0
          ? <p>This organization has no VCS connection yet.</p>
          : (
            <ChoiceList
              legend="Connection"
              legendHidden
              type="radio"
              invalid={problem !== undefined}
              selected={new Set(connection ? [connection.id] : [])}
              onToggle={(id) => {
                const next = items.find((c) => c.id === id)
                if (next?.id !== connection?.id) {
                  setRepository(undefined)
                  setBranches(new Set())
                  setRefreshes(0)
                }
                setConnection(next)
                setProblem(undefined)
              }}
              choices={items.map((c) => ({
                value: c.id,
                title: c.externalAccountName,
                meta: `${c.provider === "github" ? "GitHub" : "GitLab"} · ${c.status}`,
                disabled: c.status !== "active"
              }))}
            />
          )}
      </StepForm>
    )
  } else if (step === 1) {
    const items = available.data?.items ?? []
    const needle = repoFilter.trim().toLowerCase()
    const matching = needle === "" ? items : items.filter((r) => r.fullName.toLowerCase().includes(needle))
    const shown = matching.slice(0, shownAtOnce)
    body = (
      <StepForm
        step={1}
        title="Repository"
        description={`Repositories the connection ${
          connection?.externalAccountName ?? ""
        } can reach. Already tracked ones cannot be chosen again.`}
        problem={problem ?? errorsOfStep(1)}
        onBack={() => go(0)}
        onNext={() => repository === undefined ? setProblem("Choose a repository.") : go(2)}
        toolbar={
          <div className="wizard-toolbar">
            <div className="field">
              <label className="field__label" htmlFor="repo-filter">Filter by name</label>
              <input
                id="repo-filter"
                className="input"
                type="search"
                value={repoFilter}
                onChange={(e) => setRepoFilter(e.currentTarget.value)}
              />
            </div>
            <div>
              <button
                type="button"
                className="button"
                aria-describedby="refresh-hint"
                disabled={available.loading}
                onClick={() => setRefreshes((n) => n + 1)}
              >
                Refresh from provider
              </button>
            </div>
            <p id="refresh-hint" className="field__hint" style={{ flexBasis: "100%" }}>
              Refreshing asks the provider again and spends the connection's API quota. Use it once when a repository you just gave access
              to is missing.
            </p>
          </div>
        }
      >
        <p className="visually-hidden" role="status" aria-live="polite">
          {available.loading ? "" : `${matching.length} repositor${matching.length === 1 ? "y" : "ies"} found`}
        </p>
        {available.loading && items.length === 0
          ? <Loading label={refreshes > 0 ? "Asking the provider" : "Loading repositories"} />
          : available.error !== undefined
          ? <ErrorMessage error={available.error} onRetry={available.reload} />
          : matching.length === 0
          ? <p>{items.length === 0 ? "The connection reaches no repository." : "No repository matches the filter."}</p>
          : (
            <>
              {available.loading ? <Loading label="Asking the provider" /> : null}
              <ChoiceList
                legend="Repository"
                legendHidden
                type="radio"
                invalid={problem !== undefined}
                selected={new Set(repository ? [repository.externalRepoId] : [])}
                onToggle={(id) => {
                  const next = items.find((r) => r.externalRepoId === id)
                  if (next !== undefined && next.externalRepoId !== repository?.externalRepoId) {
                    setRepository(next)
                    // the default branch is pre-selected (and always tracked)
                    setBranches(new Set([next.defaultBranch]))
                    setBranchFilter("")
                  }
                  setProblem(undefined)
                }}
                choices={shown.map((r) => ({
                  value: r.externalRepoId,
                  title: r.fullName,
                  meta: r.tracked ? "Already tracked" : `Default branch ${r.defaultBranch}`,
                  disabled: r.tracked
                }))}
              />
              {matching.length > shown.length
                ? <p className="muted repo-note">Showing {shown.length} of {matching.length}: type in the filter to narrow the list.</p>
                : null}
            </>
          )}
      </StepForm>
    )
  } else if (step === 2) {
    const needle = branchFilter.trim().toLowerCase()
    const matching = needle === "" ? branchItems : branchItems.filter((b) => b.name.toLowerCase().includes(needle))
    const shown = matching.slice(0, shownAtOnce)
    body = (
      <StepForm
        step={2}
        title="Branches"
        description={
          <>
            The branches of <strong>{repository?.fullName}</strong> to track and scan. The default branch{" "}
            <strong>{repository?.defaultBranch}</strong> is always tracked.
          </>
        }
        problem={problem ?? errorsOfStep(2)}
        onBack={() => go(1)}
        onNext={() => go(3)}
        toolbar={branchItems.length > 10
          ? (
            <div className="field">
              <label className="field__label" htmlFor="branch-filter">Filter by name</label>
              <input
                id="branch-filter"
                className="input"
                type="search"
                value={branchFilter}
                onChange={(e) => setBranchFilter(e.currentTarget.value)}
              />
            </div>
          )
          : undefined}
      >
        {availableBranches.loading && branchItems.length === 0
          ? <Loading label="Loading branches" />
          : availableBranches.error !== undefined
          ? <ErrorMessage error={availableBranches.error} onRetry={availableBranches.reload} />
          : (
            <>
              <ChoiceList
                legend={`Branches to track (${branches.size} selected)`}
                type="checkbox"
                selected={branches}
                onToggle={(name, on) => {
                  setBranches((prev) => {
                    const next = new Set(prev)
                    if (on) next.add(name)
                    else next.delete(name)
                    return next
                  })
                  setProblem(undefined)
                }}
                choices={shown.map((b) => ({
                  value: b.name,
                  title: b.name,
                  meta: b.isDefault || b.name === repository?.defaultBranch ? "Default branch: always tracked" : undefined,
                  disabled: b.isDefault || b.name === repository?.defaultBranch
                }))}
              />
              {matching.length > shown.length
                ? <p className="muted repo-note">Showing {shown.length} of {matching.length}: type in the filter to narrow the list.</p>
                : null}
            </>
          )}
      </StepForm>
    )
  } else if (step === 3) {
    const items = teams.data?.items ?? []
    body = (
      <StepForm
        step={3}
        title="Team"
        description="The team that owns the repository: it is notified and its routines scan the repository."
        problem={problem ?? errorsOfStep(3)}
        onBack={() => go(2)}
        onNext={() => teamId === undefined ? setProblem("Choose a team.") : go(4)}
      >
        {teams.loading && items.length === 0
          ? <Loading label="Loading teams" />
          : teams.error !== undefined
          ? <ErrorMessage error={teams.error} onRetry={teams.reload} />
          : items.length === 0
          ? <p>This organization has no team yet.</p>
          : (
            <ChoiceList
              legend="Team"
              legendHidden
              type="radio"
              invalid={problem !== undefined}
              selected={new Set(teamId ? [teamId] : [])}
              onToggle={(id) => {
                if (id !== teamId) setRoutineId(undefined)
                setTeamId(id)
                setProblem(undefined)
              }}
              choices={items.map((t) => ({ value: t.id, title: t.name }))}
            />
          )}
      </StepForm>
    )
  } else if (step === 4) {
    const items = routines.data?.items ?? []
    body = (
      <StepForm
        step={4}
        title="Routine"
        description={`How often the repository is scanned and remediated: a routine of ${teamName ?? "the team"}.`}
        problem={problem ?? errorsOfStep(4)}
        onBack={() => go(3)}
        onNext={() => routineId === undefined ? setProblem("Choose a routine.") : go(5)}
      >
        {routines.loading && items.length === 0
          ? <Loading label="Loading routines" />
          : routines.error !== undefined
          ? <ErrorMessage error={routines.error} onRetry={routines.reload} />
          : items.length === 0
          ? <p>{teamName ?? "This team"} has no routine yet. Go back and choose another team, or ask an administrator to add one.</p>
          : (
            <ChoiceList
              legend="Routine"
              legendHidden
              type="radio"
              invalid={problem !== undefined}
              selected={new Set(routineId ? [routineId] : [])}
              onToggle={(id) => {
                setRoutineId(id)
                setProblem(undefined)
              }}
              choices={items.map((r) => ({
                value: r.id,
                title: r.name,
                meta: `Every ${r.intervalDays} day${r.intervalDays === 1 ? "" : "s"}${r.active ? "" : " · paused"}`
              }))}
            />
          )}
      </StepForm>
    )
  } else {
    const row = (s: Step, label: string, value: ReactNode) => {
      const error = errorsOfStep(s)
      return (
        <>
          <dt>{label}</dt>
          <dd>
            {value}{" "}
            <button type="button" className="button button--small" onClick={() => go(s)} aria-label={`Change ${label.toLowerCase()}`}>
              Change
            </button>
            {error !== undefined ? <p className="field__error">{error}</p> : null}
          </dd>
        </>
      )
    }
    body = (
      <ReviewStep>
        <dl className="repo-facts">
          {row(0, "Connection", connection?.externalAccountName)}
          {row(1, "Repository", repository?.fullName)}
          {row(2, "Branches", orderedBranches.join(", "))}
          {row(3, "Team", teamName)}
          {row(4, "Routine", routine?.name)}
        </dl>
        <Form
          submitLabel="Track repository"
          error={create.error}
          pending={create.pending}
          aria-label="Track the repository"
          actions={<button type="button" className="button" onClick={() => go(4)}>Back</button>}
          onSubmit={async () => {
            const outcome = await create.run()
            if (outcome.ok) {
              const { repository: created, scans } = outcome.value
              toast.show(`${created.fullName} is tracked: ${scans.length} scan${scans.length === 1 ? "" : "s"} queued`)
              navigate(`/repositories/${encodeURIComponent(created.id)}`)
            }
            return outcome
          }}
        >
          <p className="muted repo-note">
            Tracking queues a scan of each branch. Policy groups are assigned on the repository's page next.
          </p>
        </Form>
      </ReviewStep>
    )
  }

  return (
    <Page title="Onboard a repository" description="Track a repository of a VCS connection: its branches are scanned for base images.">
      {progress}
      {body}
      <p>
        <Link href="/repositories">Cancel and go back to repositories</Link>
      </p>
    </Page>
  )
}

function ReviewStep({ children }: { readonly children: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    heading.current?.focus()
  }, [])
  return (
    <section className="card wizard-card" aria-labelledby="review-title">
      <h2 id="review-title" ref={heading} tabIndex={-1}>Step {steps.length} of {steps.length}: Review</h2>
      <p className="muted">Check the choices, then track the repository.</p>
      {children}
    </section>
  )
}
