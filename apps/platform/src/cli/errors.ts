/** A mistake in how the command was called: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
  }
}

/** A command that was called correctly but could not be carried out: its message alone, exit code 1. */
export class CliError extends Error {}
