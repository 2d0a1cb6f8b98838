/** Organization -> Teams and routines: teams (create, rename, delete) and each team's scan routines. */
import { Routine, Team } from "@image-policy/core"
import { useEffect, useRef, useState } from "react"
import { type ApiError, type Paged, useMutation, usePaged } from "../../api.js"
import { ConfirmDialog } from "../../components/ConfirmDialog.js"
import { DataTable } from "../../components/DataTable.js"
import { EmptyState } from "../../components/EmptyState.js"
import { Field } from "../../components/Field.js"
import { Form, useForm } from "../../components/Form.js"
import { useToast } from "../../components/Toast.js"
import { useSession } from "../../session.js"
import { errorAt, fieldError, localError } from "./validate.js"

type TeamId = Team.Team["id"]
type Editing =
  | { readonly kind: "team"; readonly team?: Team.Team }
  | { readonly kind: "routine"; readonly team: Team.Team; readonly routine?: Routine.Routine }

type Deleting = { readonly kind: "team"; readonly team: Team.Team } | { readonly kind: "routine"; readonly routine: Routine.Routine }

export function TeamsSection({ teams }: { readonly teams: Paged<Team.Team> }) {
  const { can } = useSession()
  const manage = can("organization:manage")
  const toast = useToast()
  const routines = usePaged(
    (api, orgId, cursor) => api.organization.listRoutines({ params: { orgId }, query: { limit: 200, ...(cursor ? { cursor } : {}) } }),
    []
  )
  const [editing, setEditing] = useState<Editing | undefined>()
  const [deleting, setDeleting] = useState<Deleting | undefined>()
  const addButton = useRef<HTMLButtonElement>(null)
  const deleteTeam = useMutation((api, orgId, teamId: TeamId) => api.teams.deleteTeam({ params: { orgId, teamId } }))
  const deleteRoutine = useMutation((api, orgId, routineId: Routine.Routine["id"]) =>
    api.teams.deleteRoutine({ params: { orgId, routineId } })
  )
  const remove = deleting?.kind === "routine" ? deleteRoutine : deleteTeam

  const close = () => {
    setEditing(undefined)
    requestAnimationFrame(() => addButton.current?.focus())
  }
  const done = (message: string) => {
    toast.show(message)
    teams.reload()
    routines.reload()
    close()
  }

  return (
    <section className="settings-section" aria-labelledby="teams-title">
      <div className="settings-section__header">
        <h2 id="teams-title">Teams and routines</h2>
        {manage && editing === undefined
          ? (
            <button ref={addButton} type="button" className="button button--primary" onClick={() => setEditing({ kind: "team" })}>
              Add team
            </button>
          )
          : null}
      </div>
      <p className="settings-section__intro">
        Teams own repositories; a routine says how often a team's repositories are scanned and remediated.
      </p>
      {editing?.kind === "team"
        ? <TeamEditor key={editing.team?.id ?? "new"} team={editing.team} onDone={done} onCancel={close} />
        : editing?.kind === "routine"
        ? (
          <RoutineEditor
            key={editing.routine?.id ?? `new-${editing.team.id}`}
            team={editing.team}
            routine={editing.routine}
            onDone={done}
            onCancel={close}
          />
        )
        : null}
      <DataTable
        caption="Teams"
        paged={teams}
        rowKey={(t) => t.id}
        empty={<EmptyState title="No teams yet">{manage ? "Add a team to assign repositories to it." : null}</EmptyState>}
        columns={[
          { header: "Team", cell: (t) => <span className="key-name">{t.name}</span> },
          {
            header: "Routines",
            cell: (t) => {
              const own = routines.items.filter((r) => r.teamId === t.id)
              if (own.length === 0) return <span className="muted">No routine</span>
              return (
                <ul className="team-routines">
                  {own.map((r) => (
                    <li key={r.id}>
                      <span>
                        <strong>{r.name}</strong> · every {r.intervalDays} day{r.intervalDays === 1 ? "" : "s"}
                      </span>
                      {r.active ? <span className="badge badge--success">Active</span> : <span className="badge">Paused</span>}
                      {manage
                        ? (
                          <span>
                            <button
                              type="button"
                              className="button button--small"
                              onClick={() => setEditing({ kind: "routine", team: t, routine: r })}
                              aria-label={`Edit routine ${r.name}`}
                            >
                              Edit
                            </button>{" "}
                            <button
                              type="button"
                              className="button button--small"
                              onClick={() => setDeleting({ kind: "routine", routine: r })}
                              aria-label={`Delete routine ${r.name}`}
                            >
                              Delete
                            </button>
                          </span>
                        )
                        : null}
                    </li>
                  ))}
                </ul>
              )
            }
          },
          ...(manage
            ? [{
              header: "Actions",
              kind: "actions" as const,
              visuallyHiddenHeader: true,
              cell: (t: Team.Team) => (
                <>
                  <button
                    type="button"
                    className="button button--small"
                    onClick={() => setEditing({ kind: "routine", team: t })}
                    aria-label={`Add routine to ${t.name}`}
                  >
                    Add routine
                  </button>
                  <button
                    type="button"
                    className="button button--small"
                    onClick={() => setEditing({ kind: "team", team: t })}
                    aria-label={`Rename ${t.name}`}
                  >
                    Rename
                  </button>
                  <button
                    type="button"
                    className="button button--small"
                    onClick={() => setDeleting({ kind: "team", team: t })}
                    aria-label={`Delete ${t.name}`}
                  >
                    Delete
                  </button>
                </>
              )
            }]
            : [])
        ]}
      />
      {routines.loadMore !== undefined
        ? <button type="button" className="button" onClick={routines.loadMore}>Load more routines</button>
        : null}
      <ConfirmDialog
        target={deleting}
        title={deleting?.kind === "routine" ? "Delete this routine?" : "Delete this team?"}
        confirmLabel={deleting?.kind === "routine" ? "Delete routine" : "Delete team"}
        danger
        mutation={remove}
        onClose={() => setDeleting(undefined)}
        onConfirm={(row) => row.kind === "team" ? deleteTeam.run(row.team.id) : deleteRoutine.run(row.routine.id)}
        onDone={(_, row) => {
          toast.show(row.kind === "team" ? `Team “${row.team.name}” deleted` : `Routine “${row.routine.name}” deleted`)
          teams.reload()
          routines.reload()
        }}
      >
        {deleting?.kind === "team"
          ? (
            <p>
              The team <strong>{deleting.team.name}</strong>{" "}
              and its routines are deleted. A team that repositories, policy groups, webhooks or the default notification setting still use
              cannot be deleted.
            </p>
          )
          : deleting?.kind === "routine"
          ? (
            <p>
              The routine <strong>{deleting.routine.name}</strong> is deleted. A routine a tracked repository runs on cannot be deleted.
            </p>
          )
          : null}
      </ConfirmDialog>
    </section>
  )
}

const useFocusOnMount = () => {
  const ref = useRef<HTMLHeadingElement>(null)
  useEffect(() => ref.current?.focus(), [])
  return ref
}

function TeamEditor({ team, onDone, onCancel }: {
  readonly team: Team.Team | undefined
  readonly onDone: (message: string) => void
  readonly onCancel: () => void
}) {
  const form = useForm({ name: team?.name ?? "" })
  const [checkError, setCheckError] = useState<ApiError | undefined>()
  const create = useMutation((api, orgId, payload: Team.TeamRequest) => api.teams.createTeam({ params: { orgId }, payload }))
  const rename = useMutation((api, orgId, input: { id: TeamId; payload: Team.TeamRequest }) =>
    api.teams.renameTeam({ params: { orgId, teamId: input.id }, payload: input.payload })
  )
  const mutation = team === undefined ? create : rename
  const error = checkError ?? mutation.error
  const heading = team === undefined ? "Add a team" : `Rename ${team.name}`
  const headingRef = useFocusOnMount()
  const submit = async () => {
    setCheckError(undefined)
    const local = localError({ name: fieldError(Team.TeamName, form.values.name) })
    if (local !== undefined) {
      setCheckError(local)
      mutation.reset()
      return { ok: false }
    }
    const payload = { name: form.values.name.trim() }
    const outcome = team === undefined ? await create.run(payload) : await rename.run({ id: team.id, payload })
    if (outcome.ok) onDone(team === undefined ? `Team “${outcome.value.name}” added` : `Team renamed to “${outcome.value.name}”`)
    return outcome
  }
  return (
    <section className="card" aria-labelledby="team-editor-title">
      <h3 id="team-editor-title" className="form-card__title" tabIndex={-1} ref={headingRef}>{heading}</h3>
      <Form
        aria-label={heading}
        submitLabel={team === undefined ? "Add team" : "Rename team"}
        error={error}
        pending={mutation.pending}
        onSubmit={submit}
        actions={<button type="button" className="button" onClick={onCancel}>Cancel</button>}
      >
        <Field label="Team name" required autoComplete="off" {...form.input("name")} error={errorAt(error, "name")} />
      </Form>
    </section>
  )
}

function RoutineEditor({ team, routine, onDone, onCancel }: {
  readonly team: Team.Team
  readonly routine: Routine.Routine | undefined
  readonly onDone: (message: string) => void
  readonly onCancel: () => void
}) {
  const form = useForm({ name: routine?.name ?? "", intervalDays: String(routine?.intervalDays ?? 7), active: routine?.active ?? true })
  const [checkError, setCheckError] = useState<ApiError | undefined>()
  const create = useMutation((api, orgId, input: { teamId: TeamId; payload: Routine.CreateRoutineRequest }) =>
    api.teams.createRoutine({ params: { orgId, teamId: input.teamId }, payload: input.payload })
  )
  const update = useMutation((api, orgId, input: { id: Routine.Routine["id"]; payload: Routine.RoutinePatch }) =>
    api.teams.updateRoutine({ params: { orgId, routineId: input.id }, payload: input.payload })
  )
  const mutation = routine === undefined ? create : update
  const error = checkError ?? mutation.error
  const heading = routine === undefined ? `Add a routine to ${team.name}` : `Edit routine ${routine.name}`
  const headingRef = useFocusOnMount()
  const submit = async () => {
    setCheckError(undefined)
    const text = form.values.intervalDays.trim()
    const days = /^\d+$/.test(text) ? Number(text) : Number.NaN
    const local = localError({
      name: fieldError(Team.TeamName, form.values.name),
      intervalDays: Number.isNaN(days) ? "Enter a whole number of days from 1 to 365." : fieldError(Routine.IntervalDays, days)
    })
    if (local !== undefined) {
      setCheckError(local)
      mutation.reset()
      return { ok: false }
    }
    const payload = { name: form.values.name.trim(), intervalDays: days, active: form.values.active }
    const outcome = routine === undefined ? await create.run({ teamId: team.id, payload }) : await update.run({ id: routine.id, payload })
    if (outcome.ok) onDone(routine === undefined ? `Routine “${outcome.value.name}” added` : `Routine “${outcome.value.name}” saved`)
    return outcome
  }
  return (
    <section className="card" aria-labelledby="routine-editor-title">
      <h3 id="routine-editor-title" className="form-card__title" tabIndex={-1} ref={headingRef}>{heading}</h3>
      <Form
        aria-label={heading}
        submitLabel={routine === undefined ? "Add routine" : "Save routine"}
        error={error}
        pending={mutation.pending}
        onSubmit={submit}
        actions={<button type="button" className="button" onClick={onCancel}>Cancel</button>}
      >
        <Field label="Routine name" required autoComplete="off" {...form.input("name")} error={errorAt(error, "name")} />
        <Field
          label="Interval in days"
          required
          type="number"
          inputMode="numeric"
          min={1}
          max={365}
          hint="Days between two runs on a branch, 1 to 365."
          {...form.input("intervalDays")}
          error={errorAt(error, "intervalDays")}
        />
        <label className="check">
          <input {...form.checkbox("active")} />
          <span>Active (paused routines do not run)</span>
        </label>
      </Form>
    </section>
  )
}
