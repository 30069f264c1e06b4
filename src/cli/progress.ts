// The one progress writer of the CLI: kept lines are printed (on a terminal over the transient
// line, which the next counter redraws), transient counters redraw one line in place on a
// terminal, at most ~10 times a second, and are left out of logs. A log (CI) gets a heartbeat
// instead: a status line every few seconds (logHeartbeat), so long work never looks hung.

import type { Progress } from "../progress.js";

export interface ProgressWriter {
  readonly write: Progress;
  /** Ends the transient line, drawing its last state (call before printing results). */
  readonly done: () => void;
  /** Whether transient counters are drawn: stderr is a terminal and the writer is not quiet. */
  readonly live: boolean;
}

export function progressWriter(stream: NodeJS.WriteStream, options: { readonly quiet?: boolean } = {}): ProgressWriter {
  if (options.quiet === true) return { write: () => undefined, done: () => undefined, live: false };
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
    live: tty,
  };
}

/** How often a log gets a status line by default. */
export const LOG_PROGRESS_EVERY_MS = 10_000;

export interface LogHeartbeat {
  /** Stops the heartbeat and writes `final` (if given): the last status line. Idempotent. */
  readonly stop: (final?: string) => void;
}

/**
 * On a log (a stream that is not a terminal), writes `line()` every `everyMs` (default
 * LOG_PROGRESS_EVERY_MS) until stopped; on a terminal, or when quiet, does nothing (the live
 * status line is the terminal's progress). The timer is unref'd: it never keeps the process
 * alive, and a process that exits without stop() loses only the next tick.
 */
export function logHeartbeat(
  stream: NodeJS.WriteStream,
  line: () => string,
  options: { readonly quiet?: boolean; readonly everyMs?: number } = {},
): LogHeartbeat {
  if (options.quiet === true || stream.isTTY === true) return { stop: () => undefined };
  const timer = setInterval(() => stream.write(`${line()}\n`), options.everyMs ?? LOG_PROGRESS_EVERY_MS);
  timer.unref();
  let stopped = false;
  return {
    stop: (final) => {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      if (final !== undefined) stream.write(`${final}\n`);
    },
  };
}
