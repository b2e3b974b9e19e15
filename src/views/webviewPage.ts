// The page of a webview panel (the graph, the batch results): its script from dist/webview/, its
// styles from media/ (the shared webview.css, then its own), and a Content Security Policy that
// lets in nothing else: no inline script or style, the script only by its nonce.
import * as vscode from 'vscode';

/** The folders a panel's page may load from (its localResourceRoots). */
export function webviewRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'media'), vscode.Uri.joinPath(extensionUri, 'dist', 'webview')];
}

/**
 * The HTML of a page named `name`: media/NAME.css and dist/webview/NAME.js around `body`; `styles`
 * names other pages' styles it shares, loaded before its own (the comparison table looks like the
 * results table).
 */
export function webviewPage(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  page: { readonly name: string; readonly title: string; readonly body: string; readonly styles?: readonly string[] },
): string {
  const [media, scripts] = webviewRoots(extensionUri) as [vscode.Uri, vscode.Uri];
  // Web Crypto: in Node and in the browser's extension host alike.
  const nonce = Array.from(crypto.getRandomValues(new Uint8Array(18)), (byte) => byte.toString(16).padStart(2, '0')).join('');
  const styles = ['webview.css', ...(page.styles ?? []).map((name) => `${name}.css`), `${page.name}.css`].map((file) =>
    webview.asWebviewUri(vscode.Uri.joinPath(media, file)),
  );
  const script = webview.asWebviewUri(vscode.Uri.joinPath(scripts, `${page.name}.js`));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `img-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${csp}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
${styles.map((style) => `  <link rel="stylesheet" href="${style.toString()}">`).join('\n')}
  <title>${page.title}</title>
</head>
<body>
${page.body}
  <script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}
