// Which hosts are this machine. Kept apart from the proxy code so that validation, which asks
// this on every keystroke, does not load the HTTP client.

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
