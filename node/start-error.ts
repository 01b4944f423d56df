// The errors a node's start fails with: the CLI prints the message alone (no stack) and exits 1.
export class NodeStartError extends Error {
  override readonly name: string = 'NodeStartError';
}

/** A file of the data directory the node cannot trust; the message names it and says what to do. */
export class DataDirDamagedError extends NodeStartError {
  override readonly name: string = 'DataDirDamagedError';

  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
  }
}
