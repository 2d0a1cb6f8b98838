import { Api } from "@image-policy/client/api/Api"
import { Workflows } from "@image-policy/core"
import { HttpApiBuilder } from "effect/http-api"
import { withCaller } from "./Call.js"

const { Settings } = Workflows

export const SettingsHandlers = HttpApiBuilder.group(Api, "settings", (handlers) =>
  handlers
    .handle("getSettings", () => withCaller((c) => Settings.getSettings(c)))
    .handle("updateSettings", ({ payload }) => withCaller((c) => Settings.updateSettings(c, payload))))
