/**
 * ISO 8601 date-times as requests and files give them (a snooze's `until`, a mapping's
 * `applicableDateTime`): one rule, so both refuse the same texts.
 */
import * as Schema from "effect/Schema"

const isoDateTime = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/

/**
 * A complete ISO 8601 date-time with a time zone that names a real instant. `Date.parse` alone
 * accepts "June 2031", "foo 2031" or "12" (V8's legacy formats), reads a zone-less time in the
 * server's zone, and rolls 2031-02-30 over to March: each would silently become another instant.
 */
export const isIsoDateTime = (text: string): boolean => {
  const m = isoDateTime.exec(text)
  if (m === null) return false
  const [year, month, day, hour, minute, second = "0", zoneHour = "0", zoneMinute = "0"] = m.slice(1)
  const daysInMonth = new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate()
  return Number(month) >= 1 && Number(month) <= 12 && Number(day) >= 1 && Number(day) <= daysInMonth &&
    Number(hour) <= 23 && Number(minute) <= 59 && Number(second) <= 59 && Number(zoneHour) <= 23 &&
    Number(zoneMinute) <= 59 && !Number.isNaN(Date.parse(text))
}

/** A string that `isIsoDateTime` accepts; the message says what is expected. */
export const IsoDateTime = Schema.String.check(
  Schema.makeFilter((s) => isIsoDateTime(s) || "must be an ISO 8601 date-time with a time zone, e.g. 2026-01-01T00:00:00Z")
)
