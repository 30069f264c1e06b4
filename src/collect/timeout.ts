// The deadline of one run, from the --timeout asked for and the program's manifest.

/**
 * A manifest's timeoutMs may only shorten the deadline: it cuts short a program known to
 * deadlock, and never makes a run outlive the --timeout the user asked for.
 */
export function runTimeoutMs(optionMs: number, manifestMs: number | undefined): number {
  return manifestMs === undefined ? optionMs : Math.min(optionMs, manifestMs);
}
