// "Agent Workflows: Render": the text of one template node with the current values (inputs,
// secrets, the results of the nodes it uses), in a read-only document beside the agent. No
// request is made; secrets show as {{ secrets.NAME }}.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand, RunBlocked } from '../commandErrors';
import { renderTemplateNode } from '../core/exchange/sendNode';
import { chooseNode } from '../runs/nodeChoice';
import { prepareNode } from '../runs/nodeValues';
import type { NodeValueDeps } from '../runs/nodeValues';

const RENDER_SCHEME = 'agent-render';
/** Renders kept for their documents; the oldest go first. */
const MAX_RENDERS = 20;

class RenderedTexts implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private next = 0;

  add(label: string, text: string): vscode.Uri {
    const key = String(++this.next);
    this.texts.set(key, text);
    while (this.texts.size > MAX_RENDERS) this.texts.delete(this.texts.keys().next().value!);
    return vscode.Uri.from({ scheme: RENDER_SCHEME, path: `/${label.replace(/[\\/?#%]/g, '_')}`, query: key });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.query) ?? 'This rendering is no longer kept: use Render above the node again.';
  }
}

export function registerRenderTemplateCommand(context: vscode.ExtensionContext, deps: NodeValueDeps): void {
  const texts = new RenderedTexts();
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(RENDER_SCHEME, texts),
    vscode.commands.registerCommand(
      COMMANDS.renderTemplate,
      guardedCommand(
        'Render',
        deps.logger,
        async (resource, nodeArgument) => {
          const choice = await chooseNode(resource, nodeArgument, {
            purpose: 'Render',
            accepts: (_uri, _node, type) => type === 'template',
            noneMessage: (name) => `${name} has no template node to render.`,
          });
          if (!choice) return undefined;
          const prepared = await prepareNode(choice.uri, choice.node, 'render', deps);
          if (!prepared) return undefined;
          const rendered = await renderTemplateNode(prepared.agent, prepared.node.id, {
            inputs: prepared.inputs,
            nodes: prepared.nodes,
            secrets: async (name) => prepared.secrets.get(name),
          });
          if ('failure' in rendered) throw new RunBlocked(`Node "${prepared.node.id}" cannot be rendered: ${rendered.failure.message}`);
          const shown = rendered.text;
          const uri = texts.add(`${prepared.file.agentPath} · ${prepared.node.id} (rendered).txt`, shown);
          const document = await vscode.workspace.openTextDocument(uri);
          await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
          return shown;
        },
        { trusted: 'Render' },
      ),
    ),
  );
}
