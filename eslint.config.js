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
    // the core is pure: time, randomness and I/O come in through services
    files: ["packages/core/src/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: ["node:*", "@image-policy/adapters", "@image-policy/host", "@effect/*"] }],
      "no-restricted-globals": ["error", "process", "fetch", "setTimeout", "setInterval"],
      "no-restricted-properties": ["error",
        { object: "Date", property: "now", message: "use the Clock service" },
        { object: "Math", property: "random", message: "use the Random/Ids service" }]
    }
  }
)
