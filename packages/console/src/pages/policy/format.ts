/** Small formatting helpers of the policy pages (dates, counts, a mapping's one-line label). */

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" })

/** "27 Nov 2026, 09:20" (the browser's locale), or `fallback` for null / unparsable input. */
export const formatDateTime = (iso: string | null | undefined, fallback = "Never"): string => {
  if (iso === null || iso === undefined) return fallback
  const ms = Date.parse(iso)
  return Number.isNaN(ms) ? fallback : dateTime.format(ms)
}

/** "1 mapping", "2,000 mappings". */
export const count = (n: number, singular: string, plural = `${singular}s`): string =>
  `${n.toLocaleString()} ${n === 1 ? singular : plural}`

/** "42 seconds", "5 minutes", "2 hours", "1 day" (whole units when they divide evenly). */
export const formatSeconds = (seconds: number): string => {
  if (seconds === 0) return "none (0 seconds)"
  if (seconds % 86_400 === 0) return count(seconds / 86_400, "day")
  if (seconds % 3_600 === 0) return count(seconds / 3_600, "hour")
  if (seconds % 60 === 0) return count(seconds / 60, "minute")
  return count(seconds, "second")
}

export interface MappingLike {
  readonly fromImage: string
  readonly toImage: string
  readonly platformScope?: string | undefined
  readonly reason?: string | undefined
}

/** What a filter box matches against: the images, the platform scope and the reason. */
export const mappingText = (m: MappingLike): string =>
  `${m.fromImage} ${m.toImage} ${m.platformScope ?? ""} ${m.reason ?? ""}`.toLowerCase()

/** "node:18 → node:20 (linux/amd64)". */
export const mappingLabel = (m: MappingLike): string =>
  `${m.fromImage} → ${m.toImage}${m.platformScope !== undefined && m.platformScope !== "" ? ` (${m.platformScope})` : ""}`
