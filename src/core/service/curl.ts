// "Copy as curl": the start request of a run as a shell command, with $AGENT_WORKFLOWS_API_KEY in
// place of the key, so it can be pasted into a terminal or a CI script.
import type { InputValues } from './agentClient';
import type { FilePart } from '../inputs/inputValues';
import { mediaTypeOf } from '../inputs/mediaTypes';

/** Quotes a word for POSIX shells: single quotes, with embedded single quotes closed and escaped. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A file path inside curl's -F syntax: double-quoted, so ; , and = in it are not read as options. */
function curlFormPath(path: string): string {
  return `"${path.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export interface CurlRequest {
  /** …/execute or …/execute/multipart. */
  readonly executeUrl: string;
  readonly inputs: InputValues;
  readonly files: readonly FilePart[];
  /** When known, a second command that reads the status. */
  readonly statusUrl?: string;
}

export function buildCurlCommand(request: CurlRequest): string {
  const auth = ['-H', '"Authorization: Bearer $AGENT_WORKFLOWS_API_KEY"'];
  const payload = JSON.stringify({ inputs: request.inputs, stream: false });
  const lines: string[][] = [['curl', '-sS', '-X', 'POST', shellQuote(request.executeUrl)], auth];
  if (request.files.length === 0) {
    lines.push(['-H', shellQuote('Content-Type: application/json')], ['--data-raw', shellQuote(payload)]);
  } else {
    // --form-string sends the JSON as it is (no @file or <file reading, no ;type parsing).
    lines.push(['--form-string', shellQuote(`payload=${payload}`)]);
    for (const file of request.files)
      lines.push(['-F', shellQuote(`${file.field}=@${curlFormPath(file.path)};type=${mediaTypeOf(file.path)}`)]);
  }
  let command = lines.map((parts) => parts.join(' ')).join(' \\\n  ');
  if (request.statusUrl)
    command += `\n\ncurl -sS ${shellQuote(request.statusUrl)} \\\n  -H "Authorization: Bearer $AGENT_WORKFLOWS_API_KEY"`;
  return `${command}\n`;
}
