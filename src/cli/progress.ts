// Progress on stderr: a spinner line on a terminal, plain lines otherwise (CI logs). The texts
// shown go through `write` (made printable); only the spinner's own control sequences go through
// `control` as they are.

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface Progress {
  /** Shows the current state; on a terminal the line is redrawn, otherwise printed when it changes. */
  update(text: string): void;
  /** Prints a line that stays. */
  line(text: string): void;
  /** Clears the spinner and stops its timer. */
  done(): void;
}

export function createProgress(write: (text: string) => void, isTTY: boolean, control: (text: string) => void = write): Progress {
  if (!isTTY) {
    let last = '';
    return {
      update(text) {
        // Only state changes, not the ticking seconds.
        const state = text.replace(/\d+(\.\d+)? ?s\b.*$/, '').trim();
        if (state !== last) {
          last = state;
          write(`${text}\n`);
        }
      },
      line: (text) => write(`${text}\n`),
      done: () => undefined,
    };
  }
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
