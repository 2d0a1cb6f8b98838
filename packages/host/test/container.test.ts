/**
 * The container image (Dockerfile, compose.yaml, scripts/production-tree.js). The image's runtime
 * stage is the production tree the script assembles: the test runs that script into a temporary
 * directory and starts the host from it, so the image's layout (built packages and production
 * dependencies only) is proven on any machine. Building and starting the image itself needs a
 * Docker daemon: without one (`docker info` fails) that case is skipped with the reason.
 */
import { execFile, execFileSync, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parse } from "yaml"
import { ensureBuilt, root } from "./support/build.js"
import { cleanEnv } from "./support/cli.js"
import { until } from "./support/until.js"

const exec = promisify(execFile)

const dockerUnavailable = (() => {
  try {
    execFileSync("docker", ["info"], { stdio: "ignore", timeout: 20_000 })
    return undefined
  } catch (error) {
    return `no Docker daemon answers \`docker info\` (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`
  }
})()

const temps: Array<string> = []
const temp = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `ip-${name}-`))
  temps.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

beforeAll(ensureBuilt, 600_000)

/** Starts `bin serve` on a free port and answers its URL once it listens. */
const serveFrom = (bin: string, cwd: string, args: ReadonlyArray<string>) => {
  const child = spawn(process.execPath, [bin, "serve", "--port", "0", ...args], { cwd, env: cleanEnv() })
  let out = ""
  child.stdout.on("data", (d) => (out += d))
  child.stderr.on("data", (d) => (out += d))
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  const url = until("the listening line", () => {
    if (child.exitCode !== null) throw new Error(`the host exited ${child.exitCode}:\n${out}`)
    return out.match(/"listening".*?"url":"(http:\/\/[^"]+)"/)?.[1] ?? false
  }, 120_000)
  return { child, url, exited, output: () => out }
}

describe("the Dockerfile", () => {
  const dockerfile = readFileSync(join(root, "Dockerfile"), "utf8")

  it("builds in one stage and runs the production tree on Node 24 slim, as a non-root user, with a health check", () => {
    const stages = [...dockerfile.matchAll(/^FROM (\S+)(?: AS (\S+))?$/gm)].map((m) => ({ image: m[1], name: m[2] }))
    expect(stages.map((s) => s.name)).toEqual(["build", "runtime"])
    expect(dockerfile).toMatch(/^ARG NODE_VERSION=24\.\d+\.\d+$/m)
    for (const stage of stages) expect(stage.image).toBe("node:${NODE_VERSION}-slim")
    const node = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).devDependencies.node
    expect(dockerfile).toContain(`ARG NODE_VERSION=${node}`)
    expect(dockerfile).toMatch(/^RUN npm install /m)
    expect(dockerfile).toMatch(/^RUN npm run build$/m)
    expect(dockerfile).toMatch(/^RUN node scripts\/production-tree\.js \/out$/m)
    const runtime = dockerfile.slice(dockerfile.indexOf("AS runtime"))
    expect(runtime).toMatch(/^COPY --from=build \/out \/app$/m)
    expect(runtime).not.toMatch(/^COPY (?!--from=build)/m)
    expect(runtime).toMatch(/^USER node$/m)
    expect(runtime).toMatch(/^HEALTHCHECK .*\n\s+CMD \["node", "-e", "fetch\('http:\/\/127\.0\.0\.1:8080\/healthz'\)/m)
    expect(runtime.split("\n").filter((line) => !line.startsWith("#")).join("\n")).not.toContain("curl")
    expect(runtime).toMatch(/^EXPOSE 8080$/m)
    expect(runtime).toMatch(/^CMD \["serve", "--host", "0\.0\.0\.0", "--port", "8080"\]$/m)
  })

  it("has a .dockerignore that keeps local state, builds and dependencies out of the context", () => {
    const ignored = readFileSync(join(root, ".dockerignore"), "utf8").split("\n")
    for (const entry of ["**/node_modules", "**/dist", ".git", ".image-policy", ".env"]) expect(ignored).toContain(entry)
  })
})

describe("compose.yaml", () => {
  const compose = parse(readFileSync(join(root, "compose.yaml"), "utf8"), { merge: true })

  it("runs two hosts of the image on PostgreSQL 16 with one secret key and distinct instance ids", () => {
    expect(compose.services.postgres.image).toBe("postgres:16")
    expect(compose.services.postgres.healthcheck.test.join(" ")).toContain("pg_isready")
    const hosts = ["host-a", "host-b"].map((name) => compose.services[name])
    for (const host of hosts) {
      expect(host.build).toBe(".")
      expect(host.depends_on).toEqual({ postgres: { condition: "service_healthy" } })
      expect(host.environment.IMAGE_POLICY_SECRET_KEY).toMatch(/^\$\{IMAGE_POLICY_SECRET_KEY:\?/)
      expect(host.environment.DATABASE_URL).toMatch(
        /^postgres:\/\/image_policy:\$\{POSTGRES_PASSWORD:\?[^}]*\}@postgres:5432\/image_policy$/
      )
      expect(host.healthcheck.test.join(" ")).toContain("/readyz")
    }
    expect(new Set(hosts.map((h) => h.environment.IMAGE_POLICY_INSTANCE_ID)).size).toBe(2)
    expect(new Set(hosts.map((h) => h.ports[0])).size).toBe(2)
  })
})

describe("the image's production tree (scripts/production-tree.js)", () => {
  it("holds the built packages and production dependencies only, and the host serves from it", async () => {
    const tree = temp("tree")
    await exec(process.execPath, [join(root, "scripts/production-tree.js"), tree], { cwd: root, timeout: 300_000 })
    for (const pkg of ["core", "adapters", "host"]) {
      expect(existsSync(join(tree, "packages", pkg, "dist", "index.js"))).toBe(true)
      expect(existsSync(join(tree, "packages", pkg, "src"))).toBe(false)
      expect(existsSync(join(tree, "packages", pkg, "test"))).toBe(false)
      expect(existsSync(join(tree, "node_modules", "@image-policy", pkg, "dist", "index.js"))).toBe(true)
    }
    for (const dependency of ["effect", "@effect/platform-node", "@effect/sql-pg", "@electric-sql/pglite"]) {
      expect(existsSync(join(tree, "node_modules", dependency, "package.json"))).toBe(true)
    }
    // the web console is its built files only: React and Vite are bundled into them, not installed
    expect(existsSync(join(tree, "node_modules", "@image-policy", "console", "dist", "index.html"))).toBe(true)
    for (const devDependency of ["vitest", "typescript", "tsup", "node", "deno", "eslint", "fastify", "react", "vite"]) {
      expect(existsSync(join(tree, "node_modules", devDependency))).toBe(false)
    }

    // as the image runs it: from another directory, which holds the default embedded store
    const data = temp("data")
    const host = serveFrom(join(tree, "packages/host/bin/image-policy.js"), data, [])
    const url = await host.url
    const ready = await fetch(`${url}/readyz`)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toMatchObject({ status: "ready" })
    expect(existsSync(join(data, ".image-policy", "data", "secret.key"))).toBe(true)
    // the console at / (http/Console.ts), found in the tree's own @image-policy/console
    const page = await fetch(`${url}/settings/api-keys`)
    expect(page.status).toBe(200)
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'")
    const script = (await page.text()).match(/src="(\/assets\/[^"]+\.js)"/)?.[1]
    expect(script).toBeDefined()
    const asset = await fetch(`${url}${script}`)
    expect(asset.status).toBe(200)
    expect(asset.headers.get("cache-control")).toContain("immutable")
    host.child.kill("SIGTERM")
    expect(await host.exited).toBe(0)
  }, 600_000)
})

describe.skipIf(dockerUnavailable !== undefined)(
  `the image${dockerUnavailable === undefined ? "" : ` (skipped: ${dockerUnavailable})`}`,
  () => {
    it("builds, starts and answers /readyz", async () => {
      const tag = `image-policy-test:${process.pid}`
      await exec("docker", ["build", "-t", tag, root], { timeout: 900_000, maxBuffer: 64 * 1024 * 1024 })
      const { stdout } = await exec("docker", ["run", "-d", "--rm", "-p", "127.0.0.1::8080", tag])
      const container = stdout.trim()
      try {
        const port = (await exec("docker", ["port", container, "8080/tcp"])).stdout.trim().split(":").pop()
        const status = await until("the container's /readyz", async () => {
          const answer = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined)
          return answer?.status === 200 && answer.status
        }, 120_000)
        expect(status).toBe(200)
        const user = (await exec("docker", ["exec", container, "id", "-u"])).stdout.trim()
        expect(user).not.toBe("0")
      } finally {
        await exec("docker", ["rm", "-f", container]).catch(() => undefined)
        await exec("docker", ["rmi", tag]).catch(() => undefined)
      }
    }, 1_200_000)
  }
)

if (dockerUnavailable !== undefined) console.warn(`container test skipped: ${dockerUnavailable}`)
