/** The page's style: system fonts and nothing fetched, readable in light and dark. */
export const OPS_STYLE = `
:root { color-scheme: light dark; --fg: #1d232a; --muted: #66707a; --line: #d8dde2; --bg: #ffffff; --panel: #f5f7f9;
  --ok: #1a7f37; --bad: #c62828; --warn: #9a6700; --accent: #0b5cad; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6e9ec; --muted: #9aa4ae; --line: #3a424a; --bg: #15191d; --panel: #1d2329; --ok: #4cc26a; --bad: #ef6b6b; --warn: #e0b341; --accent: #6aa9ef; }
}
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 8px 24px; padding: 12px 20px; border-bottom: 1px solid var(--line); background: var(--panel); }
h1 { font-size: 18px; margin: 0; }
h2 { font-size: 15px; margin: 20px 0 4px; }
main { padding: 0 20px 24px; }
.muted { color: var(--muted); font-weight: normal; }
p.muted { margin: 0 0 8px; font-size: 13px; }
.summary { display: flex; flex-wrap: wrap; gap: 6px 18px; }
.summary span b { font-weight: 600; }
.actions { margin-left: auto; display: flex; gap: 8px; align-items: baseline; }
button { font: inherit; padding: 3px 10px; border: 1px solid var(--line); border-radius: 4px; background: var(--bg); color: var(--fg); cursor: pointer; }
button:hover { border-color: var(--accent); }
table { border-collapse: collapse; width: 100%; margin: 4px 0 8px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: middle; }
th { font-weight: 600; color: var(--muted); font-size: 12px; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td code, .badge, td.nowrap { white-space: nowrap; }
td .mono { word-break: break-all; font-size: 12px; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
.badge { display: inline-block; padding: 0 6px; border-radius: 9px; font-size: 12px; border: 1px solid currentColor; }
.ok { color: var(--ok); } .bad { color: var(--bad); } .warn { color: var(--warn); }
.chain { margin: 6px 0 12px; }
.chain table { table-layout: fixed; }
.chain th:nth-child(1) { width: 3em; } .chain th:nth-child(2) { width: 26%; } .chain th:nth-child(3) { width: 15%; } .chain th:nth-child(4) { width: 11%; }
.chain h3 { font-size: 13px; margin: 8px 0 2px; font-weight: 600; }
.empty { color: var(--muted); font-style: italic; }
svg.spark { display: block; }
svg.spark .requests { fill: none; stroke: var(--accent); stroke-width: 1.5; }
svg.spark .refused { fill: none; stroke: var(--bad); stroke-width: 1.5; }
svg.spark .axis { stroke: var(--line); stroke-width: 1; }
section.problem { margin-top: 16px; padding: 10px 14px; border: 1px solid var(--bad); border-radius: 4px; color: var(--bad); }
#login form { display: flex; gap: 8px; align-items: center; margin: 8px 0; }
#login input { font: inherit; padding: 4px 8px; width: 28em; max-width: 100%; }
`;
