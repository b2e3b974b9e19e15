// The local server's API key: generated when none is given, compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function generateApiKey(): string {
  return randomBytes(24).toString('base64url');
}

/** Whether an Authorization header carries "Bearer <key>". Hashing first gives equal lengths, so the comparison takes the same time for any wrong key. */
export function hasBearerKey(authorization: string | undefined, key: string): boolean {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
  const given = createHash('sha256')
    .update(match?.[1] ?? '')
    .digest();
  const expected = createHash('sha256').update(key).digest();
  return timingSafeEqual(given, expected) && match !== null;
}
