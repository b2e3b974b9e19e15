// The commit-msg hook (installed by `npm ci`, see docs/testing.md): a subject of at most 72
// characters, so that `git log --oneline` and review tools show it whole; details go in the body.
import { readFileSync } from 'node:fs';

const MAX_SUBJECT = 72;
const file = process.argv[2];
if (!file) {
  console.error('usage: node scripts/check-commit-message.mjs <commit message file>');
  process.exit(2);
}
const subject = readFileSync(file, 'utf8')
  .split('\n')
  .find((line) => line.trim() !== '' && !line.startsWith('#'));
if (subject !== undefined && [...subject].length > MAX_SUBJECT) {
  console.error(
    `commit-msg: the subject has ${[...subject].length} characters, at most ${MAX_SUBJECT} are allowed; ` +
      'shorten it and put the details in the body (after a blank line).',
  );
  process.exit(1);
}
