// `npm run bench`: every benchmark, each reporting against a reference measured in the same run.
import { runValidationBenchmark } from './validate';

const results = [{ name: 'validation', ok: runValidationBenchmark() }];
console.log('');
for (const result of results) console.log(`${result.ok ? 'met' : 'MISSED'}: ${result.name} target`);
process.exitCode = results.every((result) => result.ok) ? 0 : 1;
