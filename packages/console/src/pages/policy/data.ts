/** Reads of the policy pages beyond one call: every draft mapping of a phase (cursor pages of 200). */
import type { Id, PolicyAdministration } from "@image-policy/core"
import { useCallback, useEffect, useState } from "react"
import { type ApiError, run } from "../../api.js"
import { useSession } from "../../session.js"

export type DraftMapping = PolicyAdministration.DraftView["added"][number]

export const groupIdOf = (id: string) => id as Id.PolicyGroupId
export const phaseIdOf = (id: string) => id as Id.PhaseId
export const mappingIdOf = (id: string) => id as Id.MappingId

export interface AllDrafts {
  readonly items: ReadonlyArray<DraftMapping>
  /** True until the last page arrived (rows already read are shown meanwhile). */
  readonly loading: boolean
  readonly error: ApiError | undefined
  readonly reload: () => void
  /** Puts a mapping the API answered in place (or at the end) without reading every page again. */
  readonly put: (m: DraftMapping) => void
  /** Takes a removed mapping out. */
  readonly drop: (id: string) => void
}

/**
 * Every draft mapping of one phase: the phase's cursor pages (200 rows each) read one after the
 * other, each shown as it arrives. A reload keeps the rows on screen until the first page is back.
 */
export function useAllDrafts(groupId: string, phaseId: string | undefined): AllDrafts {
  const { session } = useSession()
  const orgId = session.organization.id
  const [items, setItems] = useState<ReadonlyArray<DraftMapping>>([])
  const [loading, setLoading] = useState(true)
  const [error, setError] = useState<ApiError | undefined>()
  const [tick, setTick] = useState(0)
  useEffect(() => {
    if (phaseId === undefined) {
      setItems([])
      setLoading(false)
      return
    }
    let cancelled = false
    setLoading(true)
    void (async () => {
      const all: Array<DraftMapping> = []
      let cursor: string | undefined
      do {
        const at = cursor
        const outcome = await run(
          (api, org) =>
            api.policy.listDraftMappings({
              params: { orgId: org, groupId: groupIdOf(groupId), phaseId: phaseIdOf(phaseId) },
              query: { limit: 200, ...(at !== undefined ? { cursor: at } : {}) }
            }),
          orgId
        )
        if (cancelled) return
        if (!outcome.ok) {
          setError(outcome.error)
          setLoading(false)
          return
        }
        all.push(...(outcome.value.items as ReadonlyArray<DraftMapping>))
        cursor = outcome.value.nextCursor
        setItems([...all])
      } while (cursor !== undefined)
      setError(undefined)
      setLoading(false)
    })()
    return () => {
      cancelled = true
    }
  }, [orgId, groupId, phaseId, tick])
  const put = useCallback((m: DraftMapping) =>
    setItems((all) => {
      const at = all.findIndex((x) => x.id === m.id)
      return at === -1 ? [...all, m] : all.map((x, i) => (i === at ? m : x))
    }), [])
  const drop = useCallback((id: string) => setItems((all) => all.filter((x) => x.id !== id)), [])
  return { items, loading, error, reload: useCallback(() => setTick((t) => t + 1), []), put, drop }
}
