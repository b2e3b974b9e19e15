// Which Host a request to the local server may name: its own address, never a name a web page
// chose. A page on evil.example can make its name resolve to 127.0.0.1 (DNS rebinding) and then
// talk to the server as its own origin; the Host header it sends still says evil.example.
import { isIP } from 'node:net';
import { isLoopbackHost } from '../http/hosts';

/** Longest Host value quoted back in an error. */
const MAX_QUOTED = 100;

export class AllowedHosts {
  private readonly names: ReadonlySet<string>;
  /** Listening on every address (0.0.0.0, ::): any IP address may name it, as no DNS name but those given can. */
  private readonly anyAddress: boolean;
  /** The names accepted, for messages. */
  readonly described: string;

  /**
   * `listenHost`: the --host given (an address or a name); `more`: other names the server is
   * reached by (a tunnel's, a proxy's).
   */
  constructor(listenHost: string, more: readonly string[] = []) {
    const given = normalName(listenHost);
    this.anyAddress = given === '0.0.0.0' || given === '[::]';
    const names = [given, ...more.map(hostName)].filter(
      (name): name is string => name !== undefined && name !== '0.0.0.0' && name !== '[::]' && !isLoopbackHost(name),
    );
    this.names = new Set(names);
    this.described = [
      ...(this.anyAddress ? ['any IP address of this machine'] : []),
      ...this.names,
      "this machine's loopback names (localhost, 127.0.0.1, [::1])",
    ].join(', ');
  }

  /**
   * Whether a Host header (or the authority of an absolute request target) names this server, with
   * any port (a port forward may change it). `localAddress` is the address the request came in on:
   * a Host naming it is the server's own address too (a --host name that resolved to it).
   */
  allows(host: string, localAddress: string | undefined): boolean {
    const name = hostName(host);
    if (name === undefined) return false;
    if (this.names.has(name) || isLoopbackHost(name)) return true;
    if (isIP(name.replace(/^\[|\]$/g, '')) === 0) return false;
    return this.anyAddress || (localAddress !== undefined && name === normalName(localAddress));
  }
}

/** A Host value for a message: at most a short line. */
export function quotedHost(host: string): string {
  return JSON.stringify(host.length > MAX_QUOTED ? `${host.slice(0, MAX_QUOTED)}…` : host);
}

/** The name part of "name", "name:port", "[v6]" or "[v6]:port", normalized as a URL's host; undefined when it is none of these. */
export function hostName(host: string): string | undefined {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]@/?#%\\\s]+)(?::\d{0,5})?$/.exec(host);
  return match ? normalName(match[1]!) : undefined;
}

/** A name or address as a URL writes its host: lower case, IPv6 in brackets and shortened, IPv4-mapped IPv6 as IPv4. */
function normalName(address: string): string | undefined {
  const unmapped = address.replace(/^\[?::ffff:(\d+\.\d+\.\d+\.\d+)\]?$/i, '$1');
  const bracketed = isIP(unmapped) === 6 ? `[${unmapped}]` : unmapped;
  try {
    const { hostname } = new URL(`http://${bracketed}/`);
    return hostname === '' ? undefined : hostname;
  } catch {
    return undefined;
  }
}
