// Test texts with the cursor written as "¦".

export function withCursor(marked: string): { text: string; offset: number } {
  const offset = marked.indexOf('¦');
  if (offset === -1 || marked.indexOf('¦', offset + 1) !== -1) throw new Error('mark exactly one cursor with ¦');
  return { text: marked.slice(0, offset) + marked.slice(offset + 1), offset };
}
