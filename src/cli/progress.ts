// The one progress writer of the CLI: kept lines are printed (on a terminal over the transient
// line, which the next counter redraws), transient counters redraw one line in place on a
// terminal, at most ~10 times a second, and are left out of logs.

import type { Progress } from "../progress.js";

export interface ProgressWriter {
  readonly write: Progress;
  /** Ends the transient line, drawing its last state (call before printing results). */
  readonly done: () => void;
}

export function progressWriter(stream: NodeJS.WriteStream, options: { readonly quiet?: boolean } = {}): ProgressWriter {
  if (options.quiet === true) return { write: () => undefined, done: () => undefined };
  const tty = stream.isTTY === true;
  let transient: string | null = null;
  let pending = false;
  let last = 0;
  const draw = (): void => {
    if (transient === null) return;
    stream.write(`\r${transient}\x1b[K`);
    last = Date.now();
    pending = false;
  };
  return {
    write: (message, isTransient = false) => {
      if (!isTransient) {
        stream.write(tty ? `\r\x1b[K${message}\n` : `${message}\n`);
        transient = null;
        pending = false;
        return;
      }
      if (!tty) return;
      const first = transient === null;
      transient = message;
      if (first || Date.now() - last >= 100) draw();
      else pending = true;
    },
    done: () => {
      if (!tty || transient === null) return;
      if (pending) draw();
      stream.write("\n");
      transient = null;
    },
  };
}
