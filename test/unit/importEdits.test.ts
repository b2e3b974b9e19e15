// Where an imported node, its inputs and a pasted deployment land in an existing agent file.
import assert from 'node:assert/strict';
import { apiNodeFromCurl } from '../../src/core/import/apiNodeFromCurl';
import { parseCurlCommand } from '../../src/core/import/curlCommand';
import { addImportedNodeEdits, ImportPlacementError, setDeploymentEdits } from '../../src/core/language/importEdits';
import type { TextEdit } from '../../src/core/language/quickFixes';
import { validateAgentText } from '../../src/core/validation/validate';

function apply(text: string, edits: readonly TextEdit[]): string {
  let result = text;
  for (const edit of [...edits].sort((a, b) => b.span.start - a.span.start))
    result = result.slice(0, edit.span.start) + edit.newText + result.slice(edit.span.end);
  return result;
}

const AGENT = `version: 1
name: Issues
# Inputs the caller gives.
inputs:
    owner: { type: string, required: true }

nodes:
    get_user:
        type: api
        method: GET
        url: https://api.github.com/users/{{ inputs.owner }}

outputs:
    login: { from: "{{ nodes.get_user.body.login }}" }
`;

describe('import edits', () => {
  it("adds the node and the inputs it needs in the file's own indentation, with a free id", () => {
    const imported = apiNodeFromCurl(
      parseCurlCommand('curl -H "Authorization: Bearer $GITHUB_TOKEN" "https://api.github.com/users/{owner}/repos?type=<type>"'),
      { id: 'get_user' },
    );
    const { edits, id } = addImportedNodeEdits(AGENT, imported);
    assert.equal(id, 'get_user_2');
    const result = apply(AGENT, edits);
    assert.ok(result.includes('    owner: { type: string, required: true }\n    type: { type: string, required: true }\n'), result);
    assert.ok(
      result.includes(
        '        url: https://api.github.com/users/{{ inputs.owner }}\n    get_user_2:\n        type: api\n        method: GET\n        url: https://api.github.com/users/{{ inputs.owner }}/repos?type={{ inputs.type }}\n        settings:\n            - "Authorization: Bearer {{ secrets.GITHUB_TOKEN }}"\n\noutputs:',
      ),
      result,
    );
    assert.deepEqual(
      validateAgentText(result).problems.map((problem) => problem.code),
      [],
    );
  });

  it('adds the sections a file does not have yet', () => {
    const text = 'version: 1\nname: New\n';
    const imported = apiNodeFromCurl(parseCurlCommand('curl https://api.example.com/v1/items/:id'));
    const result = apply(text, addImportedNodeEdits(text, imported).edits);
    assert.equal(
      result,
      'version: 1\nname: New\n\ninputs:\n  id: { type: string, required: true }\n\nnodes:\n  get_items:\n    type: api\n    method: GET\n    url: https://api.example.com/v1/items/{{ inputs.id }}\n',
    );
  });

  it('fills "nodes:" left empty', () => {
    const text = 'version: 1\nname: New\nnodes:\noutputs: {}\n';
    const result = apply(text, addImportedNodeEdits(text, apiNodeFromCurl(parseCurlCommand('curl https://api.example.com/ping'))).edits);
    assert.match(result, /^nodes:\n {2}get_ping:\n {4}type: api\n/m);
  });

  it('says why when the place is not clear', () => {
    const text = 'version: 1\nname: New\nnodes: { a: { type: template, text: x } }\n';
    assert.throws(
      () => addImportedNodeEdits(text, apiNodeFromCurl(parseCurlCommand('curl https://api.example.com/ping'))),
      ImportPlacementError,
    );
  });

  it('sets the deployment fields in place, or adds the block', () => {
    const deployment = { baseUrl: 'https://agents.example.com', account: 'acme', agent: 'issues' };
    const withOne = 'version: 1\nname: X\ndeployment:\n  baseUrl: https://old.example.com # the old one\n';
    assert.equal(
      apply(withOne, setDeploymentEdits(withOne, deployment)),
      'version: 1\nname: X\ndeployment:\n  baseUrl: https://agents.example.com # the old one\n  account: acme\n  agent: issues\n',
    );
    assert.equal(
      apply(AGENT, setDeploymentEdits(AGENT, deployment)).split('# Inputs')[0],
      'version: 1\nname: Issues\ndeployment:\n  baseUrl: https://agents.example.com\n  account: acme\n  agent: issues\n\n',
    );
  });
});
