// Program families (docs/dataset.md): programs that share a template, a hand-written category or
// a directory are siblings, and no held-out program may have a sibling in training.
// Pure: a program's name and manifest in, its family out.

/** The manifest fields a family is read from; any other field is ignored. */
export interface FamilyLabels {
  /** An explicit family chosen by the program's author. */
  readonly family?: unknown;
  /** For generated programs: the generator template. */
  readonly generated?: { readonly template?: unknown } | null;
}

/** A module program's name: the module path (its first element has a dot), "@v" and the version. */
const MODULE_NAME = /^([^@/]+\.[^@/]*(?:\/[^@/]+)*)@v[^/]+(?:\/|$)/;

/**
 * The family of a program:
 * 1. the manifest's `family` string, when given;
 * 2. `generated/<template>` for a generated program (its siblings are the template's other seeds);
 * 3. the module path for a program of a module fetched from the module proxy, named
 *    "module@version/…" ("github.com/oklog/run@v1.2.0/sub" → "github.com/oklog/run"): a module's
 *    packages are siblings, whichever version;
 * 4. otherwise the directory that holds the program's directory — the hand-written category
 *    ("patterns/channels/fanout" → "patterns/channels", "kernels/abba/transfer" → "kernels/abba"),
 *    or, in an unlabelled tree, the folder its packages share;
 * 5. a program at the top of its root (no "/" in its name) is a family of its own.
 * A "#…" suffix (a main package's tests, a split test) is ignored, so every program built from
 * one package directory is in one family.
 *
 * @example programFamily("kernels/abba/transfer", null) // => "kernels/abba"
 * @example programFamily("generated/pipeline-1001", { generated: { template: "pipeline" } }) // => "generated/pipeline"
 * @example programFamily("app#test", null) // => "app"
 * @example programFamily("github.com/oklog/run@v1.2.0", null) // => "github.com/oklog/run"
 */
export function programFamily(name: string, labels: FamilyLabels | null): string {
  if (labels !== null) {
    if (typeof labels.family === "string" && labels.family.trim() !== "") return labels.family.trim();
    const template = labels.generated?.template;
    if (typeof template === "string" && template !== "") return `generated/${template}`;
  }
  const dir = name.split("#")[0]!;
  const module = MODULE_NAME.exec(dir);
  if (module !== null) return module[1]!;
  const slash = dir.lastIndexOf("/");
  return slash < 0 ? dir : dir.slice(0, slash);
}

/** The group a family belongs to for stratified holdouts: the first component of its name ("kernels/abba" → "kernels"). */
export function familyGroup(family: string): string {
  const slash = family.indexOf("/");
  return slash < 0 ? family : family.slice(0, slash);
}
