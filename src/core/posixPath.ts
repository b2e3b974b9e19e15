// Node's `path` functions the browser build needs, for POSIX paths (VS Code for the Web's paths are
// URI paths, always with '/'). esbuild.mjs gives this module to the browser build in place of
// `node:path`; the desktop build and the command line keep Node's. test/unit/posixPath.test.ts
// checks each function against Node's path.posix.

export const sep = '/';

export function isAbsolute(path: string): boolean {
  return path.startsWith('/');
}

/** The path without '.' segments, '..' resolved against what precedes it, and no trailing '/'. */
export function normalize(path: string): string {
  if (path === '') return '.';
  const absolute = isAbsolute(path);
  const trailing = path.endsWith('/');
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..' && segments.length > 0 && segments[segments.length - 1] !== '..') segments.pop();
    else if (segment !== '..' || !absolute) segments.push(segment);
  }
  const joined = segments.join('/');
  if (absolute) return `/${joined}${trailing && joined ? '/' : ''}`;
  return joined === '' ? (trailing ? './' : '.') : `${joined}${trailing ? '/' : ''}`;
}

export function join(...paths: string[]): string {
  const parts = paths.filter((path) => path !== '');
  return parts.length === 0 ? '.' : normalize(parts.join('/'));
}

/** Like Node's with no current folder: a relative result is resolved against '/'. */
export function resolve(...paths: string[]): string {
  let resolved = '';
  for (let index = paths.length - 1; index >= 0 && !isAbsolute(resolved); index--) {
    const path = paths[index]!;
    if (path !== '') resolved = resolved === '' ? path : `${path}/${resolved}`;
  }
  const normalized = normalize(`/${resolved}`);
  return normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized;
}

/** The path without trailing slashes (the root stays '/'). */
function trimmed(path: string): string {
  let end = path.length;
  while (end > 1 && path[end - 1] === '/') end--;
  return path.slice(0, end);
}

export function basename(path: string, suffix?: string): string {
  const clean = trimmed(path);
  const base = clean === '/' ? '' : clean.slice(clean.lastIndexOf('/') + 1);
  return suffix !== undefined && suffix !== base && base.endsWith(suffix) ? base.slice(0, base.length - suffix.length) : base;
}

export function dirname(path: string): string {
  if (path === '') return '.';
  const clean = trimmed(path);
  const slash = clean.lastIndexOf('/');
  if (slash === -1) return '.';
  if (slash === 0) return '/';
  return clean.slice(0, slash);
}

export function extname(path: string): string {
  const base = basename(path);
  const dot = base.lastIndexOf('.');
  // A leading dot names a hidden file ('.profile'), not an extension; '..' has none either.
  return dot <= 0 || base === '..' ? '' : base.slice(dot);
}
