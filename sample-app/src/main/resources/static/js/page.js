/*
 * The distlock sample page: instances, the one-button flash sale with and without the lock, two lock timelines
 * (timeline.js) and two uPlot charts of the instances' own meters. Reads only the sample's API:
 * /api/demo/instances, /api/demo/timeline, /api/demo/metrics, POST /api/demo/flash-sale, /api/products,
 * POST /api/demo/transfers, /api/accounts, POST /api/demo/fail-closed, /actuator/distlock.
 */
(function () {
  'use strict';

  const $ = id => document.getElementById(id);
  // One colour per instance, the same in the lanes, the chips and the charts. No red: red means overlap.
  const PALETTE = ['#1f77b4', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2', '#7f7f7f'];
  const colors = new Map();
  const colorOf = id => {
    if (!colors.has(id)) {
      colors.set(id, PALETTE[colors.size % PALETTE.length]);
    }
    return colors.get(id);
  };

  let instances = [];
  let running = false;
  const runs = [];          // finished runs, for the bands on the charts
  const timelines = {};     // 'locked' / 'unlocked' -> LockTimeline

  async function getJson(url, init) {
    const response = await fetch(url, Object.assign({ headers: { Accept: 'application/json' } }, init));
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      throw new Error(body.detail || body.title || (url + ' answered ' + response.status));
    }
    return body;
  }

  function h(tag, attrs, ...children) {
    const e = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([k, v]) => e.setAttribute(k, v));
    children.flat().forEach(c => e.append(c instanceof Node ? c : document.createTextNode(String(c))));
    return e;
  }

  // --- Instances ------------------------------------------------------------------------------------------------

  async function refreshInstances() {
    try {
      instances = await getJson('/api/demo/instances');
    } catch (e) {
      return;
    }
    // Live instances get the first colours; stopped ones only appear in older history.
    const live = instances.filter(i => i.live);
    live.forEach(i => colorOf(i.id));
    instances.forEach(i => colorOf(i.id));
    // The leader of the order consumer's group (distlock.leader.groups) runs the leader-only job.
    $('instances').replaceChildren(...live.map(i => h('span',
        { class: 'chip' + (i.lockEnabled ? '' : ' off') + (i.leads ? ' leader' : ''), 'data-instance': i.id,
          title: i.leads ? 'leads the order-consumer group: the only instance that consumes the order queue' : '' },
        h('span', { class: 'dot', style: `background:${colorOf(i.id)}` }),
        `${i.label}${i.baseUrl.endsWith(':' + location.port) ? ' (this page)' : ''}`
        + (i.leads ? ' · leader' : '')
        + (i.lockEnabled ? '' : ' · distlock.enabled=false'))));
    $('instances').setAttribute('data-live', live.length);
  }

  /** The lock store's health as this instance sees it: DOWN while the store does not answer (fail closed). */
  async function refreshStoreHealth() {
    let status = 'unknown';
    try {
      const response = await fetch('/actuator/health/distlock', { headers: { Accept: 'application/json' } });
      status = (await response.json()).status || status;
    } catch (e) {
      // no health contributor (distlock.enabled=false) or this instance is stopping
    }
    $('store-health').textContent = status;
    $('store-health').className = 'health ' + status.toLowerCase();
  }

  // --- Timelines ------------------------------------------------------------------------------------------------

  function timelineOf(mode) {
    if (!timelines[mode]) {
      timelines[mode] = new LockTimeline($('timeline-' + mode), colorOf);
    }
    return timelines[mode];
  }

  const liveIds = () => instances.filter(i => i.live).map(i => i.id);

  /** Before any run: the locked panel follows whatever takes the lock (e.g. sample-app/flash-sale.sh). */
  async function refreshIdleTimeline() {
    if (running || runs.length) {
      return;
    }
    try {
      const t = await getJson('/api/demo/timeline?lock=stock:' + $('product').value + '&last=3000');
      timelineOf('locked').show(t, { follow: true, live: liveIds() });
    } catch (e) { /* the next refresh retries */ }
  }

  /** During a run: the last 3 s of the lock, the close-up on the latest holds. */
  function followLive(mode, lockName) {
    let stopped = false;
    const tick = async () => {
      if (stopped) {
        return;
      }
      try {
        const t = await getJson(`/api/demo/timeline?lock=${encodeURIComponent(lockName)}&last=3000`);
        if (!stopped) {
          timelineOf(mode).show(t, { follow: true, live: liveIds() });
        }
      } catch (e) { /* keep going */ }
      if (!stopped) {
        setTimeout(tick, 400);
      }
    };
    tick();
    return () => { stopped = true; };
  }

  /**
   * After a run: its whole window. Instances write their holds every 200 ms, so read again until every buyer that
   * got an answer from the locked method (sold or sold out) is there, for at most 6 s.
   */
  async function showRun(mode, result) {
    const panel = $('timeline-' + mode);
    const expected = result.sold + result.soldOut;
    const deadline = Date.now() + 6000;
    // The run's holds all lie between startedAt and finishedAt; a little air on both sides for the eye.
    const margin = Math.round(Math.min(50000, (result.finishedAt - result.startedAt) * 0.01));
    for (;;) {
      const t = await getJson(`/api/demo/timeline?lock=${encodeURIComponent(result.lockName)}`
          + `&from=${result.startedAt - margin}&to=${result.finishedAt + margin}`);
      const held = t.entries.filter(e => e.acquiredAt != null && e.outcome !== 'restock').length;
      const tl = timelineOf(mode);
      tl.pinned = false;
      tl.show(t, { origin: result.startedAt, live: result.instances });
      panel.dataset.holds = held;
      panel.dataset.overlaps = t.overlaps;
      $('caption-' + mode).textContent = `${held} holds over ${t.instances.filter(i =>
          result.instances.includes(i.id)).length} instances in ${(result.durationMillis / 1000).toFixed(1)} s`
          + (t.overlaps ? `, ${t.overlaps} overlapping` : ', none overlapping')
          + (t.truncated ? ' (latest part only)' : '');
      if (held >= expected || Date.now() > deadline) {
        panel.dataset.complete = held >= expected ? 'true' : 'partial';
        return t;
      }
      await new Promise(resolve => setTimeout(resolve, 300));
    }
  }

  // --- Results --------------------------------------------------------------------------------------------------

  function showResult(mode, r, overlaps) {
    const card = $('result-' + mode);
    const errors = Object.entries(r.errors);
    const errorCount = errors.reduce((n, [, v]) => n + v, 0);
    const scale = Math.max(r.stockBefore, r.sold, 1);
    const soldShown = Math.min(r.sold, r.stockBefore);
    const over = Math.max(0, r.oversold);
    card.className = 'card ' + (r.oversold > 0 ? 'bad' : 'good');
    card.dataset.done = 'true';
    card.replaceChildren(
      h('h2', {}, mode === 'locked' ? 'With distlock' : 'Without the lock'),
      h('div', { class: 'numbers' },
        h('div', { class: 'number', 'data-field': 'sold' }, h('small', {}, 'sold'), String(r.sold)),
        h('div', { class: 'number ' + (r.oversold > 0 ? 'bad' : 'good'), 'data-field': 'oversold' },
          h('small', {}, 'oversold'), String(r.oversold)),
        h('div', { class: 'number', 'data-field': 'remaining' }, h('small', {}, 'left in stock'),
          String(r.remaining))),
      h('div', { class: 'bar', title: `stock ${r.stockBefore}, sold ${r.sold}` },
        h('div', { class: 'sold', style: `width:${soldShown / scale * 100}%` }),
        h('div', { class: 'over', style: `left:${soldShown / scale * 100}%;width:${over / scale * 100}%` }),
        h('div', { class: 'stockline', style: `left:calc(${r.stockBefore / scale * 100}% - 2px)` })),
      h('div', { class: 'details' },
        `${r.buyers} buyers over ${r.instances.length} instance${r.instances.length === 1 ? '' : 's'} in `
        + `${(r.durationMillis / 1000).toFixed(1)} s (${Math.round(r.buyers / Math.max(0.001, r.durationMillis / 1000))} `
        + `req/s) · ${r.soldOut} sold out (409) · `
        + (errorCount ? errors.map(([k, v]) => `${v} × ${k}`).join(', ') : 'no errors')
        + (overlaps != null ? ` · ${overlaps} overlapping holds` : '')));
    if (mode === 'locked' && !r.lockEnabledEverywhere) {
      card.append(h('p', { class: 'warning' },
          'Some instances run with distlock.enabled=false: they take no lock, even on the locked endpoint.'));
    }
  }

  async function runSale() {
    const params = new URLSearchParams({
      product: $('product').value,
      stock: Math.max(0, parseInt($('stock').value, 10) || 0),
      buyers: Math.min(2000, Math.max(1, parseInt($('buyers').value, 10) || 1)),
      concurrency: Math.min(64, Math.max(1, parseInt($('parallel').value, 10) || 1))
    });
    running = true;
    $('run').disabled = true;
    runs.length = 0;
    try {
      for (const mode of ['locked', 'unlocked']) {
        $('status').textContent = mode === 'locked' ? 'Selling with distlock...' : 'Selling without the lock...';
        const panel = $('timeline-' + mode);
        delete panel.dataset.complete;
        $('caption-' + mode).textContent = 'live, last 3 s';
        const stop = followLive(mode, 'stock:' + params.get('product'));
        let result;
        try {
          params.set('lock', mode === 'locked');
          result = await getJson('/api/demo/flash-sale?' + params, { method: 'POST' });
        } finally {
          stop();
        }
        showResult(mode, result, null);
        const t = await showRun(mode, result);
        showResult(mode, result, t.overlaps);
        runs.push({ mode, from: result.startedAt / 1e6, to: result.finishedAt / 1e6 });
      }
      $('status').textContent = 'Done. Drag or scroll on the timelines to look closer.';
    } catch (e) {
      $('status').textContent = 'Failed: ' + e.message;
    } finally {
      running = false;
      $('run').disabled = false;
      refreshProducts();
    }
  }

  // --- Charts (uPlot) -------------------------------------------------------------------------------------------

  const charts = { key: null, wait: null, rate: null };

  function chartWidth(id) {
    return Math.max(300, $(id).clientWidth);
  }

  /** The runs of the button, as shaded bands: plain DOM elements in uPlot's overlay, placed by its scales. */
  function drawRunBands(u) {
    u.over.querySelectorAll('.runband').forEach(b => b.remove());
    for (const run of runs) {
      const left = Math.max(0, u.valToPos(run.from, 'x'));
      const right = Math.min(u.over.clientWidth, u.valToPos(Math.max(run.to, run.from + 1), 'x'));
      if (right > 0 && left < u.over.clientWidth) {
        const band = h('div', { class: 'runband ' + run.mode, style: `left:${left}px;width:${right - left}px` },
            run.mode === 'locked' ? 'lock' : 'no lock');
        u.over.append(band);
      }
    }
  }

  function makeCharts(series) {
    charts.wait && charts.wait.destroy();
    charts.rate && charts.rate.destroy();
    $('chart-wait').textContent = '';
    $('chart-throughput').textContent = '';
    const base = () => ({ height: 210, scales: { x: { time: true } }, hooks: { draw: [drawRunBands] },
      legend: { live: false }, cursor: { drag: { x: false, y: false } } });
    const waitSeries = [{}];
    series.instances.forEach(i => {
      waitSeries.push({ label: i.label + ' p99', stroke: colorOf(i.id), width: 2, spanGaps: false,
        value: (u, v) => v == null ? '-' : v.toFixed(1) + ' ms' });
      waitSeries.push({ label: i.label + ' p50', stroke: colorOf(i.id), width: 1.5, dash: [5, 4],
        value: (u, v) => v == null ? '-' : v.toFixed(1) + ' ms' });
    });
    charts.wait = new uPlot(Object.assign(base(), {
      width: chartWidth('chart-wait'), series: waitSeries,
      axes: [{}, { label: 'ms', size: 50 }]
    }), waitData(series), $('chart-wait'));
    const rateSeries = [{}, { label: 'all', stroke: '#222', width: 2.5 }];
    series.instances.forEach(i => rateSeries.push({ label: i.label, stroke: colorOf(i.id), width: 1.5 }));
    charts.rate = new uPlot(Object.assign(base(), {
      width: chartWidth('chart-throughput'), series: rateSeries,
      axes: [{}, { label: 'calls/s', size: 50 }]
    }), rateData(series), $('chart-throughput'));
  }

  const waitData = s => [s.times, ...s.instances.flatMap(i => [s.waitP99[i.id], s.waitP50[i.id]])];
  const rateData = s => [s.times, s.totalThroughput, ...s.instances.map(i => s.throughput[i.id])];

  async function refreshCharts() {
    let series;
    try {
      series = await getJson('/api/demo/metrics?seconds=90');
    } catch (e) {
      return;
    }
    series.instances.forEach(i => colorOf(i.id));
    const key = series.instances.map(i => i.id).join();
    if (key !== charts.key) {
      charts.key = key;
      makeCharts(series);
    } else {
      charts.wait.setData(waitData(series));
      charts.rate.setData(rateData(series));
    }
    $('chart-wait').dataset.points = series.times.length;
  }

  window.addEventListener('resize', () => {
    charts.wait && charts.wait.setSize({ width: chartWidth('chart-wait'), height: 210 });
    charts.rate && charts.rate.setSize({ width: chartWidth('chart-throughput'), height: 210 });
  });

  // --- Products and held locks ----------------------------------------------------------------------------------

  async function refreshProducts() {
    try {
      const products = await getJson('/api/products');
      $('products').querySelector('tbody').replaceChildren(...products.map(p =>
          h('tr', {}, h('td', {}, p.id), h('td', {}, p.name), h('td', {}, p.stock))));
    } catch (e) { /* stale values; the next refresh retries */ }
    try {
      $('held').textContent = JSON.stringify(await getJson('/actuator/distlock'), null, 2);
    } catch (e) {
      $('held').textContent = 'not available (' + e.message + '); is distlock enabled?';
    }
  }

  /** Who holds a lock, from the store: any instance's holder, named by its distlock.instance-id. */
  async function askHolder() {
    const name = $('holder-name').value.trim();
    if (!name) {
      return;
    }
    try {
      const response = await fetch('/actuator/distlock/' + name, { headers: { Accept: 'application/json' } });
      const body = await response.json().catch(() => ({}));
      if (response.status === 404) {
        $('holder').textContent = "'" + name + "' is free";
      } else if (!response.ok) {
        $('holder').textContent = body.error || ('the endpoint answered ' + response.status);
      } else {
        $('holder').textContent = body.holder + " holds '" + body.name + "': fencing token " + body.fencingToken
            + ', lease ' + body.leaseRemainingMillis + ' ms left, '
            + (body.waiters == null ? 'waiters not counted by this store' : body.waiters + ' waiting');
      }
    } catch (e) {
      $('holder').textContent = 'not available (' + e.message + ')';
    }
  }

  // --- Transfers ------------------------------------------------------------------------------------------------

  async function refreshAccounts() {
    try {
      const accounts = await getJson('/api/accounts');
      $('accounts').querySelector('tbody').replaceChildren(...accounts.accounts.map(a =>
          h('tr', {}, h('td', {}, a.id), h('td', {}, a.owner), h('td', {}, a.balance.toLocaleString()))));
      $('accounts-total').textContent = accounts.total.toLocaleString();
    } catch (e) { /* stale values; the next refresh retries */ }
  }

  function showTransfers(r) {
    const card = $('transfer-result');
    card.className = 'card ' + (r.conserved ? 'good' : 'bad');
    const errors = Object.entries(r.errors).map(([status, n]) => `${n} × ${status}`).join(', ');
    card.replaceChildren(
        h('h2', {}, r.conserved ? 'Conserved' : 'NOT conserved'),
        h('div', { class: 'numbers' },
            h('div', { class: 'number' }, r.succeeded, h('small', {}, 'transfers done')),
            h('div', { class: 'number' }, r.refused, h('small', {}, 'refused, no funds')),
            h('div', { class: 'number ' + (r.conserved ? 'good' : 'bad') },
                `${r.totalBefore.toLocaleString()} → ${r.totalAfter.toLocaleString()}`, h('small', {}, 'total'))),
        h('p', { class: 'details' }, `${r.transfers} transfers over ${r.instances.length} instance(s), `
            + `${r.concurrency} in flight, ${r.elapsedMillis} ms` + (errors ? `; other answers: ${errors}` : '')));
  }

  /**
   * A demo button: disabled while its POST runs, its status line saying what happens; the answer goes to show, a
   * refusal (its problem detail) to the status line, and refresh runs in the end either way.
   */
  async function runDemo(button, status, busy, url, show, refresh) {
    $(button).disabled = true;
    $(status).textContent = busy;
    try {
      show(await getJson(url, { method: 'POST' }));
      $(status).textContent = 'Done.';
    } catch (e) {
      $(status).textContent = 'Not run: ' + e.message;
    } finally {
      $(button).disabled = false;
      refresh();
    }
  }

  const runTransfers = () => runDemo('run-transfers', 'transfer-status', 'Transferring...',
      '/api/demo/transfers?transfers=400&concurrency=24', showTransfers, refreshAccounts);

  // --- Fail closed ----------------------------------------------------------------------------------------------

  function showFailClosed(r) {
    const card = $('fail-closed-result');
    const sold = r.stockBefore - r.stockAfterFreeze;
    const refused = r.whileFrozen['503'] || 0;
    const frozenBuyers = Object.values(r.whileFrozen).reduce((a, b) => a + b, 0);
    const answers = m => Object.entries(m).map(([status, n]) => `${n} × ${status}`).join(', ') || 'none';
    card.className = 'card ' + (sold === 0 ? 'good' : 'bad');
    card.replaceChildren(
        h('h2', {}, sold === 0 ? 'Failed closed' : 'SOLD WITHOUT THE LOCK'),
        h('div', { class: 'numbers' },
            h('div', { class: 'number', 'data-field': 'refused' }, h('small', {}, 'answered 503 while frozen'),
                `${refused} / ${frozenBuyers}`),
            h('div', { class: 'number ' + (sold === 0 ? 'good' : 'bad'), 'data-field': 'sold-while-frozen' },
                h('small', {}, 'sold while frozen'), String(sold)),
            h('div', { class: 'number', 'data-field': 'sold-once-back' }, h('small', {}, 'sold once back'),
                String(r.afterThaw['200'] || 0))),
        h('p', { class: 'details' }, `Redis frozen ${r.frozenMillis} ms; product ${r.productId}'s stock `
            + `${r.stockBefore} → ${r.stockAfterFreeze} while frozen → ${r.stockAfter} after; answers while frozen: `
            + `${answers(r.whileFrozen)}, once back: ${answers(r.afterThaw)}; over ${r.instances.length} instance(s)`));
  }

  const runFailClosed = () => runDemo('run-fail-closed', 'fail-closed-status', 'Redis frozen, buyers waiting...',
      '/api/demo/fail-closed?product=2&buyers=12', showFailClosed, refreshProducts);

  $('self').textContent = location.host;
  getJson('/api/demo/store').then(store => {
    $('store').textContent = store.description === 'none' ? store.id + ' (distlock.enabled=false)'
        : store.id + ': ' + store.description;
  }).catch(() => { $('store').textContent = 'unknown'; });
  $('run-transfers').addEventListener('click', runTransfers);
  $('run-fail-closed').addEventListener('click', runFailClosed);
  refreshAccounts();
  setInterval(refreshAccounts, 3000);
  $('run').addEventListener('click', runSale);
  $('ask-holder').addEventListener('click', askHolder);
  refreshInstances().then(() => { refreshIdleTimeline(); refreshCharts(); });
  refreshProducts();
  setInterval(refreshInstances, 2000);
  refreshStoreHealth();
  setInterval(refreshStoreHealth, 2000);
  setInterval(refreshIdleTimeline, 1000);
  setInterval(refreshCharts, 1000);
  setInterval(refreshProducts, 3000);
}());
