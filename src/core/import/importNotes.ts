// What an import changed or left out of a pasted command, in words any front end can show.
import type { ImportedApiNode, ImportNote } from './apiNodeFromCurl';

export function describeImportNote(note: ImportNote): string {
  switch (note.code) {
    case 'insecure':
      return `${note.option} is left out: the engine always checks the API's certificate.`;
    case 'follows-redirects':
      return `${note.option} is not needed: the engine follows redirects (credentials are dropped on another origin).`;
    case 'compressed':
      return `${note.option} is not needed: the engine reads gzip, br and deflate answers.`;
    case 'output':
      return `${note.option} only changes how curl prints or saves the answer; it is left out.`;
    case 'shell':
      return `"${note.option}" and what follows it are run by the shell after curl, on its answer; they are left out.`;
    case 'api-key-moved':
      return `The ${note.parameter} query parameter is sent as an x-api-key header: an API key in the URL is for GET requests.`;
    case 'header-removed':
      return `"${note.header}:" only tells curl not to send that header; there is nothing to add.`;
    case 'openapi':
      return note.text;
    case 'json-content-type':
      return 'The data is JSON with no Content-Type: the node sends it as JSON (Content-Type: application/json), where curl would have labelled it a form.';
  }
}

/**
 * Every secret and input an imported node refers to, said once: a command may name a secret the
 * user has stored ($AGENT_SECRET_NAME), and the node would send it where the command says.
 */
export function describeImportedReferences(imported: Pick<ImportedApiNode, 'secrets' | 'inputs'>): string {
  const parts: string[] = [];
  if (imported.secrets.length > 0)
    parts.push(`secret${imported.secrets.length === 1 ? '' : 's'} ${imported.secrets.map((secret) => secret.name).join(', ')}`);
  if (imported.inputs.length > 0)
    parts.push(`input${imported.inputs.length === 1 ? '' : 's'} ${imported.inputs.map((input) => input.name).join(', ')}`);
  return parts.length === 0 ? 'It refers to no secret and no input.' : `It refers to ${parts.join(' and ')}.`;
}
