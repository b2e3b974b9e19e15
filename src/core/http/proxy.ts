// The dispatcher for agent calls from VS Code's proxy settings: a proxy (unless the host is
// loopback or listed in noProxy), and certificate checking as http.proxyStrictSSL says.
import { Agent, EnvHttpProxyAgent, ProxyAgent } from 'undici';
import type { Dispatcher } from 'undici';
import { isLoopbackHost } from './hosts';

export interface ProxyConfig {
  /** http://host:port of the proxy; empty for none. Falls back to HTTPS_PROXY / HTTP_PROXY. */
  readonly proxy: string;
  readonly strictSSL: boolean;
  readonly noProxy: readonly string[];
}

/** Whether a host bypasses the proxy: loopback, or matching a noProxy entry ("example.com", ".example.com", "*"). */
export function bypassesProxy(hostname: string, noProxy: readonly string[]): boolean {
  if (isLoopbackHost(hostname)) return true;
  const host = hostname.toLowerCase();
  return noProxy.some((entry) => {
    const rule = entry.trim().toLowerCase().replace(/^\*\./, '.');
    if (rule === '*') return true;
    if (rule === '') return false;
    return rule.startsWith('.') ? host.endsWith(rule) || host === rule.slice(1) : host === rule || host.endsWith(`.${rule}`);
  });
}

/** A dispatcher for requests to baseUrl, or undefined for undici's default. */
export function dispatcherFor(
  baseUrl: string,
  config: ProxyConfig,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Dispatcher | undefined {
  const proxy = proxyUrl(config, env);
  const hostname = new URL(baseUrl).hostname;
  const tls = tlsOptions(config);
  if (proxy && !bypassesProxy(hostname, noProxyList(config, env))) {
    return new ProxyAgent({ uri: proxy, ...(tls ? { requestTls: tls, proxyTls: tls } : {}) });
  }
  return tls ? new Agent({ connect: tls }) : undefined;
}

/**
 * A dispatcher for calls to any host (the API nodes of a local run): through the proxy, except
 * loopback and the noProxy hosts, which undici decides per request. Undefined for undici's default.
 */
export function anyHostDispatcher(
  config: ProxyConfig,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Dispatcher | undefined {
  const proxy = proxyUrl(config, env);
  const tls = tlsOptions(config);
  if (proxy) {
    const noProxy = [...noProxyList(config, env), 'localhost', '127.0.0.1', '::1', '.localhost']
      .filter((entry) => entry.trim() !== '')
      .join(',');
    return new EnvHttpProxyAgent({
      httpProxy: proxy,
      httpsProxy: proxy,
      noProxy,
      ...(tls ? { connect: tls, requestTls: tls, proxyTls: tls } : {}),
    });
  }
  return tls ? new Agent({ connect: tls }) : undefined;
}

/** http.noProxy, plus NO_PROXY from the environment (as curl and most tools read it). */
function noProxyList(config: ProxyConfig, env: Readonly<Record<string, string | undefined>>): string[] {
  const fromEnv = (env.NO_PROXY ?? env.no_proxy ?? '').split(',').map((entry) => entry.trim());
  return [...config.noProxy, ...fromEnv].filter((entry) => entry !== '');
}

/** The proxy setting, else the proxy variables of the environment; empty for none. */
function proxyUrl(config: ProxyConfig, env: Readonly<Record<string, string | undefined>>): string {
  return config.proxy || env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy || '';
}

function tlsOptions(config: ProxyConfig): { rejectUnauthorized: false } | undefined {
  return config.strictSSL ? undefined : { rejectUnauthorized: false };
}
