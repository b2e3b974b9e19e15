// How long validation takes on the fuzz stage's mutants (test/support/agentMutants), against a raw
// `yaml` parse of the same text: the time bound the fuzz unit test used to hold, as a benchmark.
import { parseDocument } from 'yaml';
import { documentSymbols } from '../src/core/language/navigation';
import { validateAgentText } from '../src/core/validation/validate';
import { agentMutants, fuzzedAgentFiles } from '../test/support/agentMutants';
import { table } from './support';
import { fastestMs } from './validate';

/** The bound each mutant's validation (and outline) must stay under. */
const MUTANT_TARGET_MS = 500;

export function runFuzzBenchmark(): boolean {
  const validations: Array<{ ms: number; parseMs: number; where: string }> = [];
  for (const { text, where } of agentMutants(fuzzedAgentFiles())) {
    const ms = fastestMs(() => {
      validateAgentText(text);
      documentSymbols(text);
    }, 2);
    validations.push({ ms, parseMs: fastestMs(() => parseDocument(text), 2), where });
  }
  const sorted = [...validations].sort((a, b) => a.ms - b.ms);
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!;
  const total = (key: 'ms' | 'parseMs') => validations.reduce((sum, entry) => sum + entry[key], 0);
  const rows = [['mutants', 'validation + outline', 'yaml.parseDocument', 'ratio']];
  for (const [label, entry] of [
    ['median', at(0.5)],
    ['p95', at(0.95)],
    ['slowest', sorted[sorted.length - 1]!],
  ] as const)
    rows.push([
      `${label} (${entry.where})`,
      `${entry.ms.toFixed(2)} ms`,
      `${entry.parseMs.toFixed(2)} ms`,
      `${(entry.ms / entry.parseMs).toFixed(2)}x`,
    ]);
  rows.push([
    `all ${validations.length}`,
    `${total('ms').toFixed(0)} ms`,
    `${total('parseMs').toFixed(0)} ms`,
    `${(total('ms') / total('parseMs')).toFixed(2)}x`,
  ]);
  console.log(`Fuzz mutants (fastest of 2 runs each; target: every mutant under ${MUTANT_TARGET_MS} ms)`);
  console.log(table(rows));
  return sorted[sorted.length - 1]!.ms < MUTANT_TARGET_MS;
}
