/** Where a progress bar draws: a terminal redraws one line; anything else gets a line per tenth. */
export interface ProgressSink {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

export interface Progress {
  /** `count` more units done. */
  tick(count?: number): void;
  /** Draws the final state and ends the line. */
  done(): void;
}

const width = 30;

/**
 * A progress bar for long operator work: `label [#####.....] 45% 450/1000 120/s`. On a terminal it redraws
 * at most ten times a second; in a log (CI, a pipe) it prints a line at each further tenth, so output stays
 * short and readable.
 */
export function progressBar(
  label: string,
  total: number,
  sink: ProgressSink = process.stderr,
  now: () => number = () => performance.now(),
): Progress {
  const started = now();
  let doneCount = 0;
  let lastDraw = Number.NEGATIVE_INFINITY;
  let lastTenth = -1;
  let finished = false;

  function line(): string {
    const fraction = total === 0 ? 1 : Math.min(1, doneCount / total);
    const filled = Math.round(fraction * width);
    const seconds = (now() - started) / 1000;
    const rate = seconds > 0 ? Math.round(doneCount / seconds) : 0;
    const bar = `${'#'.repeat(filled)}${'.'.repeat(width - filled)}`;
    return `${label} [${bar}] ${String(Math.floor(fraction * 100)).padStart(3)}% ${doneCount}/${total} ${rate}/s`;
  }

  function draw(final: boolean): void {
    if (sink.isTTY) {
      const at = now();
      if (!final && at - lastDraw < 100) return;
      lastDraw = at;
      sink.write(`\r${line()}${final ? '\n' : ''}`);
      return;
    }
    const tenth = total === 0 ? 10 : Math.floor((doneCount / total) * 10);
    if (tenth > lastTenth || final) {
      if (tenth === lastTenth && final) return;
      lastTenth = tenth;
      sink.write(`${line()}\n`);
    }
  }

  draw(false);
  return {
    tick(count = 1) {
      if (finished) return;
      doneCount += count;
      draw(false);
    },
    done() {
      if (finished) return;
      finished = true;
      draw(true);
    },
  };
}
