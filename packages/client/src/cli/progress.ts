import type { RunNotice } from '../run/run-options.ts';
import type { StreamEvent } from '../transport/transport.ts';
import type { Output } from './io.ts';
import { oneLine, partsText, stateName } from './render.ts';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * Progress of a running task on stderr: a line per state change or status message, a chunk
 * counter per artifact, and, on a terminal only, a spinner line with the elapsed time and the
 * counters, redrawn in place below the log lines.
 */
export class ProgressDisplay {
  readonly #out: Output;
  readonly #chunks = new Map<string, number>();
  readonly #started = Date.now();
  #state = '';
  #said = '';
  #taskId = '';
  #frame = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(out: Output) {
    this.#out = out;
    if (out.interactive) {
      this.#timer = setInterval(() => this.#draw(), 100);
      this.#timer.unref();
    }
  }

  event(event: StreamEvent): void {
    const { response } = event;
    if (response.task) {
      if (!this.#taskId) {
        this.#taskId = response.task.id;
        this.#line(`task ${response.task.id} (context ${response.task.contextId})`);
      }
      for (const artifact of response.task.artifacts ?? [])
        this.#chunks.set(label(artifact), artifact.parts.length);
      this.#status(response.task.status.state, partsText(response.task.status.message?.parts));
    } else if (response.statusUpdate) {
      this.#status(
        response.statusUpdate.status.state,
        partsText(response.statusUpdate.status.message?.parts),
      );
    } else if (response.artifactUpdate) {
      const { artifact, append, lastChunk } = response.artifactUpdate;
      const name = label(artifact);
      const count = (append ? (this.#chunks.get(name) ?? 0) : 0) + 1;
      this.#chunks.set(name, count);
      // On a terminal the counter lives in the spinner line; elsewhere each chunk gets a line.
      if (!this.#out.interactive || lastChunk) {
        this.#line(`  artifact ${name}: chunk ${count}${lastChunk ? ' (complete)' : ''}`);
      } else {
        this.#draw();
      }
    }
  }

  notice(notice: RunNotice): void {
    if (notice.type === 'reconnecting') {
      const reason = notice.error instanceof Error ? notice.error.message : String(notice.error);
      const from = notice.lastEventId !== undefined ? ` after event ${notice.lastEventId}` : '';
      this.#line(
        `  connection lost (${oneLine(reason, 80)}); resuming${from} in ${(notice.delayMs / 1000).toFixed(1)}s`,
      );
    } else {
      this.#line(`  polling for updates: ${oneLine(notice.reason, 80)}`);
    }
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#out.interactive) this.#out.io.stderr.write('\r\x1b[2K');
  }

  #status(state: string, said: string): void {
    if (state === this.#state && said === this.#said) return;
    this.#state = state;
    this.#said = said;
    this.#line(`[${stateName(state)}]${said ? ` ${oneLine(said)}` : ''}`);
  }

  #line(text: string): void {
    if (this.#out.interactive) this.#out.io.stderr.write('\r\x1b[2K');
    this.#out.err(text);
    this.#draw();
  }

  #draw(): void {
    if (!this.#timer) return;
    const seconds = ((Date.now() - this.#started) / 1000).toFixed(1);
    const counters = [...this.#chunks]
      .map(([name, n]) => `${name} ${n} chunk${n === 1 ? '' : 's'}`)
      .join(', ');
    const frame = FRAMES[this.#frame++ % FRAMES.length] ?? '';
    const text = `${frame} ${stateName(this.#state || 'SUBMITTED')} ${seconds}s${counters ? ` · ${counters}` : ''}`;
    this.#out.io.stderr.write(`\r\x1b[2K${text}`);
  }
}

function label(artifact: { artifactId: string; name?: string | undefined }): string {
  return artifact.name ?? artifact.artifactId;
}
