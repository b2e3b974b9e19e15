// The agent the API node UI tests use: an API node `lookup` that GETs order 7 from a test API, and
// a template node `summary` that reads its body.
export function orderStatusAgent(name: string, apiUrl: string): string {
  return [
    'version: 1',
    `name: ${name}`,
    'nodes:',
    '  lookup:',
    '    type: api',
    '    method: GET',
    `    url: ${apiUrl}/orders/7`,
    '    settings:',
    '      - "Accept: application/json"',
    '  summary:',
    '    type: template',
    '    text: "Order {{ nodes.lookup.body.order }} is {{ nodes.lookup.body.status }}"',
    'outputs:',
    '  summary: { from: "{{ nodes.summary.body }}" }',
    '',
  ].join('\n');
}
