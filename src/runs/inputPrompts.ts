// Asks for the inputs of a run, one prompt per declared input: a text box for strings and numbers
// (checked as typed), a quick pick for enums and booleans, an open dialog for files (filtered by
// `accept`). The answers are remembered per agent file and offered first next time.
import { statSync } from 'node:fs';
import * as vscode from 'vscode';
import type { AgentModel, InputDeclaration } from '../core/document/model';
import { accepts, convert } from '../core/inputs/inputValues';
import type { GivenInputs } from '../core/inputs/inputValues';

const MEMORY_PREFIX = 'agentWorkflows.inputs:';

/** What was given for a file last time: values by input name, file paths by input name. */
export interface RememberedInputs {
  readonly values: Readonly<Record<string, string | number | boolean>>;
  readonly files: Readonly<Record<string, string>>;
}

/** The inputs given for each agent file, kept in workspace state (values only, never file contents). */
export class InputMemory {
  constructor(private readonly state: vscode.Memento) {}

  get(file: vscode.Uri): RememberedInputs {
    const stored = this.state.get<Partial<RememberedInputs>>(MEMORY_PREFIX + file.toString());
    return { values: { ...stored?.values }, files: { ...stored?.files } };
  }

  async set(file: vscode.Uri, given: GivenInputs): Promise<void> {
    await this.state.update(MEMORY_PREFIX + file.toString(), { values: { ...given.values }, files: { ...given.files } });
  }
}

/**
 * Prompts for every declared input; resolves to undefined when the user cancels any prompt.
 * Optional inputs left empty are not sent, so the agent's defaults apply.
 */
export async function askForInputs(model: AgentModel, agentName: string, remembered: RememberedInputs): Promise<GivenInputs | undefined> {
  const inputs = [...model.inputs.values()];
  const values: Record<string, string | number | boolean> = {};
  const files: Record<string, string> = {};
  for (const [index, input] of inputs.entries()) {
    const title = `Run ${agentName}: input ${index + 1} of ${inputs.length}`;
    if (input.type === 'file') {
      const path = await askForFile(input, title, remembered.files[input.name]);
      if (path === undefined) return undefined;
      if (path !== null) files[input.name] = path;
      continue;
    }
    const answer =
      input.enum || input.type === 'boolean'
        ? await pickValue(input, title, remembered.values[input.name])
        : await typeValue(input, title, remembered.values[input.name]);
    if (answer === undefined) return undefined;
    if (answer !== null) values[input.name] = answer;
  }
  return { values, files };
}

function describe(input: InputDeclaration): string {
  const parts = [`${input.name} (${input.type ?? 'string'}${input.required ? ', required' : ', optional'})`];
  if (input.description) parts.push(input.description);
  if (input.default !== undefined) parts.push(`default: ${JSON.stringify(input.default)}`);
  return parts.join(' · ');
}

/** A value typed in a text box: the converted value, null for "not given", undefined when cancelled. */
async function typeValue(
  input: InputDeclaration,
  title: string,
  last: string | number | boolean | undefined,
): Promise<string | number | boolean | null | undefined> {
  const optional = !input.required || input.default !== undefined;
  const initial = last !== undefined ? String(last) : input.default !== undefined ? String(input.default) : '';
  const text = await vscode.window.showInputBox({
    title,
    prompt: describe(input),
    value: initial,
    placeHolder: optional ? 'Leave empty to use the default' : input.type === 'number' ? 'A number' : 'Text',
    ignoreFocusOut: true,
    validateInput: (value) => {
      if (value === '') return optional ? undefined : `"${input.name}" is required.`;
      const converted = convert(input, value);
      return converted.ok ? undefined : converted.problem;
    },
  });
  if (text === undefined) return undefined;
  if (text === '') return null;
  const converted = convert(input, text);
  return converted.ok ? converted.value : undefined;
}

interface ValueItem extends vscode.QuickPickItem {
  readonly value: string | number | boolean | null;
}

async function pickValue(
  input: InputDeclaration,
  title: string,
  last: string | number | boolean | undefined,
): Promise<string | number | boolean | null | undefined> {
  const choices = (input.enum ?? [true, false]).filter((value): value is string | number | boolean =>
    ['string', 'number', 'boolean'].includes(typeof value),
  );
  const items: ValueItem[] = choices.map((value) => ({
    label: String(value),
    value,
    ...(value === input.default ? { description: 'default' } : {}),
    ...(value === last ? { detail: 'used last time' } : {}),
  }));
  if (!input.required || input.default !== undefined)
    items.push({
      label: '(not given)',
      description: input.default !== undefined ? 'the default applies' : 'the input stays empty',
      value: null,
    });
  // The last value (or the default) first, so Enter repeats it.
  const preferred = last ?? input.default;
  items.sort((a, b) => Number(b.value === preferred) - Number(a.value === preferred));
  const picked = await vscode.window.showQuickPick(items, { title, placeHolder: describe(input), ignoreFocusOut: true });
  return picked === undefined ? undefined : picked.value;
}

/** A file from an open dialog: its path, null for "not given", undefined when cancelled. */
async function askForFile(input: InputDeclaration, title: string, last: string | undefined): Promise<string | null | undefined> {
  const lastUsable = last !== undefined && isFile(last) ? last : undefined;
  if (lastUsable || !input.required) {
    // Offer the last file (or nothing, for an optional input) before opening the dialog.
    const items: (vscode.QuickPickItem & { readonly choice: 'last' | 'browse' | 'none' })[] = [];
    if (lastUsable)
      items.push({
        label: `$(file) ${lastUsable.split(/[\\/]/).pop() ?? lastUsable}`,
        description: 'used last time',
        detail: lastUsable,
        choice: 'last',
      });
    items.push({ label: '$(folder-opened) Choose a file…', choice: 'browse' });
    if (!input.required) items.push({ label: '(no file)', description: 'the input stays empty', choice: 'none' });
    const picked = await vscode.window.showQuickPick(items, { title, placeHolder: describe(input), ignoreFocusOut: true });
    if (!picked) return undefined;
    if (picked.choice === 'last') return lastUsable;
    if (picked.choice === 'none') return null;
  }
  for (;;) {
    const chosen = await vscode.window.showOpenDialog({
      title: `${title}: ${input.name}`,
      openLabel: `Use for "${input.name}"`,
      canSelectFiles: true,
      canSelectFolders: false,
      canSelectMany: false,
      ...(lastUsable ? { defaultUri: vscode.Uri.file(lastUsable) } : {}),
      ...(input.accept ? { filters: dialogFilters(input.accept) } : {}),
    });
    const uri = chosen?.[0];
    if (!uri) return undefined;
    if (!input.accept || accepts(input.accept, uri.fsPath)) return uri.fsPath;
    const again = await vscode.window.showWarningMessage(
      `${uri.fsPath} is not of a type "${input.name}" accepts (${input.accept.join(', ')}).`,
      'Choose Another File',
    );
    if (again !== 'Choose Another File') return undefined;
  }
}

const EXTENSIONS_OF_TYPE: Readonly<Record<string, readonly string[]>> = {
  'image/*': ['png', 'jpg', 'jpeg', 'gif', 'webp', 'svg'],
  'text/*': ['txt', 'md', 'csv', 'html', 'json'],
  'audio/*': ['mp3', 'wav', 'ogg', 'm4a'],
  'video/*': ['mp4', 'webm', 'mov'],
  'application/pdf': ['pdf'],
  'application/json': ['json'],
  'text/csv': ['csv'],
  'text/plain': ['txt'],
  'image/png': ['png'],
  'image/jpeg': ['jpg', 'jpeg'],
};

/** Open dialog filters for an accept list, plus "All Files" since media types map to extensions loosely. */
export function dialogFilters(accept: readonly string[]): Record<string, string[]> {
  const extensions = new Set<string>();
  for (const entry of accept) {
    const lower = entry.toLowerCase();
    if (lower.startsWith('.')) extensions.add(lower.slice(1));
    else for (const extension of EXTENSIONS_OF_TYPE[lower] ?? []) extensions.add(extension);
  }
  return extensions.size ? { [`Accepted (${accept.join(', ')})`]: [...extensions], 'All Files': ['*'] } : { 'All Files': ['*'] };
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
