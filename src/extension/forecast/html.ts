/**
 * The chart panels' pages (Expiry Forecast, TTL Monitor History): a strict Content-Security-Policy (nothing but the bundled
 * script and stylesheet from the extension's dist/, one nonce for the inline styles and the
 * script), the theme's colours through VS Code's CSS variables. No `vscode` import.
 */
import { randomBytes } from 'node:crypto';

export function makeNonce(): string {
  return randomBytes(18).toString('base64');
}

export interface PageUris {
  /** webview.cspSource */
  cspSource: string;
  script: string;
  style: string;
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
  ].join('; ');
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The head both pages share: the CSP, the bundled stylesheet, the theme's colours. */
function pageHead(uris: PageUris, nonce: string, title: string): string {
  const csp = contentSecurityPolicy(uris.cspSource, nonce);
  return `<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escape(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${escape(uris.style)}" nonce="${nonce}">
<style nonce="${nonce}">
  body { color: var(--vscode-foreground); background: var(--vscode-editor-background); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); padding: 0 16px 16px; }
  h1 { font-size: 1.3em; margin: 12px 0 2px; font-weight: 600; }
  .subtitle, .cadence { color: var(--vscode-descriptionForeground); margin: 2px 0 8px; }
  .toolbar { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; margin: 8px 0; }
  .toolbar fieldset { border: none; margin: 0; padding: 0; display: flex; gap: 4px; align-items: center; }
  .toolbar legend { float: left; margin-right: 6px; padding: 0; }
  button { color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); border: 1px solid var(--vscode-button-border, transparent); padding: 3px 10px; cursor: pointer; font: inherit; }
  button:hover { background: var(--vscode-button-secondaryHoverBackground); }
  button[aria-pressed="true"], button.primary { color: var(--vscode-button-foreground); background: var(--vscode-button-background); }
  button:focus-visible, input:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: 1px; }
  input { color: var(--vscode-input-foreground); background: var(--vscode-input-background); border: 1px solid var(--vscode-input-border, transparent); padding: 3px 6px; font: inherit; width: 9em; }
  .what-if-error { color: var(--vscode-errorForeground); }
  .layout { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
  #chart-area { flex: 1 1 520px; min-width: 320px; }
  #chart, .chart { width: 100%; }
  h2.chart-title { font-size: 1em; font-weight: 600; margin: 8px 0 2px; color: var(--vscode-descriptionForeground); }
  aside { flex: 0 0 auto; }
  table { border-collapse: collapse; }
  th, td { padding: 3px 10px; text-align: right; border-bottom: 1px solid var(--vscode-editorWidget-border, rgba(128,128,128,0.35)); }
  th[scope="row"], caption { text-align: left; }
  caption { padding: 4px 0; color: var(--vscode-descriptionForeground); }
  ul.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 16px; margin: 6px 0; }
  .swatch { display: inline-block; width: 14px; margin-right: 6px; vertical-align: middle; }
  .swatch.bar { height: 10px; background: var(--swatch); }
  .swatch.line { height: 0; border-top: 2px solid var(--swatch); }
  .swatch.dash { height: 0; border-top: 2px dashed var(--swatch); }
  .swatch.tick { height: 8px; width: 0; border-left: 1px solid var(--swatch); margin: 0 12px 0 6px; }
  ul.warnings { color: var(--vscode-editorWarning-foreground); padding-left: 18px; }
  #error { color: var(--vscode-errorForeground); }
  #table-area { max-height: 70vh; overflow: auto; }
  .u-wrap, .uplot { font-family: var(--vscode-font-family); }
  body.vscode-high-contrast th, body.vscode-high-contrast td { border-bottom-color: var(--vscode-contrastBorder); }
</style>
<title>${escape(title)}</title>
</head>`;
}

export function forecastPageHtml(uris: PageUris, nonce: string): string {
  return `<!DOCTYPE html>
<html lang="en">
${pageHead(uris, nonce, 'Expiry Forecast')}
<body data-page="forecast">
<h1 id="title">Expiry forecast</h1>
<p id="subtitle" class="subtitle">Loading…</p>
<p id="error" role="alert" hidden></p>
<div id="content">
  <div class="toolbar">
    <fieldset>
      <legend>Horizon</legend>
      <button type="button" data-horizon="24h" aria-pressed="true">24 h</button>
      <button type="button" data-horizon="7d" aria-pressed="false">7 d</button>
      <button type="button" data-horizon="30d" aria-pressed="false">30 d</button>
    </fieldset>
    <form id="what-if-form">
      <label for="what-if">What-if expireAfterSeconds</label>
      <input id="what-if" placeholder="e.g. 3600, 10m, 7d" aria-describedby="what-if-error">
      <button type="submit" class="primary">Compare</button>
      <button type="button" id="what-if-clear">Clear</button>
      <span id="what-if-error" class="what-if-error" role="status"></span>
    </form>
    <button type="button" id="toggle-table" aria-pressed="false" aria-controls="table-area">Show as table</button>
  </div>
  <div class="layout">
    <section id="chart-area" role="img" aria-label="Expiry forecast chart">
      <div id="chart"></div>
      <ul id="legend" class="legend"></ul>
    </section>
    <section id="table-area" hidden>
      <table>
        <caption id="table-caption"></caption>
        <thead><tr id="table-head"></tr></thead>
        <tbody id="table-body"></tbody>
      </table>
    </section>
    <aside>
      <table aria-label="Forecast totals">
        <thead><tr id="summary-head"></tr></thead>
        <tbody id="summary-body"></tbody>
      </table>
    </aside>
  </div>
  <p id="cadence" class="cadence"></p>
  <ul id="warnings" class="warnings"></ul>
</div>
<script nonce="${nonce}" src="${escape(uris.script)}"></script>
</body>
</html>`;
}

export function historyPageHtml(uris: PageUris, nonce: string): string {
  return `<!DOCTYPE html>
<html lang="en">
${pageHead(uris, nonce, 'TTL Monitor History')}
<body data-page="history">
<h1 id="title">TTL monitor history</h1>
<p id="subtitle" class="subtitle">Loading…</p>
<p id="error" role="alert" hidden></p>
<div id="content">
  <div class="toolbar">
    <fieldset>
      <legend>Passes</legend>
      <button type="button" data-size="20" aria-pressed="false">last 20</button>
      <button type="button" data-size="50" aria-pressed="true">last 50</button>
      <button type="button" data-size="200" aria-pressed="false">last 200</button>
    </fieldset>
    <button type="button" id="toggle-table" aria-pressed="false" aria-controls="table-area">Show as table</button>
  </div>
  <div class="layout">
    <section id="chart-area" role="img" aria-label="TTL monitor history chart">
      <h2 class="chart-title">Documents per pass</h2>
      <div id="chart-documents" class="chart"></div>
      <h2 class="chart-title">Work per pass</h2>
      <div id="chart-work" class="chart"></div>
      <ul id="legend" class="legend"></ul>
    </section>
    <section id="table-area" hidden>
      <table>
        <caption id="table-caption"></caption>
        <thead><tr id="table-head"></tr></thead>
        <tbody id="table-body"></tbody>
      </table>
    </section>
    <aside>
      <table aria-label="History totals">
        <tbody id="summary-body"></tbody>
      </table>
    </aside>
  </div>
  <p id="cadence" class="cadence"></p>
  <ul id="warnings" class="warnings"></ul>
</div>
<script nonce="${nonce}" src="${escape(uris.script)}"></script>
</body>
</html>`;
}
