// Validation cost against the raw YAML parse it stands on, for generated agents of growing size.
// Target: full validation at most 1.5x `yaml.parseDocument` alone, at every size.
import { parseDocument } from 'yaml';
import { validateAgentText } from '../src/core/validate';
import { measurePair, table } from './support';

/** An agent with `count` API nodes, each with auth headers, a JSON body and references. */
export function generateAgent(count: number): string {
  const lines = ['version: 1', 'name: Generated agent', 'inputs:', '  query: { type: string, required: true }', 'nodes:'];
  for (let i = 0; i < count; i++) {
    const auth = ['"Authorization: Bearer {{ secrets.API_TOKEN }}"', '"Authorization: Basic {{ secrets.BASIC }}"', '"x-api-key: {{ secrets.API_KEY }}"'][i % 3];
    lines.push(
      `  node_${i}:`,
      '    type: api',
      '    method: POST',
      `    url: https://api${i % 7}.example.com/v1/items/{{ inputs.query }}?page=${i}`,
      '    settings:',
      `      - ${auth}`,
      '      - "Content-Type: application/json"',
      '      - "Accept: application/json"',
      '    body:',
      '      query: "{{ inputs.query }}"',
      ...(i > 0 ? [`      previous: "{{ nodes.node_${Math.max(0, i - 1 - (i % 5))}.body.id }}"`] : []),
    );
  }
  lines.push('outputs:', `  last: { from: "{{ nodes.node_${count - 1}.body }}" }`);
  return `${lines.join('\n')}\n`;
}

export function runValidationBenchmark(): boolean {
  const rows = [['API nodes', 'size', 'yaml.parseDocument', 'full validation', 'ratio', 'problems']];
  let ok = true;
  for (const count of [100, 1000, 2000]) {
    const text = generateAgent(count);
    const runs = count >= 1000 ? 11 : 31;
    const { a: parse, b: full } = measurePair(() => parseDocument(text), () => validateAgentText(text), runs);
    const problems = validateAgentText(text).problems.length;
    const ratio = full.medianMs / parse.medianMs;
    if (ratio > 1.5 || problems > 0) ok = false;
    rows.push([String(count), `${(text.length / 1024).toFixed(0)} KB`, `${parse.medianMs.toFixed(1)} ms`, `${full.medianMs.toFixed(1)} ms`, `${ratio.toFixed(2)}x`, String(problems)]);
  }
  console.log('Validation (median of alternating runs; target: ratio <= 1.50x, 0 problems)');
  console.log(table(rows));
  return ok;
}
