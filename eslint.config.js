import js from "@eslint/js"
import globals from "globals"
import tseslint from "typescript-eslint"

export default tseslint.config(
  { ignores: ["**/dist/**", "**/node_modules/**", ".image-policy/**", "**/*.d.ts"] },
  js.configs.recommended,
  { files: ["**/*.js"], languageOptions: { globals: { ...globals.node } } },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-empty-object-type": "off",
      "@typescript-eslint/no-namespace": "off"
    }
  },
  {
    // the core is pure: time, randomness and I/O come in through services. It imports its own modules
    // and an allowlist of pure libraries only (the same list as packages/core/test/purity.test.ts):
    // `effect`, the framework it is written in; `yaml`, the scanner's YAML reader (no I/O, no globals).
    files: ["packages/core/src/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [{
          regex: "^(?!(?:effect|yaml)(?:/|$)|\\.\\.?/)",
          caseSensitive: true,
          message: "the core imports its own modules, `effect` and `yaml` only (see packages/core/test/purity.test.ts)"
        }]
      }],
      "no-restricted-globals": ["error", "process", "fetch", "setTimeout", "setInterval"],
      "no-restricted-properties": ["error", { object: "Date", property: "now", message: "use the Clock service" }, {
        object: "Math",
        property: "random",
        message: "use the Random/Ids service"
      }]
    }
  }
)
