// Child processes of the webhook benchmark: started pinned to one core (when `taskset` exists),
// asked over IPC, and all killed when the benchmark ends, even after an error.
import { execFileSync, spawn } from "node:child_process"
import { isAbsolute } from "node:path"
import { fileURLToPath } from "node:url"

const here = fileURLToPath(new URL(".", import.meta.url))

export const hasTaskset = (() => {
  try {
    execFileSync("taskset", ["-p", String(process.pid)], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()

const children = new Set()
export const killAll = () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  }
  children.clear()
}
process.once("exit", killAll)

/** Starts `_webhooks/<file>` (or an absolute path), pinned to `core`, and waits for its "ready" message. */
export const start = (file, args, core) =>
  new Promise((resolve, reject) => {
    const script = isAbsolute(file) ? file : `${here}${file}`
    const nodeArgs = process.env.BENCH_PROFILE && file.endsWith("worker.js")
      ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
      : []
    const child = hasTaskset
      ? spawn("taskset", ["-c", String(core), process.execPath, ...nodeArgs, script, ...args], {
        stdio: ["ignore", "inherit", "inherit", "ipc"]
      })
      : spawn(process.execPath, [...nodeArgs, script, ...args], { stdio: ["ignore", "inherit", "inherit", "ipc"] })
    children.add(child)
    const timer = setTimeout(() => reject(new Error(`${file} did not report ready within 60 s`)), 60_000)
    child.once("exit", (code, signal) => {
      children.delete(child)
      clearTimeout(timer)
      reject(new Error(`${file} exited before it was ready (code ${code}, signal ${signal})`))
    })
    child.on("message", (message) => {
      if (message?.type === "ready") {
        clearTimeout(timer)
        resolve({ child, ...message })
      }
    })
  })

let nextId = 0
/** Sends `message` and resolves with the reply of the same type and id. */
export const ask = (child, message) =>
  new Promise((resolve, reject) => {
    if (child.exitCode !== null || child.signalCode !== null) return reject(new Error(`child exited before ${message.type}`))
    const id = ++nextId
    const onMessage = (reply) => {
      if (reply?.type !== message.type || reply.id !== id) return
      child.off("message", onMessage)
      child.off("exit", onExit)
      if (reply.error !== undefined) reject(new Error(reply.error))
      else resolve(reply)
    }
    const onExit = () => reject(new Error(`child exited while answering ${message.type}`))
    child.on("message", onMessage)
    child.once("exit", onExit)
    child.send({ ...message, id })
  })

/** Asks a child to exit (so a CPU profile is written), kills it after 5 s, and waits for it. */
export const stop = async (child) => {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once("exit", resolve))
  child.send({ type: "exit" })
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000)
  await exited
  clearTimeout(timer)
  children.delete(child)
}
