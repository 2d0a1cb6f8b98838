/** Signs `user` in through the sign-in page, as a person does, and waits for the page it leads to. */
import type { Page } from "playwright-core"

export const signIn = async (
  page: Page,
  baseUrl: string,
  user: { readonly email: string; readonly password: string },
  path = "/"
) => {
  await page.goto(`${baseUrl}${path}`)
  await page.waitForURL(/\/sign-in/)
  await page.getByLabel("Email").fill(user.email)
  await page.getByLabel("Password").fill(user.password)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.waitForURL((url) => !url.pathname.startsWith("/sign-in"))
  await page.getByRole("banner").getByRole("button", { name: "Sign out" }).waitFor()
}
