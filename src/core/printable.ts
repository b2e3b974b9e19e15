// Text that came from the network or a file, made safe to show on a terminal or in an output
// channel: a service's status word or error page could carry escape sequences that retitle or clear
// the terminal, or rewrite what was printed before. One output layer applies it (the command line's
// writers, the results channel) instead of every call site.

/** C0 controls but tab and line feed, DEL, and C1 controls (U+0080–U+009F: 0x9B is a CSI). */
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Every control character but tab and line feed written as \uXXXX. The escape is the one JSON uses,
 * so JSON text stays valid JSON with the same meaning (inside strings is the only place such
 * characters can be).
 */
export function printable(text: string): string {
  return text.replace(CONTROL_CHARACTERS, escapedCharacter);
}

/** One UTF-16 code unit as its JSON escape, \uXXXX: also for what XML cannot hold (see report.ts). */
export function escapedCharacter(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
