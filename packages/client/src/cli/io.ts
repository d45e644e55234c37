/** Where the CLI writes, and what it knows of its environment (tests pass their own). */
export interface CliIo {
  stdout: { write(chunk: string): unknown; isTTY?: boolean | undefined };
  stderr: { write(chunk: string): unknown; isTTY?: boolean | undefined };
  env: Record<string, string | undefined>;
}

/** Result lines (stdout), progress and diagnostics (stderr), JSON documents (stdout). */
export class Output {
  readonly io: CliIo;
  readonly json: boolean;

  constructor(io: CliIo, json: boolean) {
    this.io = io;
    this.json = json;
  }

  out(line = ''): void {
    this.io.stdout.write(`${line}\n`);
  }

  err(line = ''): void {
    this.io.stderr.write(`${line}\n`);
  }

  /** One JSON document on one line. */
  document(value: unknown): void {
    this.io.stdout.write(`${JSON.stringify(value)}\n`);
  }

  /** Whether stderr is a terminal (spinner, in-place redraws). */
  get interactive(): boolean {
    return this.io.stderr.isTTY === true && this.io.env['TERM'] !== 'dumb';
  }
}
