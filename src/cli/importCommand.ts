// `agent-workflows import curl '<command>'`: prints the API node a curl command makes, with every
// credential as a `{{ secrets.NAME }}` reference. The names to set are printed; values never are.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { apiNodeFromCurl } from '../core/import/apiNodeFromCurl';
import { CurlCommandError, parseCurlCommand } from '../core/import/curlCommand';
import { deploymentFromCurl } from '../core/import/deploymentFromCommand';
import type { ImportedDeployment } from '../core/import/deploymentFromCommand';
import { describeImportNote } from '../core/import/importNotes';
import { importedDeploymentYaml, importedNodeYaml } from '../core/import/nodeYaml';
import { errorMessage } from '../core/errors';
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
  try {
    return await readFile(resolve(io.cwd, path), 'utf8');
  } catch (error) {
    throw new CliError(`Cannot read the command from ${path}: ${errorMessage(error)}`, ExitCode.usage);
  }
}
