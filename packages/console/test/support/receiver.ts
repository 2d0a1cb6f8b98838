/**
 * A webhook receiver on loopback for the webhook pages' tests: records every request and answers
 * with the status the test sets (`setStatus(500)` for a failed attempt, then 204).
 */
import { createServer, type IncomingHttpHeaders } from "node:http"

export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

export interface Receiver {
  readonly url: string
  readonly received: ReadonlyArray<Received>
  setStatus(status: number): void
  close(): Promise<void>
}

export const startReceiver = async (status = 204): Promise<Receiver> => {
  const received: Array<Received> = []
  let answer = status
  const server = createServer((request, response) => {
    let body = ""
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")))
    request.on("end", () => {
      received.push({ method: request.method ?? "", path: request.url ?? "", headers: request.headers, body })
      response.statusCode = answer
      response.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    setStatus: (s) => {
      answer = s
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
