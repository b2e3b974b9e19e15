// Near misses of every form the redactor looks for (the key, its base64, "Bearer ", a case change, a
// percent escape): the hostile text of the redaction test and benchmark.
export const HOSTILE_REDACTION_KEY = 'sk-live-0123456789abcdef';

export const HOSTILE_REDACTION_FORMS: readonly string[] = [
  HOSTILE_REDACTION_KEY,
  Buffer.from(HOSTILE_REDACTION_KEY).toString('base64'),
  'Bearer ',
  'SK-LIVE-0123',
  '%2F',
];
