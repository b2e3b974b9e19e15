// Progress on stderr: a spinner line on a terminal, plain lines otherwise (CI logs). The texts
// shown go through `write` (made printable); only the spinner's own control sequences go through
// `control` as they are.

import { SYSTEM_CLOCK } from '../core/clock';
import type { Clock } from '../core/clock';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface Progress {
  /** Shows the current state; on a terminal the line is redrawn, otherwise printed when it changes. */
  update(text: string): void;
  /** Prints a line that stays. */
  line(text: string): void;
  /** Clears the spinner and stops its timer. */
  done(): void;
}

export interface ProgressOptions {
  /**
   * Shows the state at most this often, for states that change many times a second (a batch): the
   * updates in between are held, the latest shown when the interval is over. Off a terminal every
   * state shown is then printed, changed or not (a sign of life in a CI log); without it, only
   * changes of state are printed.
   */
  readonly minIntervalMs?: number;
  /** The time the interval is measured in (a fake one in tests). */
  readonly clock?: Clock;
}

export function createProgress(
  write: (text: string) => void,
  isTTY: boolean,
  control: (text: string) => void = write,
  options: ProgressOptions = {},
): Progress {
  const interval = options.minIntervalMs;
  if (interval === undefined) return isTTY ? spinnerLine(write, control) : plainLines(write, true);
  return throttle(isTTY ? spinnerLine(write, control) : plainLines(write, false), interval, options.clock ?? SYSTEM_CLOCK);
}

function plainLines(write: (text: string) => void, changesOnly: boolean): Progress {
  let last = '';
  return {
    update(text) {
      if (changesOnly) {
        // Only state changes, not the ticking seconds.
        const state = text.replace(/\d+(\.\d+)? ?s\b.*$/, '').trim();
        if (state === last) return;
        last = state;
      }
      write(`${text}\n`);
    },
    line: (text) => write(`${text}\n`),
    done: () => undefined,
  };
}

function spinnerLine(write: (text: string) => void, control: (text: string) => void): Progress {
  let frame = 0;
  let current = '';
  const clearLine = (): void => control('\r\u001b[2K');
  const draw = (): void => {
    clearLine();
    write(`${FRAMES[frame++ % FRAMES.length]} ${current}`);
  };
  const timer = setInterval(draw, 100);
  timer.unref();
  return {
    update(text) {
      current = text;
      draw();
    },
    line(text) {
      clearLine();
      write(`${text}\n`);
      if (current) draw();
    },
    done() {
      clearInterval(timer);
      clearLine();
    },
  };
}

/** Passes on an update at once when the last was intervalMs ago or more, else the latest when it is. */
function throttle(progress: Progress, intervalMs: number, clock: Clock): Progress {
  let held: string | undefined;
  let shownAt = -Infinity;
  let timer: unknown;
  const show = (): void => {
    timer = undefined;
    if (held === undefined) return;
    shownAt = clock.now();
    const text = held;
    held = undefined;
    progress.update(text);
  };
  return {
    update(text) {
      held = text;
      if (timer) return;
      const wait = shownAt + intervalMs - clock.now();
      if (wait <= 0) show();
      else {
        timer = clock.setTimeout(show, wait);
        // The held state is not worth keeping the process alive for.
        (timer as { unref?: () => void }).unref?.();
      }
    },
    line: (text) => progress.line(text),
    done() {
      clock.clearTimeout(timer);
      timer = undefined;
      held = undefined;
      progress.done();
    },
  };
}
