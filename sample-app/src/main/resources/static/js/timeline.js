/*
 * The sample page's lock timeline, drawn with plain SVG elements (no canvas code, no library): one lane per
 * instance, each hold of the lock a bar labelled with its fencing token, the callers waiting for the lock as thin
 * lines under it, and holds that overlap another hold of the same lock in red.
 *
 * Two views of the same data: a strip on top with the whole window (every hold, however thin), and a close-up
 * under it, wide enough to read the tokens. The close-up is moved by dragging, zoomed with the wheel, reset with a
 * double-click, and jumps to where the strip on top is clicked.
 *
 * Every hold drawn carries data-instance, data-start, data-end (microseconds) and data-token, so that a test can
 * check what the page shows.
 */
(function () {
  'use strict';

  const NS = 'http://www.w3.org/2000/svg';
  const LABEL_W = 100;        // lane names on the left
  const RIGHT = 12;
  const STRIP_LANE = 7;       // the whole-window strip: one thin row per lane
  const STRIP_GAP = 2;
  const HOLD_H = 20;          // close-up: a row of holds
  const HOLD_GAP = 3;
  const MAX_HOLD_ROWS = 6;    // holds of one instance that overlap each other (no lock) stack up to this
  const WAIT_H = 3;           // close-up: a row of waiting callers
  const WAIT_GAP = 2;
  const MAX_WAIT_ROWS = 8;
  const MIN_WAIT_MICROS = 100; // shorter is no real wait (the unlocked endpoint): not drawn
  const LANE_PAD = 10;
  const TOKEN_ROW = 13;       // close-up: tokens that do not fit in their bar go above it
  const AXIS_H = 18;
  const CLOSE_UP_HOLDS = 14;   // the close-up shows about this many holds one after the other
  const RED = '#d32f2f';

  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs || {})) {
      e.setAttribute(k, v);
    }
    if (parent) {
      parent.appendChild(e);
    }
    return e;
  }

  function ms(micros) {
    const v = micros / 1000;
    return (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)) + ' ms';
  }

  /** Greedy interval packing: each item gets the first row that is free at its start; at most maxRows rows. */
  function pack(items, start, end, maxRows) {
    const ends = [];
    for (const item of items) {
      let row = ends.findIndex(e => e <= start(item));
      if (row < 0) {
        if (ends.length < maxRows) {
          row = ends.length;
          ends.push(0);
        } else {
          row = ends.indexOf(Math.min(...ends));
        }
      }
      ends[row] = Math.max(ends[row], end(item));
      item.row = row;
    }
    return ends.length;
  }

  /** Lanes (one per instance, in start order) with their holds and waits packed into rows. */
  function prepare(timeline, liveIds) {
    const order = new Map(timeline.instances.map((inst, i) => [inst.id, i]));
    const known = new Map(timeline.instances.map(inst => [inst.id, inst]));
    const lanes = new Map();
    const lane = id => {
      if (!lanes.has(id)) {
        const inst = known.get(id);
        lanes.set(id, { id, label: inst ? inst.label : id.slice(0, 6), lockEnabled: inst ? inst.lockEnabled : true,
          holds: [], waits: [] });
      }
      return lanes.get(id);
    };
    (liveIds || []).forEach(lane);
    for (const e of timeline.entries) {
      const l = lane(e.instanceId);
      if (e.acquiredAt != null) {
        l.holds.push({ e, start: e.acquiredAt, end: e.releasedAt });
      }
      const waitEnd = e.acquiredAt != null ? e.acquiredAt : e.releasedAt;
      if (waitEnd - e.requestedAt >= MIN_WAIT_MICROS) {
        l.waits.push({ e, start: e.requestedAt, end: waitEnd, gaveUp: e.acquiredAt == null });
      }
    }
    const list = [...lanes.values()].sort((a, b) => (order.has(a.id) ? order.get(a.id) : 1e9)
        - (order.has(b.id) ? order.get(b.id) : 1e9));
    for (const l of list) {
      l.holds.sort((a, b) => a.start - b.start);
      l.waits.sort((a, b) => a.start - b.start);
      l.holdRows = Math.max(1, pack(l.holds, h => h.start, h => h.end, MAX_HOLD_ROWS));
      l.waitRows = pack(l.waits, w => w.start, w => w.end, MAX_WAIT_ROWS);
      l.height = TOKEN_ROW + l.holdRows * (HOLD_H + HOLD_GAP) + l.waitRows * (WAIT_H + WAIT_GAP) + LANE_PAD;
    }
    const holds = list.flatMap(l => l.holds).sort((a, b) => a.start - b.start);
    return { timeline, lanes: list, holds, from: timeline.from, to: Math.max(timeline.to, timeline.from + 1) };
  }

  function niceStep(spanMicros, maxTicks) {
    const steps = [100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7, 3e7, 6e7];
    return steps.find(s => spanMicros / s <= maxTicks) || 6e7;
  }

  function tickLabel(micros) {
    const abs = Math.abs(micros);
    if (abs >= 10e6) {
      return (micros / 1e6).toFixed(0) + ' s';
    }
    if (abs >= 1e6) {
      return (micros / 1e6).toFixed(abs % 1e6 === 0 ? 0 : 2) + ' s';
    }
    return (micros / 1000).toFixed(abs % 1000 === 0 ? 0 : 1) + ' ms';
  }

  /**
   * How many trailing digits tell apart the fencing tokens of the holds in view: every token between the smallest
   * and the largest shares their common leading digits, so the rest keep the tokens' order (the last four alone
   * would not: clock tokens in µs wrap them every 10 ms).
   */
  function distinctDigits(lanes, v0, v1) {
    const tokens = lanes.flatMap(l => l.holds).filter(h => h.e.fencingToken && h.end >= v0 && h.start <= v1)
        .map(h => String(h.e.fencingToken));
    if (tokens.length === 0) {
      return Infinity;
    }
    const lo = tokens.reduce((a, b) => (a.length < b.length || (a.length === b.length && a < b) ? a : b));
    const hi = tokens.reduce((a, b) => (a.length > b.length || (a.length === b.length && a > b) ? a : b));
    if (lo.length !== hi.length) {
      return hi.length;
    }
    let shared = 0;
    while (shared < lo.length && lo[shared] === hi[shared]) {
      shared++;
    }
    return Math.max(4, lo.length - shared);
  }

  class LockTimeline {
    /**
     * @param container the element to draw into (emptied)
     * @param colorOf instance id -> CSS colour, shared with the charts
     */
    constructor(container, colorOf) {
      this.container = container;
      this.colorOf = colorOf;
      this.data = null;
      this.view = null;       // [from, to] of the close-up, microseconds
      this.pinned = false;    // the user moved or zoomed: keep the view when new data arrives
      this.container.textContent = '';
      this.svg = el('svg', { class: 'tl' }, container);
      this.stripG = el('g', { class: 'overview' }, this.svg);
      this.brush = null;
      this.detailG = el('g', { class: 'detail' }, this.svg);
      this.listen();
      new ResizeObserver(() => this.data && this.render()).observe(container);
    }

    /**
     * @param timeline the API's Timeline (from, to, instances, entries)
     * @param options follow: live data, keep the close-up on the latest holds; origin: time 0 of the axis
     *        (microseconds, default the window's start); live: ids of live instances, shown even without holds
     */
    show(timeline, options) {
      const opts = options || {};
      this.data = prepare(timeline, opts.live);
      this.follow = !!opts.follow;
      this.origin = opts.origin != null ? opts.origin : timeline.from;
      if (!this.pinned || !this.view) {
        this.view = this.closeUp();
      }
      this.render();
    }

    /** Back to the automatic close-up. */
    reset() {
      this.pinned = false;
      if (this.data) {
        this.view = this.closeUp();
        this.renderDetail();
      }
    }

    closeUp() {
      const { holds, from, to } = this.data;
      const buyers = holds.filter(h => h.e.outcome !== 'restock');
      if (buyers.length < 2) {
        return [from, to];
      }
      const period = (buyers[buyers.length - 1].start - buyers[0].start) / (buyers.length - 1);
      // Without a lock the holds are long and stacked: wide enough to see a few of them whole, too.
      const held = buyers.map(h => h.end - h.start).sort((a, b) => a - b);
      const typical = held[Math.floor(held.length / 2)];
      const span = Math.min(to - from, Math.max(1000, period * CLOSE_UP_HOLDS, typical * 3));
      if (this.follow) {
        const end = Math.max(...buyers.slice(-50).map(h => h.end));
        return [end - span * 0.95, end + span * 0.05];
      }
      // Where the most sales start within one span: with the lock a busy stretch with every instance taking
      // turns, without it the thickest pile of overlaps. Sales rather than all holds, since the holds that only
      // find the product sold out are the quick, dull end of a sale. Two pointers over holds sorted by start.
      const sold = buyers.filter(h => h.e.outcome === 'sold');
      const candidates = sold.length >= CLOSE_UP_HOLDS ? sold : buyers;
      let best = 0;
      let bestCount = 0;
      for (let i = 0, j = 0; i < candidates.length; i++) {
        while (j < candidates.length && candidates[j].start < candidates[i].start + span * 0.9) {
          j++;
        }
        if (j - i > bestCount) {
          bestCount = j - i;
          best = i;
        }
      }
      const start = Math.max(from, Math.min(candidates[best].start - span * 0.05, to - span));
      return [start, start + span];
    }

    geometry() {
      const width = Math.max(480, this.container.clientWidth - 10);
      const plotW = width - LABEL_W - RIGHT;
      const stripH = this.data.lanes.length * (STRIP_LANE + STRIP_GAP) + 4;
      return { width, plotW, stripH, detailTop: stripH + 16 };
    }

    render() {
      this.renderStrip();
      this.renderDetail();
    }

    /** The whole window: every hold as a thin bar, red when it overlaps. */
    renderStrip() {
      const g = this.geometry();
      const { lanes, from, to } = this.data;
      const x = t => LABEL_W + (t - from) / (to - from) * g.plotW;
      const strip = this.stripG;
      strip.textContent = '';
      el('rect', { x: LABEL_W, y: 0, width: g.plotW, height: g.stripH, fill: '#f7f7f7' }, strip);
      el('text', { x: 4, y: Math.min(g.stripH - 2, 11), class: 'tick' }, strip).textContent = 'whole window';
      lanes.forEach((lane, i) => {
        const y = 2 + i * (STRIP_LANE + STRIP_GAP);
        for (const h of lane.holds) {
          const bar = el('rect', {
            class: 'hold' + (h.e.overlap ? ' overlap' : ''), x: x(h.start), y,
            width: Math.max(1, x(h.end) - x(h.start)), height: STRIP_LANE,
            fill: h.e.overlap ? RED : this.colorOf(lane.id),
            'data-instance': lane.id, 'data-start': h.start, 'data-end': h.end, 'data-token': h.e.fencingToken,
            'data-outcome': h.e.outcome
          }, strip);
          if (h.e.outcome === 'sold-out' && !h.e.overlap) {
            bar.setAttribute('fill-opacity', '0.45');
          }
        }
      });
      this.brush = el('rect', { class: 'brush', y: 0, height: g.stripH, fill: 'rgba(0,0,0,.08)', stroke: '#444',
        'stroke-width': 1 }, strip);
      this.placeBrush();
    }

    placeBrush() {
      const g = this.geometry();
      const { from, to } = this.data;
      const x = t => LABEL_W + (t - from) / (to - from) * g.plotW;
      const x0 = Math.max(LABEL_W, x(this.view[0]));
      const x1 = Math.min(LABEL_W + g.plotW, x(this.view[1]));
      this.brush.setAttribute('x', x0);
      this.brush.setAttribute('width', Math.max(2, x1 - x0));
    }

    /** The close-up: lanes with labelled holds and waiting callers, and a time axis. */
    renderDetail() {
      const g = this.geometry();
      const { lanes } = this.data;
      const [v0, v1] = this.view;
      const x = t => LABEL_W + (t - v0) / (v1 - v0) * g.plotW;
      const d = this.detailG;
      d.textContent = '';
      const clipId = this.container.id + '-clip';
      const defs = el('defs', {}, d);
      const clip = el('clipPath', { id: clipId }, defs);
      let y = g.detailTop;
      const top = y;
      const lanesH = lanes.reduce((sum, l) => sum + l.height, 0);
      el('rect', { x: LABEL_W, y: top, width: g.plotW, height: lanesH, fill: '#fcfcfc' }, d);
      el('rect', { x: LABEL_W, y: top, width: g.plotW, height: lanesH }, clip);
      const ticksG = el('g', {}, d);
      const bars = el('g', { 'clip-path': `url(#${clipId})` }, d);
      const digits = distinctDigits(lanes, v0, v1);
      for (const lane of lanes) {
        const color = this.colorOf(lane.id);
        el('circle', { cx: 9, cy: y + TOKEN_ROW + 10, r: 5, fill: color }, d);
        el('text', { x: 19, y: y + TOKEN_ROW + 14, class: 'lane-label' }, d).textContent = lane.label;
        if (!lane.lockEnabled) {
          el('text', { x: 19, y: y + TOKEN_ROW + 28, class: 'tick', fill: RED }, d).textContent = 'lock disabled';
        }
        const labels = { right: -Infinity };
        for (const h of lane.holds) {
          if (h.end < v0 || h.start > v1) {
            continue;
          }
          const bx = x(h.start);
          const bw = Math.max(1, x(h.end) - bx);
          const by = y + TOKEN_ROW + h.row * (HOLD_H + HOLD_GAP);
          const fill = h.e.overlap ? RED : h.e.outcome === 'restock' ? '#757575' : color;
          const bar = el('rect', {
            class: 'hold' + (h.e.overlap ? ' overlap' : ''), x: bx, y: by, width: bw, height: HOLD_H, rx: 2,
            fill, stroke: '#fff', 'stroke-width': 0.5,
            'data-instance': lane.id, 'data-start': h.start, 'data-end': h.end, 'data-token': h.e.fencingToken
          }, bars);
          if (h.e.outcome === 'sold-out' && !h.e.overlap) {
            bar.setAttribute('fill-opacity', '0.5');
          }
          el('title', {}, bar).textContent = `${lane.label}: ${h.e.outcome}`
              + `\nfencing token ${h.e.fencingToken || 'none (no lock held)'}`
              + `\nwaited ${ms(h.start - h.e.requestedAt)}, held ${ms(h.end - h.start)}`
              + (h.e.overlap ? '\nOVERLAPS another holder' : '');
          this.label(bars, h, bx, bw, by, x(v0), labels, digits);
        }
        const waitTop = y + TOKEN_ROW + lane.holdRows * (HOLD_H + HOLD_GAP) + 2;
        for (const w of lane.waits) {
          if (w.end < v0 || w.start > v1) {
            continue;
          }
          const wx = x(w.start);
          const line = el('rect', {
            class: 'wait', x: wx, y: waitTop + w.row * (WAIT_H + WAIT_GAP), width: Math.max(1, x(w.end) - wx),
            height: WAIT_H, fill: w.gaveUp ? RED : color, 'fill-opacity': w.gaveUp ? 0.6 : 0.35
          }, bars);
          el('title', {}, line).textContent = `${lane.label}: waited ${ms(w.end - w.start)} for the lock`
              + (w.gaveUp ? ` and gave up (${w.e.outcome})` : '');
        }
        y += lane.height;
        el('line', { x1: 0, x2: LABEL_W + g.plotW, y1: y - 3, y2: y - 3, stroke: '#eee' }, d);
      }
      // Axis: time since the origin (the run's start).
      const step = niceStep(v1 - v0, Math.max(3, Math.floor(g.plotW / 90)));
      const first = Math.ceil((v0 - this.origin) / step) * step;
      for (let t = first; this.origin + t <= v1; t += step) {
        const tx = x(this.origin + t);
        el('line', { x1: tx, x2: tx, y1: top, y2: y, stroke: '#eee' }, ticksG);
        el('text', { x: tx, y: y + 12, class: 'tick', 'text-anchor': 'middle' }, d).textContent = tickLabel(t);
      }
      el('text', { x: 4, y: y + 12, class: 'tick' }, d).textContent = 'since start';
      this.svg.setAttribute('height', y + AXIS_H);
      this.svg.setAttribute('viewBox', `0 0 ${g.width} ${y + AXIS_H}`);
      this.placeBrush();
    }

    /**
     * The fencing token on its bar: all of it when it fits, else its last `digits` (at least those that differ between
     * the tokens in view, so that the short labels read in the tokens' order); above the bar when even those do not
     * fit (first row only, where there is room, without covering the previous label). A hold without a lock says so
     * instead.
     */
    label(parent, h, bx, bw, by, leftEdge, placed, digits) {
      const charW = 6.2;
      // The visible part of a bar cut by the left edge.
      const left = Math.max(bx, leftEdge);
      const room = bx + bw - left;
      const full = h.e.fencingToken ? String(h.e.fencingToken) : 'no lock';
      const short = h.e.fencingToken && digits < full.length ? '…' + full.slice(-digits) : null;
      const inside = [full, short].find(t => t && room >= t.length * charW + 6);
      if (inside) {
        el('text', { x: left + room / 2, y: by + 14, class: 'token', 'text-anchor': 'middle' }, parent)
            .textContent = inside;
        return;
      }
      if (!short || h.row !== 0) {
        return;
      }
      const center = left + room / 2;
      const half = short.length * charW / 2;
      if (center - half > placed.right + 4 && center - half >= leftEdge) {
        el('text', { x: center, y: by - 3, class: 'token above', 'text-anchor': 'middle' }, parent)
            .textContent = short;
        placed.right = center + half;
      }
    }

    listen() {
      const timeAt = (evt, view) => {
        const g = this.geometry();
        const rect = this.svg.getBoundingClientRect();
        const px = (evt.clientX - rect.left) * g.width / rect.width;
        const [a, b] = view;
        return a + (px - LABEL_W) / g.plotW * (b - a);
      };
      const setView = (a, b) => {
        const { from, to } = this.data;
        const span = Math.min(b - a, to - from);
        const start = Math.max(from, Math.min(a, to - span));
        this.view = [start, start + span];
        this.pinned = true;
        this.renderDetail();
      };
      let drag = null;
      this.svg.addEventListener('mousedown', evt => {
        if (!this.data) {
          return;
        }
        const inStrip = this.stripG.contains(evt.target);
        drag = { strip: inStrip, x: evt.clientX, view: this.view.slice() };
        if (inStrip) {
          const t = timeAt(evt, [this.data.from, this.data.to]);
          const half = (this.view[1] - this.view[0]) / 2;
          setView(t - half, t + half);
        }
        evt.preventDefault();
      });
      window.addEventListener('mousemove', evt => {
        if (!drag || !this.data) {
          return;
        }
        if (drag.strip) {
          const t = timeAt(evt, [this.data.from, this.data.to]);
          const half = (this.view[1] - this.view[0]) / 2;
          setView(t - half, t + half);
        } else {
          const g = this.geometry();
          const rect = this.svg.getBoundingClientRect();
          const dt = (evt.clientX - drag.x) * g.width / rect.width / g.plotW * (drag.view[1] - drag.view[0]);
          setView(drag.view[0] - dt, drag.view[1] - dt);
        }
      });
      window.addEventListener('mouseup', () => { drag = null; });
      this.detailG.addEventListener('wheel', evt => {
        if (!this.data) {
          return;
        }
        evt.preventDefault();
        const t = timeAt(evt, this.view);
        const f = evt.deltaY > 0 ? 1.25 : 0.8;
        setView(t - (t - this.view[0]) * f, t + (this.view[1] - t) * f);
      }, { passive: false });
      this.detailG.addEventListener('dblclick', () => this.reset());
    }
  }

  window.LockTimeline = LockTimeline;
}());
