/**
 * Screenshots of each page as test artifacts (`packages/console/test-artifacts/`, gitignored):
 * `screenshot(page, "sign-in")` writes `sign-in-1280x800.png` (the page's viewport);
 * `screenshots(page, "sign-in")` writes both 1280x800 and 390x844 and restores the viewport.
 */
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { desktop, phone } from "./browser.js"
import { consoleRoot } from "./build.js"

export const artifactsDir = join(consoleRoot, "test-artifacts")

export const screenshot = async (page: Page, name: string): Promise<string> => {
  mkdirSync(artifactsDir, { recursive: true })
  const size = page.viewportSize() ?? desktop
  const path = join(artifactsDir, `${name}-${size.width}x${size.height}.png`)
  // from the top: a full-page shot of a scrolled page draws the sticky banner mid-page
  await page.evaluate(() => window.scrollTo(0, 0))
  await page.screenshot({ path, fullPage: true, animations: "disabled" })
  return path
}

export const screenshots = async (page: Page, name: string): Promise<ReadonlyArray<string>> => {
  const before = page.viewportSize() ?? desktop
  const paths: Array<string> = []
  for (const size of [desktop, phone]) {
    await page.setViewportSize(size)
    paths.push(await screenshot(page, name))
  }
  await page.setViewportSize(before)
  return paths
}
