// Helpers shared by the curl import tests: a command imported the way the CLI and the editor do,
// and the whole agent file a user's file would hold around the imported node.
import { apiNodeFromCurl } from '../../src/core/import/apiNodeFromCurl';
import type { ImportedApiNode } from '../../src/core/import/apiNodeFromCurl';
import { parseCurlCommand } from '../../src/core/import/curlCommand';
import { importedNodeYaml } from '../../src/core/import/nodeYaml';

export function importCurl(command: string): ImportedApiNode {
  return apiNodeFromCurl(parseCurlCommand(command));
}

/** A whole agent file around an imported node, as a user's file would hold it. */
export function agentAround(imported: ImportedApiNode): string {
  return `version: 1\nname: Imported\n${importedNodeYaml(imported)}outputs:\n  result: { from: "{{ nodes.${imported.id}.body }}" }\n`;
}
