// What an error says, whatever was thrown: for messages (errorMessage) and for logs (errorDetail).

/** The message of an Error, or the thrown value as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The stack of an Error (its message when there is none), or the thrown value as text: for logs. */
export function errorDetail(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
