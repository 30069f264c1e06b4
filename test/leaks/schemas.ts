// Schema validators the CI-format tests share, read from disk with no network: the SARIF
// 2.1.0 JSON schema that Microsoft's @microsoft/jest-sarif package ships (draft-04,
// sarif-2.1.0-rtm.5.json, the schema @types/sarif is written from) and the repository's own
// schema of `leaks --json` (docs/leaks.schema.json, draft 2020-12).

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { ErrorObject, ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import AjvDraft04 from "ajv-draft-04";
import addFormats from "ajv-formats";

const require = createRequire(import.meta.url);

export const LEAKS_SCHEMA_FILE = fileURLToPath(new URL("../../docs/leaks.schema.json", import.meta.url));

/** The SARIF 2.1.0 schema file inside @microsoft/jest-sarif. */
export const SARIF_SCHEMA_FILE = require
  .resolve("@microsoft/jest-sarif/package.json")
  .replace(/package\.json$/, "lib/schemas/sarif-2.1.0-rtm.5.json");

export interface Validator {
  (data: unknown): boolean;
  /** The errors of the last call, as "path: message" lines. */
  readonly problems: () => string[];
}

function validator(validate: ValidateFunction): Validator {
  const check = ((data: unknown) => validate(data) as boolean) as Validator;
  Object.defineProperty(check, "problems", {
    value: () =>
      (validate.errors ?? []).map(
        (e: ErrorObject) => `${e.instancePath || "/"}: ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`,
      ),
  });
  return check;
}

/** Validates a SARIF log against the 2.1.0 schema, formats (uri, uri-reference, date-time) included. */
export function sarifValidator(): Validator {
  // The schema's language pattern is not valid with the u flag ("…-[a-zA-Z]{2}]?$"): compile it as written.
  // Both packages are CommonJS whose module object is also its default export.
  const ajv = new AjvDraft04.default({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats.default(ajv);
  return validator(ajv.compile(JSON.parse(readFileSync(SARIF_SCHEMA_FILE, "utf8")) as object));
}

/** Validates `leaks --json` output against docs/leaks.schema.json. */
export function leaksJsonValidator(): Validator {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  return validator(ajv.compile(JSON.parse(readFileSync(LEAKS_SCHEMA_FILE, "utf8")) as object));
}

/** The schema itself, to compare its enumerations with the code's. */
export function leaksJsonSchema(): { readonly $defs: Record<string, { readonly enum?: readonly string[] }> } {
  return JSON.parse(readFileSync(LEAKS_SCHEMA_FILE, "utf8")) as { $defs: Record<string, { enum?: string[] }> };
}
