/**
 * Text the stores keep from files and providers (scanner findings, remediation changes), made
 * storable the same way on every store, so a scan never fails on what a file contains and every
 * store answers the same value.
 *
 * PostgreSQL (and PGlite) cannot store U+0000 in `text` or `jsonb`, and `jsonb` refuses a lone
 * UTF-16 surrogate (the `pg` driver would silently turn one into U+FFFD in `text`). Both are
 * REPLACED by U+FFFD (the Unicode replacement character), one for one: nothing is stripped, so
 * the length of a reference and the columns of what follows it on its line stay those of the file.
 * The memory store applies the same replacement, so a round trip reads the same on every store.
 */
import { type Remediation, type Scanner, Text } from "@image-policy/core"

const storable = Text.storableText

const optional = <K extends string, A>(key: K, value: A | undefined): { [P in K]?: A } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: A }

/** A finding as every store keeps it: the Scanner `Finding` fields only, with storable text. */
export const finding = (f: Scanner.Finding): Scanner.Finding => ({
  kind: f.kind,
  file: storable(f.file),
  line: f.line,
  column: f.column,
  reference: storable(f.reference),
  ...optional("image", f.image === undefined ? undefined : storable(f.image)),
  ...optional("normalized", f.normalized === undefined ? undefined : storable(f.normalized)),
  ...optional("platform", f.platform === undefined ? undefined : storable(f.platform)),
  ...optional("stage", f.stage === undefined ? undefined : storable(f.stage)),
  ...optional("unresolved", f.unresolved === undefined ? undefined : f.unresolved.map(storable))
})

/** A remediation request with storable text in its changes (they quote file contents). */
export const remediation = (r: Remediation.RemediationRequest): Remediation.RemediationRequest => ({
  ...r,
  // the provider's answer, not ours: stored as every other provider text
  url: r.url === null ? null : storable(r.url),
  changes: r.changes.map((c) => ({ ...c, file: storable(c.file), from: storable(c.from), to: storable(c.to), reason: storable(c.reason) }))
})

/**
 * A finding in the findings order (file, line, column), with `seq` telling apart findings at the
 * same position (their order as the scanner reported them). `file` is ordered by code point
 * (`Text.compareCodePoints`), the byte order of COLLATE "C" in SQL: the same on every store.
 */
export interface PositionedFinding {
  readonly finding: Scanner.Finding
  readonly seq: number
}

/** The stored findings of a succeeded scan, storable and in the findings order. */
export const positioned = (findings: ReadonlyArray<Scanner.Finding>): Array<PositionedFinding> => {
  const sorted = findings.map(finding).sort((a, b) => Text.compareCodePoints(a.file, b.file) || a.line - b.line || a.column - b.column)
  const out: Array<PositionedFinding> = []
  for (let i = 0; i < sorted.length; i++) {
    const f = sorted[i]!
    const prev = out[i - 1]
    const same = prev !== undefined && prev.finding.file === f.file && prev.finding.line === f.line &&
      prev.finding.column === f.column
    out.push({ finding: f, seq: same ? prev.seq + 1 : 0 })
  }
  return out
}

const pad = (n: number) => String(n).padStart(10, "0")

/**
 * The keyset position of a finding as a cursor's (sortKey, id): the file, and line, column and
 * seq zero-padded so that comparing the strings compares the numbers.
 */
export const cursorKey = (p: PositionedFinding): readonly [string, string] =>
  [p.finding.file, `${pad(p.finding.line)}:${pad(p.finding.column)}:${pad(p.seq)}`] as const

/** The (line, column, seq) of a cursor's id; zeros for an id it did not write. */
// a forged position past any real one means "after every finding of that file", not an integer
// the database cannot bind (which would be a 500)
const maxPosition = 2_147_483_647

export const parseCursorId = (id: string): readonly [number, number, number] => {
  const m = /^(\d{1,10}):(\d{1,10}):(\d{1,10})$/.exec(id)
  return m === null
    ? [0, 0, 0]
    : [Math.min(Number(m[1]), maxPosition), Math.min(Number(m[2]), maxPosition), Math.min(Number(m[3]), maxPosition)]
}
