/** Organization -> General: name, edition and grants (read only), default notification team and cooldown. */
import { Organization, type Team } from "@image-policy/core"
import { useState } from "react"
import { type ApiError, useMutation, useQuery } from "../../api.js"
import { ErrorMessage } from "../../components/ErrorMessage.js"
import { Field } from "../../components/Field.js"
import { Form, useForm } from "../../components/Form.js"
import { Loading } from "../../components/Loading.js"
import { useToast } from "../../components/Toast.js"
import { useSession } from "../../session.js"
import { errorAt, fieldError, formatTime, localError } from "./validate.js"

const units = [["days", 86_400], ["hours", 3_600], ["minutes", 60], ["seconds", 1]] as const
type Unit = (typeof units)[number][0]

/** 5400 -> "1 h 30 min" */
export const humanDuration = (seconds: number): string => {
  if (seconds === 0) return "no delay"
  const parts: Array<string> = []
  let rest = seconds
  for (const [name, size] of [["d", 86_400], ["h", 3_600], ["min", 60], ["s", 1]] as const) {
    const n = Math.floor(rest / size)
    if (n > 0) parts.push(`${n} ${name}`)
    rest -= n * size
  }
  return parts.join(" ")
}

const split = (seconds: number): { amount: string; unit: Unit } => {
  const unit = units.find(([, size]) => seconds % size === 0 && seconds >= size) ?? units[3]
  return { amount: String(seconds / unit[1]), unit: unit[0] }
}

export function GeneralSection({ teams }: { readonly teams: ReadonlyArray<Team.Team> }) {
  const settings = useQuery((api, orgId) => api.settings.getSettings({ params: { orgId } }), [])
  return (
    <section className="settings-section" aria-labelledby="general-title">
      <div className="settings-section__header">
        <h2 id="general-title">General</h2>
      </div>
      {settings.data === undefined
        ? settings.loading ? <Loading label="Loading the settings" /> : <ErrorMessage error={settings.error} onRetry={settings.reload} />
        : <GeneralCard settings={settings.data} teams={teams} onSaved={settings.reload} />}
    </section>
  )
}

function GeneralCard({ settings, teams, onSaved }: {
  readonly settings: Organization.Settings
  readonly teams: ReadonlyArray<Team.Team>
  readonly onSaved: () => void
}) {
  const { can } = useSession()
  const toast = useToast()
  const initial = split(settings.cooldownSeconds)
  const form = useForm({ team: settings.defaultNotificationTeamId ?? "", amount: initial.amount, unit: initial.unit as string })
  const [checkError, setCheckError] = useState<ApiError | undefined>()
  const save = useMutation((api, orgId, payload: Organization.SettingsPatch) => api.settings.updateSettings({ params: { orgId }, payload }))
  const error = checkError ?? save.error
  const teamName = (id: string | null) => id === null ? "None" : teams.find((t) => t.id === id)?.name ?? id
  const factor = units.find(([u]) => u === form.values.unit)?.[1] ?? 1
  const amount = form.values.amount.trim()
  const seconds = /^\d+$/.test(amount) ? Number(amount) * factor : Number.NaN

  const submit = async () => {
    setCheckError(undefined)
    const local = localError({
      cooldownSeconds: Number.isNaN(seconds) ? "Enter a whole number." : fieldError(Organization.CooldownSeconds, seconds)
    })
    if (local !== undefined) {
      setCheckError(local)
      save.reset()
      return { ok: false }
    }
    const outcome = await save.run({
      defaultNotificationTeamId: form.values.team === "" ? null : form.values.team as Team.Team["id"],
      cooldownSeconds: seconds
    })
    if (outcome.ok) {
      toast.show("Settings saved")
      onSaved()
    }
    return outcome
  }

  const grants = settings.grants.length === 0
    ? "None"
    : settings.grants.map((g) => `${g.feature}${g.expiresAt !== null ? ` (until ${formatTime(g.expiresAt)})` : ""}`).join(", ")

  return (
    <div className="card">
      <dl className="definition-list">
        <dt>Name</dt>
        <dd>{settings.name}</dd>
        <dt>Edition</dt>
        <dd>{settings.edition}</dd>
        <dt>Grants</dt>
        <dd>{grants}</dd>
        {can("organization:manage")
          ? null
          : (
            <>
              <dt>Default notification team</dt>
              <dd>{teamName(settings.defaultNotificationTeamId)}</dd>
              <dt>Cooldown</dt>
              <dd>{humanDuration(settings.cooldownSeconds)}</dd>
            </>
          )}
      </dl>
      <p className="muted">Edition and grants are changed by the service's operators.</p>
      {can("organization:manage")
        ? (
          <Form submitLabel="Save settings" aria-label="Organization settings" error={error} pending={save.pending} onSubmit={submit}>
            <Field
              label="Default notification team"
              hint="Receives notifications of policy groups that name no team."
              error={errorAt(error, "defaultNotificationTeamId")}
            >
              {(control) => (
                <select className="input" {...control} {...form.input("team")}>
                  <option value="">None</option>
                  {teams.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
                </select>
              )}
            </Field>
            <div className="expiry-row">
              <Field
                label="Cooldown"
                type="number"
                inputMode="numeric"
                min={0}
                hint={`Delay before external policy changes take effect (at most a year). Now: ${
                  Number.isNaN(seconds) ? "—" : humanDuration(seconds)
                }.`}
                {...form.input("amount")}
                error={errorAt(error, "cooldownSeconds")}
              />
              <Field label="Unit">
                {(control) => (
                  <select className="input" {...control} {...form.input("unit")}>
                    {units.map(([u]) => <option key={u} value={u}>{u}</option>)}
                  </select>
                )}
              </Field>
            </div>
          </Form>
        )
        : null}
    </div>
  )
}
