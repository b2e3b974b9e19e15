// The extension's own log ("Agent Workflows Log") as code-server wrote it: one file per extension
// host session, under the user data folder's logs.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LogLine {
  readonly level: string;
  readonly message: string;
}

/** The lines of each "Agent Workflows Log" under a user data folder, one list per file, oldest session first. */
export function extensionLogs(userDataDir: string): LogLine[][] {
  return filesUnder(join(userDataDir, 'logs'))
    .filter((file) => file.endsWith('Agent Workflows Log.log'))
    .sort()
    .map((file) => parseLog(readFileSync(file, 'utf8')));
}

/** VS Code's log lines: `2025-01-31 12:34:56.789 [info] message`. */
function parseLog(text: string): LogLine[] {
  const lines: LogLine[] = [];
  for (const line of text.split('\n')) {
    const match = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \[(\w+)\] (.*)$/.exec(line);
    if (match) lines.push({ level: match[1]!, message: match[2]! });
  }
  return lines;
}

function filesUnder(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]));
}
