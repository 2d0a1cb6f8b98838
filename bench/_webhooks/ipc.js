// Request/reply over a child's IPC channel: the parent sends { type, id, ...}, the child answers
// with the same type and id. Shared by the webhook benchmark's children.

/** In a child: answers each request with `handlers[type](message)` (may be async). */
export const serve = (handlers) => {
  process.on("message", async (message) => {
    if (message?.type === "exit") process.exit(0)
    const handler = handlers[message?.type]
    if (handler === undefined) return
    try {
      process.send({ type: message.type, id: message.id, ...(await handler(message)) })
    } catch (error) {
      process.send({ type: message.type, id: message.id, error: String(error?.stack ?? error) })
    }
  })
}

/** The CPU seconds (user + system) this process has used so far. */
export const cpuSeconds = () => {
  const { system, user } = process.cpuUsage()
  return (user + system) / 1e6
}
