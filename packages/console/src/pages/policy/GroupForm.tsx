/**
 * The fields of a policy group's settings (create and edit): name, applies to all repositories,
 * notification routing (inherit / none / a team) and the cooldown of its external phases. Values
 * are kept as typed; `groupRequest` turns them into the API's body or names the fields to fix.
 */
import type { Id, PolicyAdministration } from "@image-policy/core"
import { type ChangeEvent, type ReactNode, useEffect, useState } from "react"
import { type Mutation, run } from "../../api.js"
import { Field } from "../../components/Field.js"
import { Form, useForm } from "../../components/Form.js"
import type { ApiError } from "../../problem.js"
import { useSession } from "../../session.js"
import { formatSeconds } from "./format.js"

export interface GroupValues extends Record<string, string | boolean> {
  name: string
  applyToAllRepos: boolean
  notification: "inherit" | "disabled" | "team"
  teamId: string
  cooldown: "default" | "custom"
  cooldownSeconds: string
}

export const emptyGroup: GroupValues = {
  name: "",
  applyToAllRepos: false,
  notification: "inherit",
  teamId: "",
  cooldown: "default",
  cooldownSeconds: ""
}

export const valuesOf = (g: PolicyAdministration.PolicyGroupSettings): GroupValues => ({
  name: g.name,
  applyToAllRepos: g.applyToAllRepos,
  notification: typeof g.notification === "object" ? "team" : g.notification,
  teamId: typeof g.notification === "object" ? g.notification.teamId : "",
  cooldown: g.cooldownSeconds === null ? "default" : "custom",
  cooldownSeconds: g.cooldownSeconds === null ? "" : String(g.cooldownSeconds)
})

const maxCooldown = 31_536_000

/** The request body, or the fields the API would refuse (checked here: the client encodes numbers and ids). */
export const groupRequest = (
  v: GroupValues
): { readonly ok: true; readonly body: PolicyAdministration.CreatePolicyGroupRequest } | {
  readonly ok: false
  readonly fieldErrors: Record<string, string>
} => {
  const fieldErrors: Record<string, string> = {}
  const name = v.name.trim()
  if (name === "") fieldErrors.name = "Enter a name."
  else if (name.length > 200) fieldErrors.name = "Use at most 200 characters."
  if (v.notification === "team" && v.teamId === "") fieldErrors.notification = "Choose the team to notify."
  let cooldownSeconds: number | null = null
  if (v.cooldown === "custom") {
    const n = Number(v.cooldownSeconds.trim())
    if (v.cooldownSeconds.trim() === "" || !Number.isInteger(n) || n < 0 || n > maxCooldown) {
      fieldErrors.cooldownSeconds = `Enter a whole number of seconds from 0 to ${maxCooldown.toLocaleString()}.`
    } else cooldownSeconds = n
  }
  if (Object.keys(fieldErrors).length > 0) return { ok: false, fieldErrors }
  const notification: PolicyAdministration.NotificationSetting = v.notification === "team"
    ? { teamId: v.teamId as Id.TeamId }
    : v.notification
  return { ok: true, body: { name, applyToAllRepos: v.applyToAllRepos, notification, cooldownSeconds } }
}

export interface Team {
  readonly id: string
  readonly name: string
}

/** The organization's teams (for the notification team), when the user may read them. */
export function useTeams(): { readonly teams: ReadonlyArray<Team>; readonly loading: boolean } {
  const { can, session } = useSession()
  const orgId = session.organization.id
  const allowed = can("teams:read")
  const [state, setState] = useState<{ teams: ReadonlyArray<Team>; loading: boolean }>({ teams: [], loading: allowed })
  useEffect(() => {
    if (!allowed) return
    let cancelled = false
    void (async () => {
      const all: Array<Team> = []
      let cursor: string | undefined
      do {
        const at = cursor
        const outcome = await run(
          (api, org) => api.organization.listTeams({ params: { orgId: org }, query: { limit: 200, ...(at ? { cursor: at } : {}) } }),
          orgId
        )
        if (cancelled) return
        if (!outcome.ok) break
        all.push(...outcome.value.items)
        cursor = outcome.value.nextCursor
      } while (cursor !== undefined)
      setState({ teams: all, loading: false })
    })()
    return () => {
      cancelled = true
    }
  }, [allowed, orgId])
  return state
}

/** How a group's routing reads: "The organization's default team", "No team", "Team Platform". */
export const describeNotification = (setting: PolicyAdministration.NotificationSetting, teams: ReadonlyArray<Team>): string => {
  if (setting === "inherit") return "The organization's default team"
  if (setting === "disabled") return "No team (organization-wide destinations only)"
  const team = teams.find((t) => t.id === setting.teamId)
  return team === undefined ? `Team ${setting.teamId}` : `Team ${team.name}`
}

export const describeCooldown = (seconds: number | null): string => seconds === null ? "The organization's default" : formatSeconds(seconds)

export function GroupFields({ form, errors, teams }: {
  readonly form: {
    readonly values: GroupValues
    readonly set: <K extends keyof GroupValues>(key: K, value: GroupValues[K]) => void
    readonly input: (key: "name" | "teamId" | "cooldownSeconds") => {
      name: string
      value: string
      onChange: (e: ChangeEvent<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>) => void
    }
  }
  readonly errors: Readonly<Record<string, string>>
  readonly teams: ReadonlyArray<Team>
}) {
  const v = form.values
  return (
    <>
      <Field label="Name" required autoComplete="off" maxLength={200} {...form.input("name")} error={errors.name} />
      <Field
        label="Applies to"
        hint="A group for all repositories applies without assignments; otherwise repositories are assigned to it."
        error={errors.applyToAllRepos}
      >
        {(control) => (
          <select
            {...control}
            className="input"
            value={v.applyToAllRepos ? "all" : "assigned"}
            onChange={(e) => form.set("applyToAllRepos", e.target.value === "all")}
          >
            <option value="assigned">Repositories assigned to it</option>
            <option value="all">All repositories</option>
          </select>
        )}
      </Field>
      <Field
        label="Notify"
        hint="The team whose destinations receive this group's policy events, besides organization-wide ones."
        error={errors.notification ?? errors["notification.teamId"]}
      >
        {(control) => (
          <select
            {...control}
            className="input"
            value={v.notification === "team" ? `team:${v.teamId}` : v.notification}
            onChange={(e) => {
              const value = e.target.value
              if (value.startsWith("team:")) {
                form.set("notification", "team")
                form.set("teamId", value.slice(5))
              } else form.set("notification", value as "inherit" | "disabled")
            }}
          >
            <option value="inherit">The organization's default team (inherit)</option>
            <option value="disabled">No team: organization-wide destinations only</option>
            {v.notification === "team" && v.teamId !== "" && !teams.some((t) => t.id === v.teamId)
              ? <option value={`team:${v.teamId}`}>Team {v.teamId}</option>
              : null}
            {teams.map((t) => <option key={t.id} value={`team:${t.id}`}>Team {t.name}</option>)}
          </select>
        )}
      </Field>
      <Field
        label="Cooldown of external phases"
        hint="How long a new file version of an external phase waits before its mappings apply."
        error={v.cooldown === "default" ? errors.cooldownSeconds : undefined}
      >
        {(control) => (
          <select
            {...control}
            className="input"
            value={v.cooldown}
            onChange={(e) => form.set("cooldown", e.target.value as "default" | "custom")}
          >
            <option value="default">The organization's default</option>
            <option value="custom">A cooldown for this group</option>
          </select>
        )}
      </Field>
      {v.cooldown === "custom"
        ? (
          <Field
            label="Cooldown in seconds"
            required
            inputMode="numeric"
            hint="0 applies a new file version at once; 86400 is one day."
            {...form.input("cooldownSeconds")}
            error={errors.cooldownSeconds}
          />
        )
        : null}
    </>
  )
}

/**
 * The settings form of a group, to create or to edit: the fields are checked as the API checks
 * them before `mutation` runs, and what was typed stays on any error.
 */
export function GroupForm({ initial, submitLabel, mutation, onSaved, actions }: {
  readonly initial: GroupValues
  readonly submitLabel: string
  readonly mutation: Mutation<PolicyAdministration.CreatePolicyGroupRequest, PolicyAdministration.PolicyGroupSettings>
  readonly onSaved: (g: PolicyAdministration.PolicyGroupSettings) => void
  readonly actions: ReactNode
}) {
  const form = useForm(initial)
  const { teams } = useTeams()
  const [local, setLocal] = useState<ApiError | undefined>()
  const error = local ?? mutation.error
  return (
    <Form
      submitLabel={submitLabel}
      error={error}
      pending={mutation.pending}
      actions={actions}
      onSubmit={async () => {
        const request = groupRequest(form.values)
        if (!request.ok) {
          setLocal({ status: 400, title: "Invalid", detail: "Some fields need attention.", fieldErrors: request.fieldErrors })
          return { ok: false }
        }
        setLocal(undefined)
        const outcome = await mutation.run(request.body)
        if (outcome.ok) onSaved(outcome.value)
        return outcome
      }}
    >
      <GroupFields form={form} errors={error?.fieldErrors ?? {}} teams={teams} />
    </Form>
  )
}
