/**
 * Text in a YAML value that the scanner does not evaluate: Compose and GitLab CI variables (`${VAR}`,
 * `$VAR`), Helm and Go templates (`{{ expr }}`), GitHub Actions expressions (`${{ expr }}`).
 */

const expressionRe = /\$\{\{[\s\S]*?\}\}|\{\{[\s\S]*?\}\}|\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}|\$([A-Za-z_][A-Za-z0-9_]*)/g

/** The expressions in a value, each once, in order: a variable by its name, a template as written. `$$` is a dollar. */
export const expressionsIn = (value: string): Array<string> => {
  const found: Array<string> = []
  for (const m of value.matchAll(expressionRe)) {
    if (m[0] === "$$") continue
    found.push(m[1] ?? m[2] ?? m[0])
  }
  return [...new Set(found)]
}
