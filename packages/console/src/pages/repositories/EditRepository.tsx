/**
 * Change a repository's team and routine (the routine must be one of that team's, as at
 * onboarding). The form keeps what was chosen when the API refuses it and shows why at the field.
 */
import type { Repository } from "@image-policy/core"
import { useState } from "react"
import { useMutation, useQuery } from "../../api.js"
import { Field } from "../../components/Field.js"
import { Form, useForm } from "../../components/Form.js"
import { useToast } from "../../components/Toast.js"
import { asId, type RepositoryId, type RoutineId, type TeamId, useTeams } from "./shared.js"

export function EditRepository(props: {
  readonly repository: Repository.RepositoryView
  readonly onDone: (changed: boolean) => void
}) {
  const toast = useToast()
  const teams = useTeams()
  const form = useForm({ teamId: props.repository.assignedTeamId as string, routineId: props.repository.assignedRoutineId as string })
  const routines = useQuery(
    (api, orgId) =>
      api.organization.listTeamRoutines({ params: { orgId, teamId: asId<TeamId>(form.values.teamId) }, query: { limit: 200 } }),
    [form.values.teamId]
  )
  const update = useMutation((api, orgId, v: typeof form.values) =>
    api.repositories.updateRepository({
      params: { orgId, repositoryId: asId<RepositoryId>(props.repository.id) },
      payload: { assignedTeamId: asId<TeamId>(v.teamId), assignedRoutineId: asId<RoutineId>(v.routineId) }
    })
  )
  const routineItems = routines.data?.items ?? []
  // the ids come from lists; a routine must be chosen after a change of team (the API's rule)
  const [local, setLocal] = useState<Record<string, string>>({})
  return (
    <div className="card">
      <h2>Team and routine</h2>
      <Form
        submitLabel="Save team and routine"
        error={update.error}
        pending={update.pending}
        aria-label="Team and routine"
        actions={<button type="button" className="button" onClick={() => props.onDone(false)}>Cancel</button>}
        onSubmit={async () => {
          const errors: Record<string, string> = {}
          if (form.values.teamId === "") errors.assignedTeamId = "Choose a team."
          if (form.values.routineId === "") errors.assignedRoutineId = "Choose a routine of the team."
          setLocal(errors)
          if (Object.keys(errors).length > 0) {
            update.reset()
            return { ok: false }
          }
          const outcome = await update.run(form.values)
          if (outcome.ok) {
            toast.show("Team and routine saved")
            props.onDone(true)
          }
          return outcome
        }}
      >
        <Field label="Team" required error={local.assignedTeamId ?? update.error?.fieldErrors.assignedTeamId}>
          {(control) => (
            <select
              {...control}
              className="input"
              value={form.values.teamId}
              onChange={(e) => form.setValues({ teamId: e.currentTarget.value, routineId: "" })}
            >
              {teams.items.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
            </select>
          )}
        </Field>
        <Field
          label="Routine"
          required
          hint="A routine of the team: how often its branches are scanned and remediated."
          error={local.assignedRoutineId ?? update.error?.fieldErrors.assignedRoutineId}
        >
          {(control) => (
            <select {...control} className="input" {...form.input("routineId")}>
              <option value="">
                {routines.loading ? "Loading routines…" : routineItems.length === 0 ? "The team has no routine" : "Choose a routine…"}
              </option>
              {routineItems.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.name} (every {r.intervalDays} day{r.intervalDays === 1 ? "" : "s"}
                  {r.active ? "" : ", paused"})
                </option>
              ))}
            </select>
          )}
        </Field>
      </Form>
    </div>
  )
}
