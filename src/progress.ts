// The one shape of progress every stage reports: a line of text, and whether it is a
// transient counter (a terminal may redraw it in place, a log may skip it) or a line to keep.
// Only collect also hands out structured snapshots (CollectProgress), for scripts that want
// the counts themselves.

/** Progress of long work: `message`, transient (a counter to redraw) or not (a line to keep). */
export type Progress = (message: string, transient?: boolean) => void;

/** A Progress that says nothing. */
export const silent: Progress = () => undefined;
