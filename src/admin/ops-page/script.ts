import { statusOperation } from '../operations/gateway-status.js';
import { keysOperation } from '../operations/list-keys.js';
import { policiesOperation } from '../operations/list-policies.js';
import { recentRefusalsOperation } from '../operations/recent-refusals.js';
import { trafficOperation } from '../operations/route-traffic.js';

/** What the page reads, in the order it renders them: the operations' own paths. */
const READS = [statusOperation.path, trafficOperation.path, policiesOperation.path, `${recentRefusalsOperation.path}?limit=25`, keysOperation.path];

/**
 * The page's script, served as /ops/ops.js (the CSP allows no inline
 * script). Plain browser JavaScript with no dependency and no build: it
 * reads the admin API's read operations every 5 s with the admin token in
 * the Authorization header, computes rates from successive traffic reads,
 * and builds every element with textContent, never innerHTML. Written
 * without template literals, so that it can sit in this String.raw.
 */
export const OPS_SCRIPT = String.raw`'use strict';
(function () {
  var TOKEN_KEY = 'token-gateway.admin-token';
  var POLL_MS = 5000;
  var HISTORY = 60; // samples: 5 minutes at one read every 5 s
  var READS = ` +
  JSON.stringify(READS) +
  String.raw`;

  var token = sessionStorage.getItem(TOKEN_KEY) || undefined;
  var timer;
  var running = false;
  var previous; // the last traffic read: { at: ms, routes: { route: totals } }
  var history = {}; // route -> [{ requests, refused }] per second, oldest first

  var byId = function (id) { return document.getElementById(id); };

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function row(cells) {
    var tr = document.createElement('tr');
    cells.forEach(function (cell) {
      var td = document.createElement('td');
      if (cell && typeof cell === 'object' && cell.node) {
        td.append(cell.node);
        if (cell.className) td.className = cell.className;
      } else if (cell instanceof Node) td.append(cell);
      else td.textContent = cell === undefined || cell === null ? '' : String(cell);
      tr.append(td);
    });
    return tr;
  }

  var num = function (value) { return { node: document.createTextNode(String(value)), className: 'num' }; };
  var badge = function (text, tone) { return el('span', 'badge ' + tone, text); };
  var when = function (iso) { return iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC').replace(/Z$/, ' UTC') : ''; };
  var rate = function (value) { return value < 10 ? value.toFixed(2) : value.toFixed(1); };

  function fill(table, rows, emptyText) {
    var body = table.tBodies[0];
    if (rows.length === 0) {
      var cell = el('td', 'empty', emptyText);
      cell.colSpan = table.tHead.rows[0].cells.length;
      var tr = document.createElement('tr');
      tr.append(cell);
      body.replaceChildren(tr);
    } else body.replaceChildren.apply(body, rows);
  }

  async function read(path) {
    var headers = token ? { Authorization: 'Bearer ' + token } : {};
    var response = await fetch(path, { headers: headers, cache: 'no-store', credentials: 'omit', redirect: 'error' });
    var body = await response.json().catch(function () { return {}; });
    if (!response.ok) {
      var error = new Error(body.error || 'HTTP ' + response.status);
      error.status = response.status;
      throw error;
    }
    return body;
  }

  function show(id, visible) { byId(id).hidden = !visible; }

  function askForToken(reason) {
    stop();
    show('dashboard', false);
    show('problem', false);
    show('refresh', false);
    show('forget', false);
    if (reason) byId('login-reason').textContent = reason;
    show('login', true);
    byId('token').focus();
  }

  function showProblem(message) {
    var box = byId('problem');
    box.textContent = message;
    box.hidden = false;
  }

  async function refresh() {
    var answers;
    try {
      answers = await Promise.all(READS.map(read));
    } catch (error) {
      if (error.status === 401) {
        askForToken(token ? 'The admin API refused this token (401): it is not the one in admin.token_file, or that file changed. Enter the token again.' : 'This admin listener needs the admin token (the content of admin.token_file).');
        return;
      }
      if (error.status === 403) {
        stop();
        showProblem('The admin API refused (403): ' + error.message);
        return;
      }
      showProblem('Could not read the admin API (' + error.message + '); trying again in 5 s.');
      return;
    }
    show('problem', false);
    show('login', false);
    show('dashboard', true);
    show('refresh', true);
    show('forget', Boolean(token));
    renderSummary(answers[0]);
    renderTraffic(answers[1]);
    renderChains(answers[2]);
    renderRefusals(answers[3]);
    renderKeys(answers[4]);
    renderProcesses(answers[0]);
    byId('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
  }

  function renderSummary(status) {
    var ready = status.readiness === 'ready';
    // Degraded: Redis away, protected calls still served from memory, token issuance 503.
    var tone = ready ? 'ok' : status.readiness === 'degraded' ? 'warn' : 'bad';
    var parts = [
      ['version', status.version],
      ['environment', status.environment || '(none)'],
      ['readiness', badge(status.readiness, tone)],
      ['store', badge(status.store.description + (status.store.up ? ' up' : ' down' + (status.store.reason ? ': ' + status.store.reason : '')), status.store.up ? 'ok' : 'bad')],
      ['processes', status.workers.reporting + ' of ' + status.workers.running + ' reporting'],
      ['policies', status.policies.count + (status.policies.reportOnly ? ' (' + status.policies.reportOnly + ' report-only)' : '')],
      ['issuer', status.issuer],
    ];
    byId('summary').replaceChildren.apply(byId('summary'), parts.map(function (part) {
      var span = el('span');
      span.append(el('span', 'muted', part[0] + ' '));
      span.append(part[1] instanceof Node ? part[1] : el('b', '', part[1]));
      return span;
    }));
  }

  function sparkline(samples) {
    var width = 160, height = 28, ns = 'http://www.w3.org/2000/svg';
    var svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('class', 'spark');
    svg.setAttribute('width', String(width));
    svg.setAttribute('height', String(height));
    svg.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
    svg.setAttribute('role', 'img');
    var axis = document.createElementNS(ns, 'line');
    axis.setAttribute('class', 'axis');
    axis.setAttribute('x1', '0'); axis.setAttribute('x2', String(width));
    axis.setAttribute('y1', String(height - 1)); axis.setAttribute('y2', String(height - 1));
    svg.append(axis);
    var top = Math.max(1, Math.max.apply(null, samples.map(function (s) { return s.requests; })));
    // The reads since the page opened span the width (at most HISTORY of them: 5 minutes).
    var step = width / Math.max(1, samples.length - 1);
    ['requests', 'refused'].forEach(function (series) {
      var line = document.createElementNS(ns, 'polyline');
      line.setAttribute('class', series);
      line.setAttribute('points', samples.map(function (s, i) {
        return (i * step).toFixed(1) + ',' + (height - 1 - (s[series] / top) * (height - 3)).toFixed(1);
      }).join(' '));
      svg.append(line);
    });
    var title = document.createElementNS(ns, 'title');
    title.textContent = 'requests/s (blue) and refused/s (red), peak ' + rate(top) + '/s';
    svg.append(title);
    return svg;
  }

  function renderTraffic(traffic) {
    var at = Date.parse(traffic.at);
    var current = {};
    traffic.routes.forEach(function (r) { current[r.route] = r; });
    var rows = traffic.routes.slice().sort(function (a, b) { return a.route.localeCompare(b.route); }).map(function (r) {
      var before = previous && previous.routes[r.route];
      var seconds = previous ? (at - previous.at) / 1000 : 0;
      var per = function (field) { return before && seconds > 0 ? Math.max(0, (r[field] - before[field]) / seconds) : 0; };
      var sample = { requests: per('requests'), refused: per('refused'), failed: per('failed') };
      var samples = history[r.route] || (history[r.route] = []);
      if (previous && seconds > 0) {
        samples.push(sample);
        if (samples.length > HISTORY) samples.shift();
      }
      return row([
        el('code', '', r.route),
        num(previous ? rate(sample.requests) : '…'),
        num(previous ? rate(sample.refused) : '…'),
        num(previous ? rate(sample.failed) : '…'),
        sparkline(samples),
        r.requests + (r.requests === 1 ? ' request, ' : ' requests, ') + r.refused + ' refused, ' + r.failed + ' 5xx',
      ]);
    });
    previous = { at: at, routes: current };
    fill(byId('traffic'), rows, 'No request yet.');
  }

  function renderChains(answer) {
    var figures = {};
    answer.policies.forEach(function (p) { figures[p.name] = p; });
    var groups = []
      .concat(answer.chains.routes.map(function (c) { return ['route', c.path, c.policies]; }))
      .concat(answer.chains.endpoints.map(function (c) { return ['endpoint', c.path, c.policies]; }))
      .concat(answer.chains.apps.map(function (c) { return ['app', c.clientId, c.policies]; }));
    var blocks = groups.map(function (group) {
      var block = el('div', 'chain');
      block.dataset.chain = group[0] + ' ' + group[1];
      var heading = el('h3', '', group[0] + ' ');
      heading.append(el('code', '', group[1]));
      block.append(heading);
      if (group[2].length === 0) {
        block.append(el('p', 'empty', 'no policies'));
        return block;
      }
      var table = el('table');
      var head = el('thead');
      head.append(row(['#', 'policy', 'kind', 'mode', 'evaluated', 'refused', 'would refuse', 'mean time']));
      head.querySelectorAll('td').forEach(function (td) { var th = el('th', '', td.textContent); td.replaceWith(th); });
      table.append(head);
      var body = el('tbody');
      group[2].forEach(function (name, index) {
        var p = figures[name] || { kind: '?', mode: '?', evaluations: 0, refusals: 0, wouldRefuse: 0, seconds: 0 };
        var mean = p.evaluations > 0 ? (p.seconds / p.evaluations) * 1e6 : 0;
        var tr = row([
          num(index + 1),
          el('code', '', name),
          p.kind,
          p.mode === 'report' ? badge('report-only', 'warn') : badge('enforce', 'ok'),
          num(p.evaluations),
          num(p.refusals),
          num(p.wouldRefuse),
          num(p.evaluations > 0 ? (mean < 1000 ? mean.toFixed(1) + ' µs' : (mean / 1000).toFixed(2) + ' ms') : '-'),
        ]);
        tr.dataset.policy = name;
        body.append(tr);
      });
      table.append(body);
      block.append(table);
      return block;
    });
    byId('chains').replaceChildren.apply(byId('chains'), blocks);
  }

  function renderRefusals(answer) {
    fill(byId('refusals'), answer.refusals.map(function (r) {
      var tr = row([
        { node: document.createTextNode(when(r.at)), className: 'nowrap' },
        el('code', '', r.route),
        el('code', '', r.policy + ' (' + r.kind + ')'),
        r.mode === 'report' ? badge('would refuse', 'warn') : badge('refused', 'bad'),
        { node: document.createTextNode(r.status + ' ' + r.errorCode), className: 'nowrap' },
        r.clientId || r.clientAddress,
        el('span', 'mono muted', r.requestId),
      ]);
      tr.dataset.policy = r.policy;
      return tr;
    }), 'No policy has refused a request since the gateway started.');
  }

  function renderKeys(answer) {
    fill(byId('keys'), answer.keys.map(function (k) {
      var tone = k.state === 'signing' ? 'ok' : k.state === 'next' ? 'muted' : 'warn';
      return row([el('code', '', k.kid), k.alg, badge(k.state, tone), when(k.signsFrom), k.publishedUntil ? when(k.publishedUntil) : 'until a later key takes over']);
    }), 'No key loaded yet.');
  }

  function renderProcesses(status) {
    fill(byId('processes'), status.processes.map(function (p) {
      var checks = p.checks ? 'store ' + p.checks.store + ', keys ' + p.checks.keys : '';
      return row([num(p.pid), badge(p.status, p.status === 'ready' ? 'ok' : p.status === 'degraded' ? 'warn' : 'bad'), checks, when(p.startedAt), p.residentBytes ? (p.residentBytes / 1048576).toFixed(0) + ' MiB' : '']);
    }), 'No process answered.');
  }

  function stop() {
    running = false;
    clearTimeout(timer);
  }

  async function loop() {
    await refresh();
    if (running) timer = setTimeout(loop, POLL_MS);
  }

  function start() {
    stop();
    running = true;
    loop();
  }

  byId('login-form').addEventListener('submit', function (event) {
    event.preventDefault();
    var input = byId('token');
    token = input.value.trim() || undefined;
    input.value = '';
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    start();
  });
  byId('refresh').addEventListener('click', function () { start(); });
  byId('forget').addEventListener('click', function () {
    sessionStorage.removeItem(TOKEN_KEY);
    token = undefined;
    previous = undefined;
    history = {};
    ['traffic', 'refusals', 'keys', 'processes'].forEach(function (id) { byId(id).tBodies[0].replaceChildren(); });
    byId('chains').replaceChildren();
    byId('summary').replaceChildren();
    byId('updated').textContent = '';
    askForToken('Token forgotten. Enter it again to see this gateway.');
  });
  start();
})();
`;
