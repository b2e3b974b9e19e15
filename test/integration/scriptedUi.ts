// Answers VS Code's prompts in the extension host: input boxes, quick picks, open dialogs and
// messages are replaced at the vscode.window boundary with scripted answers, and every prompt is
// recorded so tests can check what the user was asked. A prompt with no answer left fails the test.
import * as vscode from 'vscode';

type Window = Record<string, unknown>;
export type InputAnswer = string | undefined | ((options: vscode.InputBoxOptions) => string | undefined);
export type PickAnswer =
  | string
  | undefined
  | ((items: readonly vscode.QuickPickItem[], options: vscode.QuickPickOptions | undefined) => vscode.QuickPickItem | undefined);
export interface Message {
  readonly kind: 'info' | 'warning' | 'error';
  readonly text: string;
  readonly items: readonly string[];
  readonly modal: boolean;
  /** A modal message's detail text. */
  readonly detail?: string;
}

export class ScriptedUi {
  readonly inputBoxes: vscode.InputBoxOptions[] = [];
  readonly quickPicks: { items: readonly vscode.QuickPickItem[]; options: vscode.QuickPickOptions | undefined }[] = [];
  readonly dialogs: vscode.OpenDialogOptions[] = [];
  readonly saveDialogs: vscode.SaveDialogOptions[] = [];
  readonly messages: Message[] = [];
  readonly unexpected: string[] = [];
  private readonly inputAnswers: InputAnswer[] = [];
  private readonly pickAnswers: PickAnswer[] = [];
  private readonly dialogAnswers: (vscode.Uri | undefined)[] = [];
  private readonly saveAnswers: (vscode.Uri | undefined)[] = [];
  /** Chooses the button of a message (default: dismiss). */
  onMessage: (message: Message) => string | undefined = () => undefined;
  private readonly originals = new Map<string, unknown>();

  constructor() {
    const window = vscode.window as unknown as Window;
    const patch = (name: string, replacement: unknown): void => {
      this.originals.set(name, window[name]);
      window[name] = replacement;
    };
    patch('showInputBox', async (options: vscode.InputBoxOptions = {}) => {
      this.inputBoxes.push(options);
      if (this.inputAnswers.length === 0) return this.fail(`input box "${options.title ?? options.prompt}"`);
      const answer = this.inputAnswers.shift();
      const value = typeof answer === 'function' ? answer(options) : answer;
      // A real input box does not accept a value its validation rejects.
      if (value !== undefined && options.validateInput) {
        const problem = await options.validateInput(value);
        if (problem)
          return this.fail(
            `input box "${options.title}" rejected ${JSON.stringify(value)}: ${typeof problem === 'string' ? problem : problem.message}`,
          );
      }
      return value;
    });
    patch(
      'showQuickPick',
      async (
        itemsOrPromise: readonly (vscode.QuickPickItem | string)[] | Thenable<readonly (vscode.QuickPickItem | string)[]>,
        options?: vscode.QuickPickOptions,
      ) => {
        const raw = await itemsOrPromise;
        const items = raw.map((item) => (typeof item === 'string' ? { label: item } : item));
        this.quickPicks.push({ items, options });
        if (this.pickAnswers.length === 0) return this.fail(`quick pick "${options?.title ?? options?.placeHolder}"`);
        const answer = this.pickAnswers.shift();
        const picked =
          typeof answer === 'function'
            ? answer(items, options)
            : answer === undefined
              ? undefined
              : items.find((item) => item.label === answer);
        if (answer !== undefined && !picked)
          return this.fail(`quick pick "${options?.title}" has no item ${String(answer)}; items: ${items.map((i) => i.label).join(', ')}`);
        if (!picked) return undefined;
        return typeof raw[items.indexOf(picked)] === 'string' ? picked.label : picked;
      },
    );
    patch('showOpenDialog', async (options: vscode.OpenDialogOptions = {}) => {
      this.dialogs.push(options);
      if (this.dialogAnswers.length === 0) return this.fail(`open dialog "${options.title}"`);
      const uri = this.dialogAnswers.shift();
      return uri ? [uri] : undefined;
    });
    patch('showSaveDialog', async (options: vscode.SaveDialogOptions = {}) => {
      this.saveDialogs.push(options);
      if (this.saveAnswers.length === 0) return this.fail(`save dialog "${options.title}"`);
      return this.saveAnswers.shift();
    });
    for (const [name, kind] of [
      ['showInformationMessage', 'info'],
      ['showWarningMessage', 'warning'],
      ['showErrorMessage', 'error'],
    ] as const) {
      patch(name, async (text: string, ...rest: unknown[]) => {
        const modal =
          typeof rest[0] === 'object' && rest[0] !== null && !('title' in (rest[0] as object))
            ? Boolean((rest[0] as vscode.MessageOptions).modal)
            : false;
        const items = rest.filter(
          (item): item is string | vscode.MessageItem =>
            typeof item === 'string' || (typeof item === 'object' && item !== null && 'title' in item),
        );
        const detail = modal ? (rest[0] as vscode.MessageOptions).detail : undefined;
        const message: Message = {
          kind,
          text,
          items: items.map((item) => (typeof item === 'string' ? item : item.title)),
          modal,
          ...(detail !== undefined ? { detail } : {}),
        };
        this.messages.push(message);
        const choice = this.onMessage(message);
        return items.find((item) => (typeof item === 'string' ? item : item.title) === choice);
      });
    }
  }

  input(...answers: InputAnswer[]): this {
    this.inputAnswers.push(...answers);
    return this;
  }

  pick(...answers: PickAnswer[]): this {
    this.pickAnswers.push(...answers);
    return this;
  }

  openFile(...uris: (vscode.Uri | undefined)[]): this {
    this.dialogAnswers.push(...uris);
    return this;
  }

  saveFile(...uris: (vscode.Uri | undefined)[]): this {
    this.saveAnswers.push(...uris);
    return this;
  }

  /** Answers left over: a test that scripted more than it used is wrong too. */
  get leftover(): number {
    return this.inputAnswers.length + this.pickAnswers.length + this.dialogAnswers.length + this.saveAnswers.length;
  }

  restore(): void {
    const window = vscode.window as unknown as Window;
    for (const [name, original] of this.originals) window[name] = original;
    this.originals.clear();
  }

  private fail(what: string): undefined {
    this.unexpected.push(what);
    return undefined;
  }
}
