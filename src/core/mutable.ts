/** A readonly record type made writable, for an object built field by field before it is handed out. */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };
