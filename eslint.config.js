// Lint rules of the house (STYLE.md): no `any`, no default exports, and a line length that
// the formatter cannot keep on its own: comments and string literals longer than MAX_LINE.
// Prettier owns the layout (.prettierrc.json, printWidth 120); dependency-cruiser owns the
// import floors (.dependency-cruiser.cjs).
import js from "@eslint/js";
import stylistic from "@stylistic/eslint-plugin";
import globals from "globals";
import tseslint from "typescript-eslint";

const MAX_LINE = 160;

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "go-programs/", "test/fixtures/", "test/.tmp/", "bench/.out/"] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ["**/*.{ts,js,mjs,cjs}"],
    languageOptions: { globals: { ...globals.node } },
    plugins: { "@stylistic": stylistic },
    rules: {
      "@stylistic/max-len": [
        "error",
        {
          code: MAX_LINE,
          comments: MAX_LINE,
          ignoreUrls: true,
          ignoreRegExpLiterals: true,
          ignorePattern: "^import |^export .* from ",
        },
      ],
      "no-restricted-exports": [
        "error",
        {
          restrictDefaultExports: {
            direct: true,
            named: true,
            defaultFrom: true,
            namedFrom: true,
            namespaceFrom: true,
          },
        },
      ],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
    },
  },
  {
    // Tool configuration files are read through their default export.
    files: ["*.config.{ts,js,mjs}"],
    rules: { "no-restricted-exports": "off" },
  },
  {
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs" },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
