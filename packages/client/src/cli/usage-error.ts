/** A mistake in the command line; printed with the command's usage, exit code 1. */
export class UsageError extends Error {
  /** The usage line of the command concerned, when known. */
  readonly usage: string | undefined;

  constructor(message: string, usage?: string) {
    super(message);
    this.name = 'UsageError';
    this.usage = usage;
  }
}
