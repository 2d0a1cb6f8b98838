/** Expected output files checked in beside a test (check's reports): compared byte for byte. */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { expect } from "vitest"

/** `golden(name, actual)`: `actual` equals the bytes of `dir/name`, or (with UPDATE_GOLDEN=1) becomes them. */
export const goldenIn = (dir: string) => (name: string, actual: string): void => {
  const file = join(dir, name)
  if (process.env.UPDATE_GOLDEN === "1") {
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, actual)
  }
  expect(actual).toBe(readFileSync(file, "utf8"))
}
