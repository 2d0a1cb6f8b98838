/**
 * Request a snooze: the repository, the image whose remediation is held back, the reason and the
 * day it ends. Checked here as the API checks it (required, lengths, a day after now) and then by
 * the API, whose field errors show at the field; what was typed is kept on any error.
 */
import type { Repository } from "@image-policy/core"
import { useState } from "react"
import { useMutation } from "../../api.js"
import { Field } from "../../components/Field.js"
import { Form, useForm } from "../../components/Form.js"
import { asId, type RepositoryId } from "../repositories/shared.js"

/** `YYYY-MM-DD` of a local date. */
const dayOf = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`

/** The end of a chosen day in the reader's zone, as the ISO 8601 instant (with `Z`) the API takes; undefined when not a real day. */
export const endOfDay = (day: string): string | undefined => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day)
  if (m === null) return undefined
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const date = new Date(y, mo - 1, d, 23, 59, 59)
  if (date.getFullYear() !== y || date.getMonth() !== mo - 1 || date.getDate() !== d) return undefined
  return date.toISOString()
}

/** The API's rules for a snooze request, as field errors (empty when it may be sent). */
export const checkSnooze = (v: { repositoryId: string; fromImage: string; reason: string; until: string }, now = new Date()) => {
  const errors: Record<string, string> = {}
  if (v.repositoryId === "") errors.repositoryId = "Choose the repository."
  if (v.fromImage === "") errors.fromImage = "Enter the image to snooze."
  else if (v.fromImage.length > 512) errors.fromImage = "At most 512 characters."
  const reason = v.reason.trim()
  if (reason === "") errors.reason = "Say why the image cannot be replaced yet."
  else if (reason.length > 2000) errors.reason = "At most 2,000 characters."
  const until = endOfDay(v.until)
  if (v.until === "") errors.until = "Choose the day the snooze ends."
  else if (until === undefined) errors.until = "Enter a date such as 2026-06-30."
  else if (Date.parse(until) <= now.getTime()) errors.until = "The day must be in the future."
  return errors
}

export function CreateSnooze(props: {
  readonly repositories: ReadonlyArray<Repository.RepositoryView>
  readonly initialRepositoryId: string
  readonly onCreated: (id: string) => void
  readonly onCancel: () => void
}) {
  const form = useForm({ repositoryId: props.initialRepositoryId, fromImage: "", reason: "", until: "" })
  const [local, setLocal] = useState<Record<string, string>>({})
  const create = useMutation((api, orgId, v: typeof form.values) =>
    api.snoozeRequests.createSnoozeRequest({
      params: { orgId },
      payload: {
        repositoryId: asId<RepositoryId>(v.repositoryId),
        fromImage: v.fromImage,
        reason: v.reason,
        until: endOfDay(v.until) ?? v.until
      }
    })
  )
  const errorOf = (key: string) => local[key] ?? create.error?.fieldErrors[key]
  const today = dayOf(new Date())
  return (
    <section className="card" aria-labelledby="create-snooze-title">
      <h2 id="create-snooze-title">Request a snooze</h2>
      <p className="muted repo-note">
        An approved snooze holds back remediation of one image in one repository until the day it ends. A reviewer approves or rejects it.
      </p>
      <Form
        submitLabel="Request snooze"
        error={create.error}
        pending={create.pending}
        aria-label="Request a snooze"
        actions={<button type="button" className="button" onClick={props.onCancel}>Cancel</button>}
        onSubmit={async () => {
          const errors = checkSnooze(form.values)
          setLocal(errors)
          if (Object.keys(errors).length > 0) {
            create.reset()
            return { ok: false }
          }
          const outcome = await create.run(form.values)
          if (outcome.ok) props.onCreated(outcome.value.id)
          return outcome
        }}
      >
        <Field label="Repository" required error={errorOf("repositoryId")}>
          {(control) => (
            <select {...control} className="input" {...form.input("repositoryId")}>
              <option value="">Choose a repository…</option>
              {props.repositories.map((r) => <option key={r.id} value={r.id}>{r.fullName}</option>)}
            </select>
          )}
        </Field>
        <Field
          label="Image"
          required
          hint="The image reference whose replacement is held back, as the findings show it (e.g. node:18)."
          maxLength={512}
          autoComplete="off"
          spellCheck={false}
          {...form.input("fromImage")}
          error={errorOf("fromImage")}
        />
        <Field label="Reason" required hint="Why it cannot be replaced yet (up to 2,000 characters)." error={errorOf("reason")}>
          {(control) => <textarea {...control} className="input" rows={3} maxLength={2000} {...form.input("reason")} />}
        </Field>
        <Field
          label="Snooze until"
          required
          type="date"
          min={today}
          hint="The snooze ends at the end of this day, in your time zone."
          {...form.input("until")}
          error={errorOf("until")}
        />
      </Form>
    </section>
  )
}
