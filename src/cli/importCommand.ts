// `agent-workflows import curl '<command>'`: prints the API node a curl command makes, with every
// credential as a `{{ secrets.NAME }}` reference. The names to set are printed; values never are.
import { resolve } from 'node:path';
import { apiNodeFromCurl } from '../core/import/apiNodeFromCurl';
import { CurlCommandError, parseCurlCommand } from '../core/import/curlCommand';
import { deploymentFromCurl } from '../core/import/deploymentFromCommand';
import type { ImportedDeployment } from '../core/import/deploymentFromCommand';
import { describeImportNote } from '../core/import/importNotes';
import { importedDeploymentYaml, importedNodeYaml } from '../core/import/nodeYaml';
import { readTextFile } from '../core/document/readTextFile';
import type { OperationGroup } from '../core/import/openApi';
import { CliError, ExitCode } from './io';
import type { CliIo } from './io';

export interface ImportCurlFlags {
  readonly id?: string;
}

export async function importCurlCommand(command: string, flags: ImportCurlFlags, io: CliIo): Promise<number> {
  const text = command.startsWith('@') ? await readCommandFile(command.slice(1), io) : command;
  if (flags.id !== undefined && !/^[A-Za-z_][A-Za-z0-9_-]*$/.test(flags.id))
    throw new CliError(`--id "${flags.id}" is not a node id: use letters, digits, _ and -, starting with a letter or _.`, ExitCode.usage);
  let imported;
  try {
    const request = parseCurlCommand(text);
    const deployment = deploymentFromCurl(request);
    if (deployment) return printDeployment(deployment, io);
    imported = apiNodeFromCurl(request, flags.id !== undefined ? { id: flags.id } : {});
  } catch (error) {
    if (error instanceof CurlCommandError) throw new CliError(error.message, ExitCode.usage);
    throw error;
  }
  io.stdout(importedNodeYaml(imported));
  for (const note of imported.notes) io.stderr(`note: ${describeImportNote(note)}\n`);
  for (const input of imported.inputs)
    io.stderr(`input ${input.name}: declared in the inputs: block above; give it a value when the agent runs.\n`);
  for (const secret of imported.secrets) {
    io.stderr(
      secret.value !== undefined
        ? `secret ${secret.name}: the command holds its value (from ${secret.from}); store it as secret ${secret.name} (the command line reads AGENT_SECRET_${secret.name}). It is not printed.\n`
        : `secret ${secret.name}: set it (the command line reads AGENT_SECRET_${secret.name}); the command held a placeholder (from ${secret.from}).\n`,
    );
  }
  return ExitCode.ok;
}

/** A start or status command of the service itself: the file's `deployment:` block, not an API node. */
function printDeployment(deployment: ImportedDeployment, io: CliIo): number {
  io.stdout(importedDeploymentYaml(deployment));
  if (deployment.kind === 'status')
    io.stderr('note: a status URL names the base URL and account; add the agent path (agent:) from the Agents tab.\n');
  if (deployment.apiKey !== undefined)
    io.stderr(
      `note: the command holds an API key for ${new URL(deployment.baseUrl).origin}; it is not printed. The command line reads it from AGENT_WORKFLOWS_API_KEY.\n`,
    );
  return ExitCode.ok;
}

async function readCommandFile(path: string, io: CliIo): Promise<string> {
  const read = await readTextFile(resolve(io.cwd, path), { kind: 'text' });
  if ('error' in read) throw new CliError(`Cannot read the command from ${path}: ${read.error}`, ExitCode.usage);
  return read.text;
}

export interface ImportOpenApiFlags {
  readonly operation?: string;
  readonly list?: boolean;
  readonly id?: string;
}

/** `agent-workflows import openapi <file|url>`: lists the operations, or prints one as an API node. */
export async function importOpenApiCommand(source: string, flags: ImportOpenApiFlags, io: CliIo): Promise<number> {
  const { apiNodeFromOperation, findOperation, OpenApiError, operationsByTag, readOpenApi } = await import('../core/import/openApi');
  const { readOpenApiSource } = await import('../core/import/openApiSource');
  let document;
  try {
    const where = /^https?:\/\//i.test(source) ? source : resolve(io.cwd, source);
    document = readOpenApi(
      await readOpenApiSource(where, io.interrupt ? { signal: io.interrupt } : {}),
      /^https?:/i.test(source) ? source : undefined,
    );
  } catch (error) {
    if (error instanceof OpenApiError) throw new CliError(error.message, ExitCode.usage);
    throw error;
  }
  if (flags.list) {
    io.stdout(listOperations(operationsByTag(document.operations)));
    return ExitCode.ok;
  }
  if (flags.operation === undefined && document.operations.length !== 1) {
    io.stdout(listOperations(operationsByTag(document.operations)));
    throw new CliError(
      `${document.title} has ${document.operations.length} operations: choose one with --operation (its id, or "METHOD /path").`,
      ExitCode.usage,
    );
  }
  const operation = flags.operation === undefined ? document.operations[0] : findOperation(document, flags.operation);
  if (!operation) throw new CliError(`${document.title} has no operation "${flags.operation}". --list shows them.`, ExitCode.usage);
  let imported;
  try {
    imported = await apiNodeFromOperation(document, operation);
  } catch (error) {
    if (error instanceof OpenApiError) throw new CliError(error.message, ExitCode.usage);
    throw error;
  }
  if (flags.id !== undefined) imported = { ...imported, id: flags.id };
  io.stdout(importedNodeYaml(imported));
  for (const note of imported.notes) io.stderr(`note: ${describeImportNote(note)}\n`);
  // What the node as written refers to, each with where the request goes: a secret is sent there.
  const { nodeReferences } = await import('../core/import/nodeReferences');
  const references = nodeReferences(imported.node);
  const destination = references.host ?? 'the host its base_url input names';
  for (const name of references.secrets) {
    const from = imported.secrets.find((secret) => secret.name === name)?.from;
    io.stderr(
      `secret ${name}: set it (the command line reads AGENT_SECRET_${name}); the node sends it to ${destination}${from !== undefined ? `; it comes from ${from}` : ''}.\n`,
    );
  }
  for (const name of references.inputs) io.stderr(`input ${name}: the node sends it to ${destination}.\n`);
  return ExitCode.ok;
}

/** The groups by tag name (untagged last), an operation a line: method, path, id and summary. */
function listOperations(groups: readonly OperationGroup[]): string {
  // A loop, not Math.max(...widths): spread arguments overflow the stack past about 120,000.
  let width = 0;
  let idWidth = 0;
  for (const group of groups)
    for (const operation of group.operations) {
      width = Math.max(width, operation.key.length);
      idWidth = Math.max(idWidth, operation.operationId?.length ?? 0);
    }
  width = Math.min(60, width);
  idWidth = Math.min(40, idWidth);
  const byName = [...groups].sort((a, b) => (a.tag === undefined ? 1 : b.tag === undefined ? -1 : a.tag.localeCompare(b.tag)));
  const lines: string[] = [];
  for (const group of byName) {
    lines.push(group.tag ?? '(no tag)');
    for (const operation of group.operations)
      lines.push(
        `  ${operation.key.padEnd(width)}  ${(operation.operationId ?? '').padEnd(idWidth)}${operation.summary ? `  ${operation.summary}` : ''}${operation.deprecated ? '  (deprecated)' : ''}`.trimEnd(),
      );
  }
  return `${lines.join('\n')}\n`;
}
