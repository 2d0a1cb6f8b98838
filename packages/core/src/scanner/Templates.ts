/**
 * Unrendered Helm and Go templates (`{{ ... }}`) in YAML. The text the YAML reader sees is masked,
 * with the same length so that every offset stays that of the file:
 * - a line made only of template actions (`{{- if .Values.x }}`, `{{- end }}`) becomes a comment: it
 *   adds or removes lines at render time and is not YAML itself; unless it is the value of the key on
 *   the line above (`image:` then, indented, `{{ .Values.image }}`), where it stays a value;
 * - any other template becomes a run of `x` (a plain scalar): `image: {{ .Values.image }}` is a
 *   value, not a flow mapping. Values are read back from the file's own text.
 */

const templateRe = /\{\{.*?\}\}/g
const templateOnlyRe = /^[ \t]*(?:\{\{.*?\}\}[ \t]*)+(?:#.*)?$/
/** A line that ends with a key or a dash and no value: `image:`, `- image:  # comment`, `-`. */
const opensValueRe = /(?:^|[ \t])-$|:$/

const maskRun = (s: string) => "x".repeat(s.length)

/** `text` with its templates masked (see above); the same string when it has none. */
export const maskTemplates = (text: string): string => {
  if (!text.includes("{{")) return text
  const lines = text.split("\n")
  let previous: { readonly indent: number; readonly opensValue: boolean } | undefined
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const cr = line.endsWith("\r") ? "\r" : ""
    const body = cr === "" ? line : line.slice(0, -1)
    const indent = body.length - body.trimStart().length
    if (indent === body.length || body[indent] === "#") continue
    if (body.includes("{{")) {
      if (templateOnlyRe.test(body)) {
        const isValue = previous !== undefined && previous.opensValue && indent > previous.indent
        lines[i] = isValue
          ? body.slice(0, indent) + body.slice(indent).replace(templateRe, maskRun) + cr
          : `${body.slice(0, indent)}#${body.slice(indent + 1)}${cr}`
      } else {
        lines[i] = body.replace(templateRe, maskRun) + cr
      }
    }
    previous = { indent, opensValue: opensValueRe.test(body.replace(/[ \t]+#.*$/, "").trimEnd()) }
  }
  return lines.join("\n")
}
