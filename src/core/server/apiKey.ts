// The local server's API key: generated when none is given, compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function generateApiKey(): string {
  return randomBytes(24).toString('base64url');
}

/** The token of an Authorization header "Bearer <token>", if it is one. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '')?.[1];
}

/** Whether an Authorization header carries "Bearer <key>". Hashing first gives equal lengths, so the comparison takes the same time for any wrong key. */
export function hasBearerKey(authorization: string | undefined, key: string): boolean {
  const token = bearerToken(authorization);
  const given = createHash('sha256')
    .update(token ?? '')
    .digest();
  const expected = createHash('sha256').update(key).digest();
  return timingSafeEqual(given, expected) && token !== undefined;
}
