/** axe-core on the page as it is now: no serious or critical violation (issue 17 "Tests"). */
import AxeBuilder from "@axe-core/playwright"
import type { Page } from "playwright-core"
import { expect } from "vitest"

export const axeCheck = async (page: Page, options: { readonly exclude?: ReadonlyArray<string> } = {}) => {
  let builder = new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
  for (const selector of options.exclude ?? []) builder = builder.exclude(selector)
  const results = await builder.analyze()
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
  const described = serious.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).slice(0, 5).join(", ")})`)
  expect(described, `axe on ${page.url()}`).toEqual([])
  return results
}
