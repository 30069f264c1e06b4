// Go module and toolchain helpers shared by every stage that runs the go command: where a
// package's module is, which toolchain the go command selects (read one way, `go env`),
// and the scrubbed environments builds and runs get.

export { insideModule, moduleRoot } from "./module.js";
export {
  goCommandOf,
  goEnv,
  goMinorVersion,
  goToolchain,
  MIN_GO_MINOR,
  supportsTraces,
  type GoToolchain,
} from "./toolchain.js";
export { buildEnvironment, runEnvironment } from "./env.js";
