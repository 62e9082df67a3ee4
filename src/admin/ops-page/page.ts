/** Where the page and its two assets are served, on the admin listener only. */
export const OPS_PATHS = { page: '/ops', script: '/ops/ops.js', style: '/ops/ops.css' } as const;

/**
 * The page's markup: sections the script fills from the admin API. No data
 * and no inline script or style (the CSP allows neither); the favicon is an
 * empty data URL so that the browser asks for nothing else.
 */
export const OPS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>token-gateway operations</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${OPS_PATHS.style}">
<script src="${OPS_PATHS.script}" defer></script>
</head>
<body>
<header>
  <h1>token-gateway <span class="muted">operations</span></h1>
  <div id="summary" class="summary"></div>
  <div class="actions">
    <span id="updated" class="muted"></span>
    <button id="refresh" type="button" hidden>Refresh now</button>
    <button id="forget" type="button" hidden>Forget token</button>
  </div>
</header>
<main>
  <section id="login" hidden>
    <h2>Admin token</h2>
    <p id="login-reason">This admin listener needs the admin token (the content of <code>admin.token_file</code>).</p>
    <form id="login-form" autocomplete="off">
      <label for="token">Token</label>
      <input id="token" name="token" type="password" autocomplete="off" spellcheck="false" required>
      <button type="submit">Open</button>
    </form>
    <p class="muted">The token is sent only to this listener, in the Authorization header, and kept for this tab until it closes or you choose "Forget token".</p>
  </section>
  <section id="problem" class="problem" hidden></section>
  <div id="dashboard" hidden>
    <section>
      <h2>Traffic by route</h2>
      <p class="muted">Rates between the last two reads (one every 5 s); the charts show requests/s (blue) and refused/s (red) since this page opened, at most the last 5 minutes.</p>
      <table id="traffic"><thead><tr><th>route</th><th>requests/s</th><th>refused/s</th><th>5xx/s</th><th>chart</th><th>since start</th></tr></thead><tbody></tbody></table>
    </section>
    <section>
      <h2>Policy chains</h2>
      <p class="muted">Each route and endpoint with its policies in the order they run (the defaults first), then the apps' own. A policy's figures are its own since start, the same in every chain it is in (they are not split by route: the recent refusals say where).</p>
      <div id="chains"></div>
    </section>
    <section>
      <h2>Recent policy refusals</h2>
      <p class="muted">The latest 25 policy verdicts, newest first: refused, or would refuse (a policy in report mode). All of them: <code>GET /admin/v1/refusals/recent</code>.</p>
      <table id="refusals"><thead><tr><th>time</th><th>route</th><th>policy</th><th>verdict</th><th>status</th><th>client</th><th>request id</th></tr></thead><tbody></tbody></table>
    </section>
    <section>
      <h2>Signing keys</h2>
      <table id="keys"><thead><tr><th>kid</th><th>alg</th><th>state</th><th>signs from</th><th>published until</th></tr></thead><tbody></tbody></table>
    </section>
    <section>
      <h2>Store and processes</h2>
      <table id="processes"><thead><tr><th>pid</th><th>status</th><th>checks</th><th>up since</th><th>memory</th></tr></thead><tbody></tbody></table>
    </section>
  </div>
</main>
</body>
</html>
`;
