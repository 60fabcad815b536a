// stonelab web UI: plain JavaScript, no dependencies. Talks to the JSON API of API.md.
'use strict';
(function () {
  const $ = (id) => document.getElementById(id);
  const SIDES = ['black', 'white'];
  const WIN = 1000000; // |score| >= WIN: a proven win or loss
  // Scores within MATE_WINDOW below WIN are proven too: engines that count plies to a forced
  // win (the Gomoku engine) report `WIN - plies` (see crates/search/src/score.rs).
  const MATE_WINDOW = 1000;
  const C = 40; // SVG units per board cell
  const ANALYSIS_MS = 300;

  // All mutable UI state lives here.
  const S = {
    catalog: null, // {games: [...], models: [...]}
    agents: {}, // game id -> [{name, about, keys}]
    gameId: 'othello8', // the game chosen in the select
    selSeq: 0,
    game: null, // the latest state from the server (normalized)
    gen: 0, // bumped when a new game replaces the current one: stale replies are dropped
    inflight: null, // {kind, ctrl, side, spec}: the one request in flight
    queued: null, // {gen, go}: one user action waiting for the request in flight
    timer: null, // the one pending timer (agent move, analysis, refresh)
    retry: 0,
    lost: false, // the server forgot the game (404)
    paused: false,
    speed: 500,
    showEvals: false,
    hint: null, // {key, move, index, decision}
    analysis: null, // {key, moves}
    analysisTried: null, // state key of the last analysis request
    decision: { black: null, white: null },
    lastDecision: null,
    geom: null,
    toastTimer: null,
  };

  // ---------------------------------------------------------------- helpers
  const ESC = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
  const esc = (s) => String(s == null ? '' : s).replace(/[&<>"']/g, (c) => ESC[c]);
  const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : '');
  const isHuman = (spec) => String(spec == null ? '' : spec).trim().toLowerCase() === 'human';
  const specName = (spec) => String(spec || '').split(':')[0].trim().toLowerCase();
  const num = (v) => typeof v === 'number' && isFinite(v);
  const r1 = (v) => Math.round(v * 10) / 10;

  // A raw score proves a result: |score| >= WIN (margin |score| - WIN), or a mate distance
  // WIN - plies just below it.
  const isProven = (s) => num(s) && Math.abs(s) > WIN - MATE_WINDOW;
  // A proven raw score in words from its side's point of view: "win by 6" / "loss by 2" /
  // "draw" (a margin), or "win in 3" / "loss in 2" (moves of the side that wins, for engines
  // that report the distance to a forced win as WIN - plies).
  function provenWords(s) {
    const a = Math.abs(s);
    if (a >= WIN) {
      const margin = Math.round(a - WIN);
      if (margin === 0) return 'draw';
      return (s > 0 ? 'win by ' : 'loss by ') + margin;
    }
    const moves = Math.max(1, Math.ceil((WIN - a) / 2));
    return (s > 0 ? 'win in ' : 'loss in ') + moves;
  }
  // A plain number with its sign (analysis scores: Othello discs, Gomoku engine units).
  function fmtScore(s) {
    if (!num(s)) return '–';
    if (isProven(s)) return Math.abs(s) >= WIN ? (s > 0 ? 'win' : s < 0 ? 'loss' : 'draw') : provenWords(s);
    const v = Number.isInteger(s) ? s : s.toFixed(1);
    return s > 0 ? '+' + v : String(v);
  }
  // An agent's score (decisions, hints, per-move evals). Othello agents score in the
  // evaluator's units, 100 per disc, and a proven result as ±(WIN + margin in discs); the
  // Gomoku engine in its own units, and a forced win as WIN - plies.
  function fmtEval(s, family) {
    if (!num(s)) return '–';
    if (isProven(s)) return provenWords(s);
    if (family === 'othello') {
      const d = s / 100;
      const v = Math.abs(d).toFixed(1);
      return v === '0.0' ? '0.0' : (d > 0 ? '+' : '-') + v;
    }
    return fmtScore(s);
  }
  // A decision's score as the server words it, with its unit (an agent may score in discs,
  // its own units or an expected result); older replies without it fall back to fmtEval. A
  // proven result found at a distance (`eval.value` is then only its sign) says how far:
  // "win in 3", never a raw 999997.
  function evalText(d, family) {
    if (d && isProven(d.score) && Math.abs(d.score) < WIN) return provenWords(d.score);
    if (d && d.eval && typeof d.eval.text === 'string') return d.eval.text;
    return fmtEval(d ? d.score : undefined, family);
  }
  // A per-move evaluation (Black's point of view, as the state's `evals` / `eval_texts`) for
  // people: a proven result by who wins ("White wins in 1", "Black wins by 6", "draw"),
  // anything else as Black's value with its unit ("Black +1.20", "Black expects -0.30").
  function povText(v, text, family) {
    if (isProven(v)) {
      const words = provenWords(Math.abs(v));
      if (words === 'draw') return 'draw';
      return (v > 0 ? 'Black ' : 'White ') + words.replace(/^win/, 'wins');
    }
    return 'Black ' + (typeof text === 'string' && text ? text : fmtEval(v, family));
  }
  function curFamily() {
    return S.game ? S.game.family : '';
  }
  function fmtCount(n) {
    if (!num(n)) return '';
    if (n >= 1e6) return (n / 1e6).toFixed(1) + 'M';
    if (n >= 1e4) return Math.round(n / 1e3) + 'k';
    return String(n);
  }
  function stateKey(g) {
    return g ? g.id + '|' + g.moves.length + '|' + g.cells + '|' + g.to_move : '';
  }
  function gameEntry(id) {
    return (S.catalog && S.catalog.games.find((e) => e.id === id)) || null;
  }
  function validIndex(i) {
    return S.game && Number.isInteger(i) && i >= 0 && i < S.game.size * S.game.size;
  }
  function coordName(g, i) {
    const N = g.size;
    return (g.files[i % N] || '?') + (g.ranks[Math.floor(i / N)] || '?');
  }
  function stoneAt(g, i) {
    const ch = g.cells[i];
    return ch === 'X' || ch === 'x' ? 'black' : ch === 'O' || ch === 'o' ? 'white' : null;
  }
  function findLegal(g, mv) {
    const m = String(mv || '').toLowerCase();
    return g.legal.find((l) => l.move.toLowerCase() === m) || null;
  }
  function agentToMove(g) {
    return !!g && !g.over && !isHuman(g.players[g.to_move]);
  }
  function bothAgents(g) {
    return !!g && SIDES.every((s) => !isHuman(g.players[s]));
  }
  function store(key, value) {
    try { localStorage.setItem('stonelab.' + key, JSON.stringify(value)); } catch (e) { /* private mode */ }
  }
  function load(key, fallback) {
    try {
      const v = localStorage.getItem('stonelab.' + key);
      return v == null ? fallback : JSON.parse(v);
    } catch (e) { return fallback; }
  }

  // Status line / toast: never alert().
  function toast(msg, kind, ms) {
    const el = $('status');
    kind = kind || 'info';
    el.textContent = msg;
    el.className = 'toast show ' + kind;
    placeToast();
    clearTimeout(S.toastTimer);
    S.toastTimer = setTimeout(() => {
      el.className = 'toast ' + kind;
      S.toastTimer = setTimeout(() => { el.textContent = ''; }, 300);
    }, ms || (kind === 'error' ? 6000 : 3000));
  }

  // The toast goes where it covers no control: over the status lines when they are on screen
  // (they hold only text), else under the top bar, else at the bottom or in a corner; the
  // first place that overlaps no visible button, field or board point wins (the least
  // overlap when none is free).
  const CONTROLS = 'button, select, input, textarea, a[href], [role="button"], label.check, label.speed';
  function placeToast() {
    const el = $('status');
    if (!el.classList.contains('show')) return;
    const vw = document.documentElement.clientWidth || window.innerWidth;
    const vh = window.innerHeight;
    const bar = document.querySelector('.topbar');
    const top0 = bar ? Math.max(0, bar.getBoundingClientRect().bottom) : 0;
    const rects = [];
    for (const c of document.querySelectorAll(CONTROLS)) {
      if (c.closest('[hidden]') || c === el) continue;
      const r = c.getBoundingClientRect();
      if (r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < vh) rects.push(r);
    }
    const size = (maxW) => {
      el.style.maxWidth = Math.max(120, Math.floor(maxW)) + 'px';
      return [el.offsetWidth, el.offsetHeight, Math.max(120, Math.floor(maxW))];
    };
    const gap = 10;
    const wide = Math.min(560, vw - 2 * gap);
    const spots = [];
    const sb = document.querySelector('.statusbar').getBoundingClientRect();
    if (sb.width > 0 && sb.top >= top0 && sb.bottom <= vh) {
      const [w, h, m] = size(sb.width);
      spots.push([sb.left + (sb.width - w) / 2, sb.top + Math.max(0, (sb.height - h) / 2), w, h, m]);
    }
    const [w, h, m] = size(wide);
    spots.push([(vw - w) / 2, top0 + gap, w, h, m]);
    spots.push([(vw - w) / 2, vh - h - gap, w, h, m]);
    spots.push([gap, vh - h - gap, w, h, m]);
    spots.push([vw - w - gap, vh - h - gap, w, h, m]);
    spots.push([gap, top0 + gap, w, h, m]);
    spots.push([vw - w - gap, top0 + gap, w, h, m]);
    const overlap = (x, y, sw, shh) => {
      let area = 0;
      for (const r of rects) {
        const ox = Math.min(x + sw, r.right + 2) - Math.max(x, r.left - 2);
        const oy = Math.min(y + shh, r.bottom + 2) - Math.max(y, r.top - 2);
        if (ox > 0 && oy > 0) area += ox * oy;
      }
      return area;
    };
    let best = null;
    for (const sp of spots) {
      const a = overlap(sp[0], sp[1], sp[2], sp[3]);
      if (!best || a < best.a) best = { sp, a };
      if (a === 0) break;
    }
    const [x, y, , , maxW] = best.sp;
    el.style.maxWidth = maxW + 'px';
    el.style.left = Math.round(Math.max(0, x)) + 'px';
    el.style.top = Math.round(Math.max(0, y)) + 'px';
  }

  // ---------------------------------------------------------------- API
  class ApiError extends Error {
    constructor(status, message) { super(message); this.status = status; }
  }
  async function api(method, path, body, signal) {
    const opts = { method, headers: { Accept: 'application/json' }, signal };
    if (body !== undefined) {
      opts.headers['Content-Type'] = 'application/json';
      opts.body = JSON.stringify(body);
    }
    let res;
    try {
      res = await fetch(path, opts);
    } catch (e) {
      if (e && e.name === 'AbortError') throw e;
      throw new ApiError(0, 'Network error: the server cannot be reached.');
    }
    const text = await res.text();
    let data = null;
    if (text) {
      try { data = JSON.parse(text); } catch (e) { data = null; }
    }
    if (!res.ok) {
      const msg = data && typeof data.error === 'string' ? data.error : res.status + ' ' + (res.statusText || 'error');
      throw new ApiError(res.status, msg);
    }
    return data;
  }

  // ---------------------------------------------------------------- request runner
  // Exactly one request in flight. A user action arriving meanwhile is queued (one slot,
  // latest wins) and runs when the request in flight ends; background work (agent moves,
  // analysis, refreshes) is simply dropped and rescheduled from the state.
  // opts.check (optional) is asked right before the request is sent: a queued action whose
  // check fails against the state as it is then (a move no longer legal, no longer the
  // human's turn) is dropped silently.
  function run(kind, fn, opts) {
    opts = opts || {};
    if (S.inflight) {
      if (opts.user) {
        const gen = S.gen;
        S.queued = { gen, go: () => run(kind, fn, opts) };
      }
      return;
    }
    if (opts.check && !opts.check()) return;
    clearTimeout(S.timer);
    S.timer = null;
    const gen = S.gen;
    const me = { kind, ctrl: new AbortController(), side: opts.side || null, spec: opts.spec || '' };
    S.inflight = me;
    renderBusy();
    let after = null;
    let p;
    try { p = Promise.resolve(fn(me.ctrl.signal, gen)); } catch (e) { p = Promise.reject(e); }
    p.then(() => { if (gen === S.gen) S.retry = 0; }, (e) => {
      if (e && e.name === 'AbortError') return;
      if (gen === S.gen) after = handleError(e, kind);
      else if (!(e instanceof ApiError)) console.warn(e);
    }).then(() => {
      if (S.inflight === me) S.inflight = null;
      if (gen !== S.gen) return;
      renderBusy();
      if (S.queued && S.queued.gen === S.gen) {
        const q = S.queued;
        S.queued = null;
        q.go();
        if (S.inflight) return;
        // The queued action was dropped: carry on from the state.
      }
      S.queued = null;
      if (after) {
        clearTimeout(S.timer);
        S.timer = setTimeout(after.fn, after.delay);
        return;
      }
      schedule();
    });
  }

  function resetRunner() {
    if (S.inflight) {
      try { S.inflight.ctrl.abort(); } catch (e) { /* ignore */ }
      S.inflight = null;
    }
    S.queued = null;
    clearTimeout(S.timer);
    S.timer = null;
    S.retry = 0;
  }

  // A request about the current game; dropped if the game changed before it runs.
  function gameCall(kind, method, suffix, body, onOk, opts) {
    const g = S.game;
    if (!g) return;
    const id = g.id;
    run(kind, async (signal, gen) => {
      if (!S.game || S.game.id !== id) return;
      const r = await api(method, '/api/games/' + id + suffix, body, signal);
      if (gen !== S.gen || !S.game || S.game.id !== id) return;
      onOk(r);
    }, opts);
  }

  function handleError(e, kind) {
    if (!(e instanceof ApiError)) {
      console.error(e);
      toast('Unexpected error: ' + (e && e.message ? e.message : String(e)), 'error');
      return null;
    }
    const msg = e.message;
    if (kind === 'new') {
      // The server refused the new game (full, bad player, ...): say so where the board is,
      // with Retry; never a silent "Loading…".
      showLoadError('Could not start a new game: ' + msg, true);
      return null;
    }
    // A refused position is shown once, under its field (not also as a toast).
    if (kind === 'position' && e.status >= 400 && e.status < 500 && e.status !== 404 && e.status !== 409) {
      showPositionError(msg);
      return null;
    }
    if (e.status === 404) {
      S.lost = true;
      toast('This game no longer exists on the server (was it restarted?). Press New game.', 'error', 10000);
      return null;
    }
    if (e.status === 409 || e.status === 503 || e.status === 0) {
      // Busy or out of date: look at the real state again a little later.
      if (kind === 'analysis') S.analysisTried = null;
      if (kind !== 'analysis' && kind !== 'refresh') toast(msg, e.status === 409 ? 'info' : 'error');
      S.retry = Math.min(S.retry + 1, 6);
      return { fn: refresh, delay: Math.min(300 * Math.pow(2, S.retry - 1), 8000) };
    }
    if (kind === 'analysis') return null;
    if (kind === 'agent') {
      S.paused = true;
      renderControls();
      toast(msg + ' — agent play paused.', 'error', 9000);
      return null;
    }
    toast(msg, 'error');
    return null;
  }

  // What to do next, from the current state. Called whenever nothing is in flight.
  function schedule() {
    clearTimeout(S.timer);
    S.timer = null;
    const g = S.game;
    if (!g || S.inflight || S.lost) return;
    if (g.busy && !g.over) { S.timer = setTimeout(refresh, 800); return; }
    if (g.over) return;
    if (agentToMove(g)) {
      if (!S.paused) S.timer = setTimeout(() => agentMove(false), replyDelay(g));
      return;
    }
    if (S.showEvals && g.human_to_move && !g.must_pass && g.legal.length && S.analysisTried !== stateKey(g)) {
      S.timer = setTimeout(analyze, 50);
    }
  }

  function replyDelay(g) {
    // AI vs AI: the chosen delay. Against a human: the same, capped for a snappy reply.
    return bothAgents(g) ? S.speed : Math.min(S.speed, 600);
  }

  // ---------------------------------------------------------------- actions
  function refresh() {
    gameCall('refresh', 'GET', '', undefined, (st) => apply(st));
  }

  function agentMove(user) {
    const g = S.game;
    if (!g || !agentToMove(g)) return;
    const side = g.to_move;
    const spec = g.players[side];
    const check = () => {
      const cur = S.game;
      return agentToMove(cur) && cur.to_move === side && cur.players[side] === spec && (!user || S.paused);
    };
    gameCall('agent', 'POST', '/agent-move', {}, (r) => {
      if (!r || !r.state) throw new ApiError(500, 'Unexpected reply from the server.');
      apply(r.state, r.decision);
    }, { user, side, spec, check });
  }

  // A human move; re-checked against the state when it is sent (it may have been queued).
  function canPlay(mv) {
    const g = S.game;
    return !!g && g.human_to_move && !!findLegal(g, mv);
  }

  function play(mv) {
    gameCall('move', 'POST', '/move', { move: mv }, (st) => apply(st), { user: true, check: () => canPlay(mv) });
  }

  function undo() {
    const g = S.game;
    if (!g) return;
    if (!g.moves.length) { toast('Nothing to undo.'); return; }
    if (bothAgents(g) && !S.paused) { S.paused = true; renderControls(); }
    gameCall('undo', 'POST', '/undo', {}, (st) => apply(st), { user: true, check: () => !!S.game && S.game.moves.length > 0 });
  }

  function hint() {
    const g = S.game;
    if (!g) return;
    if (g.over) { toast('The game is over.'); return; }
    gameCall('hint', 'POST', '/hint', {}, (d) => {
      if (!d || typeof d.move !== 'string') return;
      const cur = S.game;
      const l = findLegal(cur, d.move);
      const index = l && validIndex(l.index) ? l.index : validIndex(d.index) ? d.index : null;
      S.hint = { key: stateKey(cur), move: d.move, index, decision: d };
      renderOverlay();
      renderDecision();
      toast('Hint: ' + d.move + (num(d.score) ? ' (' + evalText(d, cur.family) + ')' : ''), 'ok');
    }, { user: true, side: g.to_move, spec: (gameEntry(g.game) || {}).hint_agent || 'hint engine', check: () => !!S.game && !S.game.over });
  }

  function analyze() {
    const g = S.game;
    if (!g) return;
    const key = stateKey(g);
    S.analysisTried = key;
    gameCall('analysis', 'GET', '/analysis?time_ms=' + ANALYSIS_MS, undefined, (r) => {
      if (stateKey(S.game) !== key) return;
      const moves = (r && Array.isArray(r.moves) ? r.moves : []).filter((m) => m && typeof m.move === 'string');
      S.analysis = { key, moves };
      renderOverlay();
      renderAnalysisList();
    });
  }

  // The players the spec fields ask for; an empty field means the game's default agent
  // (the same for a new game and for "Apply to this game"). A side is left out only when
  // the catalog names no default agent.
  function playerSpecs(gameId) {
    const e = gameEntry(gameId);
    const dflt = e && typeof e.default_agent === 'string' && e.default_agent.trim() ? e.default_agent.trim() : '';
    const body = {};
    for (const side of SIDES) {
      const v = $(side + '-spec').value.trim() || dflt;
      if (v) body[side] = v;
    }
    return body;
  }

  function newGame() {
    if (!S.catalog) return;
    const body = Object.assign({ game: S.gameId }, playerSpecs(S.gameId));
    showLoadError('');
    resetRunner();
    S.gen++;
    S.paused = false;
    run('new', async (signal, gen) => {
      const st = await api('POST', '/api/games', body, signal);
      if (gen !== S.gen) {
        // Replaced before it was shown: nobody will use it.
        if (st && typeof st.id === 'string') forgetGame(st.id);
        return;
      }
      apply(st);
    }, { user: true });
  }

  function applyPlayers(what) {
    if (!S.game) return;
    const body = playerSpecs(S.game.game);
    gameCall('players', 'POST', '/players', body, (st) => {
      apply(st);
      toast(typeof what === 'string' ? what : 'Players updated.', 'ok');
    }, { user: true });
  }

  // Swap is immediate: the fields swap and the game gets the swapped players at once.
  function swapPlayers() {
    const b = $('black-spec').value;
    $('black-spec').value = $('white-spec').value;
    $('white-spec').value = b;
    SIDES.forEach(syncSelect);
    if (S.game && S.game.game === S.gameId) applyPlayers('Players swapped.');
  }

  // The message shown in place of the board when a game cannot be started (or the catalog
  // cannot be loaded), with Retry; '' hides it. `dismissable`: a game is still there to go
  // back to.
  function showLoadError(msg, dismissable) {
    const box = $('load-error');
    $('load-error-text').textContent = msg || '';
    box.hidden = !msg;
    $('load-error-dismiss').hidden = !(msg && dismissable && S.game);
    if (msg && !S.game) renderStatus();
  }

  function setPosition() {
    const ta = $('position-text');
    const text = ta.value.trim();
    if (!text) { showPositionError('Paste a transcript or a board string first.'); ta.focus(); return; }
    if (!S.game) return;
    showPositionError('');
    gameCall('position', 'POST', '/position', { text }, (st) => {
      apply(st);
      toast('Position set.', 'ok');
    }, { user: true });
  }

  function showPositionError(msg) {
    const el = $('position-error');
    el.textContent = msg || '';
    el.hidden = !msg;
    $('position-text').classList.toggle('invalid', !!msg);
  }

  async function copyText(text, what) {
    if (!text) { toast('Nothing to copy yet.'); return; }
    try {
      if (navigator.clipboard && window.isSecureContext) {
        await navigator.clipboard.writeText(text);
        toast(what + ' copied.', 'ok');
        return;
      }
    } catch (e) { /* fall back below */ }
    const ta = document.createElement('textarea');
    ta.value = text;
    ta.setAttribute('readonly', '');
    ta.style.cssText = 'position:fixed;top:0;left:0;opacity:0;';
    document.body.appendChild(ta);
    ta.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
    ta.remove();
    toast(ok ? what + ' copied.' : 'Copy failed: select the text by hand.', ok ? 'ok' : 'error');
  }

  // ---------------------------------------------------------------- state
  function normalize(st) {
    const g = Object.assign({}, st);
    const arr = (v) => (Array.isArray(v) ? v : []);
    let cells = typeof g.cells === 'string' ? g.cells : '';
    const N = Number.isInteger(g.size) && g.size > 0 ? g.size : Math.round(Math.sqrt(cells.length)) || 8;
    g.size = N;
    if (cells.length < N * N) cells += '-'.repeat(N * N - cells.length);
    g.cells = cells;
    g.family = g.family === 'othello' || g.family === 'gomoku' ? g.family : String(g.game || '').startsWith('othello') ? 'othello' : 'gomoku';
    g.legal = arr(g.legal).filter((l) => l && typeof l.move === 'string');
    g.flipped = arr(g.flipped).filter(Number.isInteger);
    g.winning_line = arr(g.winning_line).filter(Number.isInteger);
    g.forbidden = arr(g.forbidden).filter(Number.isInteger);
    g.moves = arr(g.moves).map(String);
    g.evals = arr(g.evals);
    g.files = arr(g.files).length >= N ? g.files.map(String) : Array.from({ length: N }, (_, i) => String.fromCharCode(97 + i));
    g.ranks = arr(g.ranks).length >= N ? g.ranks.map(String) : Array.from({ length: N }, (_, i) => String(i + 1));
    g.players = Object.assign({ black: 'human', white: 'human' }, g.players || {});
    g.counts = Object.assign({ black: 0, white: 0 }, g.counts || {});
    g.to_move = g.to_move === 'white' ? 'white' : 'black';
    g.over = !!g.over;
    g.human_to_move = !!g.human_to_move && !g.over;
    g.must_pass = !!g.must_pass;
    g.busy = !!g.busy;
    g.last = g.last && typeof g.last === 'object' ? g.last : null;
    g.result = g.result && typeof g.result === 'object' ? g.result : null;
    if (typeof g.transcript !== 'string') g.transcript = g.moves.join(g.family === 'othello' ? '' : ' ');
    if (typeof g.board_string !== 'string') g.board_string = '';
    return g;
  }

  // Takes a state from the server (and the decision that produced it, if any).
  function apply(st, decision) {
    if (!st || typeof st !== 'object' || typeof st.id !== 'string') {
      toast('Unexpected reply from the server.', 'error');
      return;
    }
    const prev = S.game;
    const g = normalize(st);
    const same = !!prev && prev.id === g.id;
    S.game = g;
    S.lost = false;
    if (!same) {
      showLoadError('');
      showPositionError('');
      // A new game replaced the one shown: let the server free the old one.
      if (prev) forgetGame(prev.id);
      S.decision = { black: null, white: null };
      S.lastDecision = null;
      S.analysis = null;
      S.analysisTried = null;
      S.hint = null;
      saveHash(g.id);
      if (g.game !== S.gameId && gameEntry(g.game)) selectGame(g.game, false);
    }
    if (decision && typeof decision === 'object') {
      const side = decision.side === 'white' ? 'white' : 'black';
      S.decision[side] = decision;
      S.lastDecision = decision;
    }
    if (!prev || stateKey(prev) !== stateKey(g)) S.hint = null;
    let anim = null;
    if (same && g.moves.length > prev.moves.length && prev.cells.length === g.cells.length) {
      anim = { placed: new Set(), flipped: new Set() };
      for (let i = 0; i < g.cells.length; i++) {
        const a = stoneAt(prev, i);
        const b = stoneAt(g, i);
        if (b && !a) anim.placed.add(i);
        else if (a && b && a !== b) anim.flipped.add(i);
      }
      if (g.moves.length === prev.moves.length + 1) for (const i of g.flipped) if (stoneAt(g, i)) anim.flipped.add(i);
    }
    render(anim);
  }

  // DELETE a game the page no longer shows. Fire and forget: errors are ignored, but an
  // agent still thinking on it (409) gets a few more tries.
  function forgetGame(id, tries) {
    if (typeof id !== 'string' || !/^[0-9a-f]{32}$/i.test(id)) return;
    tries = tries || 0;
    api('DELETE', '/api/games/' + id).catch((e) => {
      if (e instanceof ApiError && e.status === 409 && tries < 4) setTimeout(() => forgetGame(id, tries + 1), 1000 * (tries + 1));
    });
  }

  function saveHash(id) {
    try { history.replaceState(null, '', '#' + id); } catch (e) { /* file:// or sandbox */ }
  }

  // ---------------------------------------------------------------- rendering
  function render(anim) {
    renderBoard(anim);
    renderStatus();
    renderMoves();
    renderGraph();
    renderAnalysisList();
    renderControls();
    renderThinking();
    renderDecision();
  }

  function renderBusy() {
    renderControls();
    renderThinking();
  }

  const DEFS = '<defs>' +
    '<radialGradient id="st-black" cx="36%" cy="30%" r="75%"><stop offset="0" stop-color="#626870"/><stop offset=".42" stop-color="#1e2126"/><stop offset="1" stop-color="#050607"/></radialGradient>' +
    '<radialGradient id="st-white" cx="36%" cy="30%" r="80%"><stop offset="0" stop-color="#ffffff"/><stop offset=".6" stop-color="#eceef1"/><stop offset="1" stop-color="#b4bac2"/></radialGradient>' +
    '<linearGradient id="felt" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#2c9a63"/><stop offset="1" stop-color="#1d7a4b"/></linearGradient>' +
    '<linearGradient id="wood" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#e8c47e"/><stop offset=".5" stop-color="#ddb46a"/><stop offset="1" stop-color="#cc9d52"/></linearGradient>' +
    '</defs>';

  function stoneSvg(x, y, r, color, cls) {
    let s = '<g class="stone ' + color + (cls || '') + '">' +
      '<circle class="sh" cx="' + r1(x + r * 0.06) + '" cy="' + r1(y + r * 0.1) + '" r="' + r1(r) + '"/>' +
      '<circle cx="' + r1(x) + '" cy="' + r1(y) + '" r="' + r1(r) + '" fill="url(#st-' + color + ')"/>';
    if (cls === ' flip') {
      const was = color === 'black' ? 'white' : 'black';
      s += '<circle class="was" cx="' + r1(x) + '" cy="' + r1(y) + '" r="' + r1(r) + '" fill="url(#st-' + was + ')"/>';
    }
    return s + '</g>';
  }

  function renderBoard(anim) {
    const svg = $('board');
    const g = S.game;
    if (!g) { svg.innerHTML = ''; S.geom = null; return; }
    const N = g.size;
    const oth = g.family === 'othello';
    // The margin holds the coordinates: a little wider on big Gomoku boards, narrower on small
    // Othello boards, whose cells are drawn large (a 4x4 board's margin would be huge).
    const M = Math.round(C * (N >= 13 ? 0.92 : N < 8 ? 0.72 * Math.max(0.5, N / 8) : 0.72));
    const W = N * C + 2 * M;
    const X = (i) => M + (i % N) * C + C / 2;
    const Y = (i) => M + Math.floor(i / N) * C + C / 2;
    S.geom = { N, M, W, X, Y, oth };
    const entry = gameEntry(g.game);
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + W);
    svg.setAttribute('class', 'board ' + (oth ? 'othello' : 'gomoku'));
    svg.setAttribute('aria-label', (entry ? entry.label : g.game) + ' board, ' + N + ' by ' + N +
      (g.human_to_move && !g.must_pass ? ': Tab to a legal move, arrow keys to move around, Enter to play' : ''));
    // Everything but the points is decoration for assistive technology.
    const h = [DEFS, '<g class="deco" aria-hidden="true">'];
    const B = N * C;
    if (oth) {
      h.push('<rect class="frame" width="' + W + '" height="' + W + '" rx="' + C * 0.3 + '"/>');
      h.push('<rect class="felt" x="' + M + '" y="' + M + '" width="' + B + '" height="' + B + '"/>');
      let d = '';
      for (let k = 0; k <= N; k++) {
        const p = M + k * C;
        d += 'M' + p + ' ' + M + 'V' + (M + B) + 'M' + M + ' ' + p + 'H' + (M + B);
      }
      h.push('<path class="grid" d="' + d + '"/>');
      if (N >= 8) {
        for (const a of [2, N - 2]) for (const b of [2, N - 2]) {
          h.push('<circle class="star" cx="' + (M + a * C) + '" cy="' + (M + b * C) + '" r="' + C * 0.075 + '"/>');
        }
      }
    } else {
      h.push('<rect class="wood" width="' + W + '" height="' + W + '" rx="' + C * 0.25 + '"/>');
      const a = M + C / 2;
      const b = M + B - C / 2;
      let d = '';
      for (let k = 1; k < N - 1; k++) {
        const p = M + k * C + C / 2;
        d += 'M' + p + ' ' + a + 'V' + b + 'M' + a + ' ' + p + 'H' + b;
      }
      h.push('<path class="grid" d="' + d + '"/>');
      h.push('<rect class="grid edge" x="' + a + '" y="' + a + '" width="' + (b - a) + '" height="' + (b - a) + '"/>');
      for (const [c, r] of starPoints(N)) {
        h.push('<circle class="star" cx="' + (M + c * C + C / 2) + '" cy="' + (M + r * C + C / 2) + '" r="' + C * 0.1 + '"/>');
      }
    }
    // Coordinates on all four edges; sizeLabels() sizes them from the cell size on screen.
    h.push('<g class="lbls" font-size="' + r1(M * 0.48) + '">');
    for (let k = 0; k < N; k++) {
      const p = M + k * C + C / 2;
      const f = esc(g.files[k]);
      const r = esc(g.ranks[k]);
      h.push('<text class="lbl" x="' + p + '" y="' + M / 2 + '">' + f + '</text>');
      h.push('<text class="lbl" x="' + p + '" y="' + (W - M / 2) + '">' + f + '</text>');
      h.push('<text class="lbl" x="' + M / 2 + '" y="' + p + '">' + r + '</text>');
      h.push('<text class="lbl" x="' + (W - M / 2) + '" y="' + p + '">' + r + '</text>');
    }
    h.push('</g>');
    // Stones.
    const rad = oth ? C * 0.42 : C * 0.47;
    h.push('<g class="stones">');
    for (let i = 0; i < N * N; i++) {
      const col = stoneAt(g, i);
      if (!col) continue;
      let cls = '';
      if (anim) cls = anim.placed.has(i) ? ' pop' : anim.flipped.has(i) ? ' flip' : '';
      h.push(stoneSvg(X(i), Y(i), rad, col, cls));
    }
    h.push('</g><g class="marks">');
    // Winning line.
    const wl = g.winning_line.filter(validIndex);
    if (wl.length >= 2) {
      const pts = wl.slice().sort((p, q) => Math.floor(p / N) - Math.floor(q / N) || (p % N) - (q % N));
      const a = pts[0];
      const b = pts[pts.length - 1];
      h.push('<line class="win-line" x1="' + X(a) + '" y1="' + Y(a) + '" x2="' + X(b) + '" y2="' + Y(b) + '" stroke-width="' + C * 0.16 + '"/>');
    }
    for (const i of wl) h.push('<circle class="win-ring" cx="' + X(i) + '" cy="' + Y(i) + '" r="' + r1(rad + 1) + '"/>');
    // Last move.
    const last = g.last;
    if (last && !last.pass && validIndex(last.index)) {
      h.push('<circle class="last-mark" cx="' + X(last.index) + '" cy="' + Y(last.index) + '" r="' + C * 0.1 + '"/>');
    }
    // Renju: points black may not play.
    const s = C * 0.13;
    for (const i of g.forbidden) {
      if (!validIndex(i) || stoneAt(g, i)) continue;
      const x = X(i);
      const y = Y(i);
      h.push('<path class="forbid" d="M' + (x - s) + ' ' + (y - s) + 'L' + (x + s) + ' ' + (y + s) + 'M' + (x + s) + ' ' + (y - s) + 'L' + (x - s) + ' ' + (y + s) + '"/>');
    }
    h.push('</g><g id="overlay" class="overlay"></g></g>');
    // Click targets on top: one per point, with stable data-index (display index).
    const legalAt = new Map();
    for (const l of g.legal) if (validIndex(l.index)) legalAt.set(l.index, l.move);
    const forb = new Set(g.forbidden);
    const playable = g.human_to_move && !g.must_pass;
    h.push('<g class="hits">');
    for (let i = 0; i < N * N; i++) {
      const mv = legalAt.get(i);
      const st = stoneAt(g, i);
      const can = playable && mv !== undefined;
      const name = coordName(g, i);
      let title = name;
      let what = 'empty';
      if (st) { title += ': ' + st; what = st + ' stone'; }
      else if (forb.has(i)) { title += ': forbidden for Black'; what = 'forbidden for Black'; }
      else if (can) { title += ': play here'; what = 'legal move'; }
      // Focusable buttons: in the Tab order only where a human may play now.
      h.push('<g class="pt' + (can ? ' legal' : '') + '" data-index="' + i + '"' +
        (mv !== undefined ? ' data-move="' + esc(mv) + '"' : '') + ' data-stone="' + (st || 'empty') + '"' +
        ' role="button" tabindex="' + (can ? '0' : '-1') + '" aria-label="' + esc(name + ', ' + what) + '"' +
        (can ? '' : ' aria-disabled="true"') + '>' +
        '<rect x="' + (X(i) - C / 2) + '" y="' + (Y(i) - C / 2) + '" width="' + C + '" height="' + C + '"/>' +
        (can ? '<circle class="ghost" cx="' + X(i) + '" cy="' + Y(i) + '" r="' + r1(rad) + '" fill="url(#st-' + g.to_move + ')"/>' : '') +
        '<title>' + esc(title) + '</title></g>');
    }
    h.push('</g>');
    // Keep the keyboard focus on the same point across redraws.
    const act = document.activeElement;
    const focusedAt = act && act !== svg && svg.contains(act) && act.getAttribute ? act.getAttribute('data-index') : null;
    svg.innerHTML = h.join('');
    sizeLabels();
    if (focusedAt !== null) focusPoint(Number(focusedAt));
    renderOverlay();
  }

  // Coordinate labels: about a third of a cell on screen, between 9 and 15 CSS pixels
  // whatever the board size (a 4x4 board's cells are large: its labels stay modest), and
  // never wider than the margin they sit in.
  function sizeLabels() {
    const svg = $('board');
    const gr = svg.querySelector('.lbls');
    if (!gr || !S.geom) return;
    const px = svg.getBoundingClientRect().width;
    if (!(px > 0)) return;
    const scale = px / S.geom.W; // CSS pixels per board unit
    const want = Math.max(9, Math.min(15, C * scale * 0.3));
    const units = Math.min(want / scale, S.geom.M * 0.62);
    gr.setAttribute('font-size', String(r1(units * 10) / 10));
  }

  function focusPoint(i) {
    const el = validIndex(i) ? $('board').querySelector('.pt[data-index="' + i + '"]') : null;
    if (!el || typeof el.focus !== 'function') return;
    try { el.focus({ preventScroll: true }); } catch (e) { el.focus(); }
  }

  function starPoints(N) {
    if (N < 9) return [];
    const e = N >= 13 ? 3 : 2;
    const mid = (N - 1) / 2;
    const lines = N >= 17 ? [e, mid, N - 1 - e] : [e, N - 1 - e];
    const pts = [];
    for (const c of lines) for (const r of lines) pts.push([c, r]);
    if (N % 2 === 1 && N < 17) pts.push([mid, mid]);
    return pts.filter(([c, r]) => Number.isInteger(c) && Number.isInteger(r));
  }

  function currentAnalysis() {
    const g = S.game;
    return S.showEvals && g && S.analysis && S.analysis.key === stateKey(g) ? S.analysis.moves : null;
  }

  // Overlay: legal-move dots, engine scores, hint ring. Redrawn without touching the stones.
  function renderOverlay() {
    const ov = document.getElementById('overlay');
    const g = S.game;
    if (!ov || !g || !S.geom) return;
    const { X, Y, oth } = S.geom;
    const h = [];
    const an = currentAnalysis();
    const scored = new Map();
    if (an) {
      for (const m of an) {
        let i = m.index;
        if (!validIndex(i)) { const l = findLegal(g, m.move); i = l ? l.index : null; }
        if (validIndex(i) && num(m.score)) scored.set(i, m);
      }
    }
    if (oth && g.human_to_move) {
      for (const l of g.legal) {
        if (validIndex(l.index) && !scored.has(l.index)) {
          h.push('<circle class="legal-dot ' + g.to_move + '" cx="' + X(l.index) + '" cy="' + Y(l.index) + '" r="' + r1(C * 0.13) + '"/>');
        }
      }
    }
    if (scored.size) {
      let best = -Infinity;
      for (const m of scored.values()) best = Math.max(best, m.score);
      if (oth) {
        for (const [i, m] of scored) {
          const cls = 'ev' + (m.exact ? ' exact' : '') + (m.score === best ? ' best' : '');
          h.push('<text class="' + cls + '" x="' + X(i) + '" y="' + Y(i) + '">' + esc(fmtScore(m.score)) + '</text>');
        }
      } else {
        const top = Array.from(scored).sort((a, b) => b[1].score - a[1].score).slice(0, 9);
        top.forEach(([i, m], k) => {
          h.push('<g><circle class="top' + (k === 0 ? ' best' : '') + '" cx="' + X(i) + '" cy="' + Y(i) + '" r="' + C * 0.3 + '"/>' +
            '<text class="top-n" x="' + X(i) + '" y="' + Y(i) + '">' + (k + 1) + '</text></g>');
        });
      }
    }
    const hi = S.hint;
    if (hi && hi.key === stateKey(g) && validIndex(hi.index)) {
      h.push('<circle class="hint-ring" cx="' + X(hi.index) + '" cy="' + Y(hi.index) + '" r="' + C * 0.4 + '"/>');
    }
    ov.innerHTML = h.join('');
  }

  function playerLabel(spec) {
    return isHuman(spec) ? 'Human' : String(spec || '');
  }

  function renderStatus() {
    const g = S.game;
    const turn = $('turn');
    if (!g) {
      turn.textContent = $('load-error').hidden ? 'Loading…' : 'No game';
      return;
    }
    // The result takes the turn line's place (same height: nothing below moves).
    turn.hidden = g.over;
    if (!g.over) {
      const spec = g.players[g.to_move];
      const who = isHuman(spec) ? (bothHumans(g) ? 'Human' : 'your move') : specName(spec);
      turn.innerHTML = '<span class="disc ' + g.to_move + '" aria-hidden="true"></span><span class="turn-text">' +
        cap(g.to_move) + ' to move</span><span class="who">' + esc(who) + '</span>';
    } else {
      turn.textContent = '';
    }
    for (const side of SIDES) {
      const spec = g.players[side];
      const human = isHuman(spec);
      $('count-' + side).textContent = String(num(g.counts[side]) ? g.counts[side] : 0);
      // Who plays the side, on every screen: "Human" or "AI" (with the agent where it fits).
      $('who-' + side).innerHTML = '<span class="role ' + (human ? 'human' : 'ai') + '">' + (human ? 'Human' : 'AI') + '</span>' +
        (human ? '' : '<span class="name">' + esc(specName(spec)) + '</span>');
      $('chip-' + side).title = cap(side) + ': ' + playerLabel(spec) + (human ? '' : ' (AI)');
      $('chip-' + side).classList.toggle('to-move', !g.over && g.to_move === side);
      // A pass leaves no stone to mark: the side that passed says so on its chip.
      $('pass-' + side).hidden = !(g.last && g.last.pass && g.last.color === side);
    }
    const banner = $('banner');
    const resultText = g.over ? (g.result && g.result.text) || 'Game over.' : '';
    const note = g.over ? resultNote(g) : '';
    banner.hidden = !g.over;
    banner.textContent = resultText;
    banner.title = note ? resultText + ' ' + note : resultText;
    const winner = g.result ? g.result.winner : null;
    banner.className = 'banner' + (g.over ? (winner === 'white' ? ' white-wins' : winner === 'black' ? ' black-wins' : ' draw') : '');
    const rn = $('result-note');
    rn.textContent = note;
    rn.hidden = !note;
    const parts = [];
    if (g.notice) parts.push(String(g.notice));
    if (g.must_pass && g.human_to_move) parts.push(cap(g.to_move) + ' has no legal move: press Pass.');
    const notice = $('notice');
    notice.textContent = parts.join(' ');
    notice.hidden = !parts.length;
    document.title = 'stonelab · ' + (g.over ? resultText : cap(g.to_move) + ' to move');
  }

  // Othello: a game that ends with empty squares gives them to the winner (split on a draw),
  // so the result differs from the discs on the board: say why.
  function resultNote(g) {
    if (g.family !== 'othello' || !g.over) return '';
    const b = num(g.counts.black) ? g.counts.black : 0;
    const w = num(g.counts.white) ? g.counts.white : 0;
    const empty = g.size * g.size - b - w;
    if (empty <= 0) return '';
    const sq = empty === 1 ? '1 empty square' : empty + ' empty squares';
    const winner = g.result ? g.result.winner : null;
    if (winner === 'black' || winner === 'white') {
      const has = winner === 'black' ? b : w;
      return '(' + sq + (empty === 1 ? ' goes' : ' go') + ' to the winner: ' + cap(winner) + ' ' + has + ' + ' + empty + ' = ' + (has + empty) + ')';
    }
    return '(' + sq + (empty === 1 ? ' is' : ' are') + ' split between the players)';
  }

  function bothHumans(g) {
    return SIDES.every((s) => isHuman(g.players[s]));
  }

  function renderMoves() {
    const g = S.game;
    const ol = $('moves');
    const n = g ? g.moves.length : 0;
    if (!n) { ol.innerHTML = '<li class="empty">No moves yet.</li>'; return; }
    // Colours alternate (passes are moves); anchor on the colour of the last move.
    const lastColor = g.last && (g.last.color === 'white' || g.last.color === 'black') ? g.last.color : n % 2 ? 'black' : 'white';
    const colorOf = (i) => ((n - 1 - i) % 2 === 0 ? lastColor : lastColor === 'black' ? 'white' : 'black');
    const offset = colorOf(0) === 'white' ? 1 : 0;
    const cell = (p) => {
      if (p < 0 || p >= n) return '<span class="mv"></span>';
      const m = g.moves[p];
      const ev = g.evals[p];
      const cls = 'mv' + (p === n - 1 ? ' current' : '') + (m.toLowerCase() === 'pass' ? ' pass' : '');
      const et = g.eval_texts && typeof g.eval_texts[p] === 'string' ? g.eval_texts[p] : '';
      const text = num(ev) ? povText(ev, et, g.family) : et ? 'Black ' + et : '';
      const title = cap(colorOf(p)) + ' ' + m + (text ? ', eval: ' + text : '');
      return '<span class="' + cls + '" data-ply="' + p + '" title="' + esc(title) + '"' + (p === n - 1 ? ' aria-current="true"' : '') + '>' + esc(m) + '</span>';
    };
    const rows = [];
    for (let r = 0; 2 * r - offset < n; r++) {
      const b = 2 * r - offset;
      rows.push('<li><span class="num">' + (r + 1) + '.</span>' + cell(b) + cell(b + 1) + '</li>');
    }
    ol.innerHTML = rows.join('');
    const box = $('moves-scroll');
    box.scrollTop = box.scrollHeight;
  }

  function renderGraph() {
    const svg = $('eval-graph');
    const g = S.game;
    // Drawn in CSS pixels (viewBox = the element's size), so text and dots never stretch.
    const W = Math.max(120, Math.round(svg.clientWidth || 320));
    const H = Math.max(60, Math.round(svg.clientHeight || 96));
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    const P = 5;
    const mid = H / 2;
    const ev = g ? g.evals : [];
    const texts = g && Array.isArray(g.eval_texts) ? g.eval_texts : [];
    const n = Math.max(ev.length, g ? g.moves.length : 0);
    const h = ['<rect class="g-top" x="0" y="0" width="' + W + '" height="' + mid + '"/>',
      '<rect class="g-bot" x="0" y="' + mid + '" width="' + W + '" height="' + mid + '"/>',
      '<line class="g-zero" x1="0" y1="' + mid + '" x2="' + W + '" y2="' + mid + '"/>'];
    const vals = ev.filter(num);
    if (!vals.length) {
      // "Nothing yet" only when the page shows no evaluation at all (the engine's candidate
      // moves listed below are evaluations too).
      const an = currentAnalysis();
      if (!(an && an.some((m) => num(m.score)))) {
        h.push('<text class="g-empty" x="' + W / 2 + '" y="' + (mid - 8) + '" text-anchor="middle">No evaluations yet</text>');
      }
      svg.innerHTML = h.join('');
      return;
    }
    // The scale: the largest unproven value (proven results, mate distances included, sit on
    // the edges and never set the scale: no "+999999").
    let m = 0;
    for (const v of vals) if (!isProven(v)) m = Math.max(m, Math.abs(v));
    if (m === 0) m = g.family === 'othello' ? 100 : 1;
    const scale = m * 1.1;
    const x = (i) => (n <= 1 ? W / 2 : P + (i * (W - 2 * P)) / (n - 1));
    const y = (v) => {
      // Proven results sit on the edges (a proven draw on the zero line).
      const t = isProven(v) ? (Math.abs(v) >= WIN && Math.round(Math.abs(v) - WIN) === 0 ? 0 : Math.sign(v)) : Math.max(-1, Math.min(1, v / scale));
      return mid - t * (mid - P);
    };
    let line = '';
    let area = '';
    let seg = [];
    const flush = () => {
      if (!seg.length) return;
      const pts = seg.map((p) => p[0] + ' ' + p[1]).join('L');
      line += 'M' + pts;
      area += 'M' + seg[0][0] + ' ' + mid + 'L' + pts + 'L' + seg[seg.length - 1][0] + ' ' + mid + 'Z';
      seg = [];
    };
    const dots = [];
    let last = -1;
    for (let i = 0; i < ev.length; i++) {
      const v = ev[i];
      if (!num(v)) { flush(); continue; }
      last = i;
      const px = r1(x(i));
      const py = r1(y(v));
      seg.push([px, py]);
      dots.push('<circle class="g-dot" cx="' + px + '" cy="' + py + '" r="' + (ev.length > 80 ? 1.2 : 2) + '"><title>' +
        (i + 1) + '. ' + esc(g.moves[i] || '') + ': ' + esc(povText(v, texts[i], g.family)) + '</title></circle>');
    }
    flush();
    h.push('<path class="g-area" d="' + area + '"/>', '<path class="g-line" d="' + line + '"/>');
    if (n > 0) h.push('<line class="g-cur" x1="' + r1(x(n - 1)) + '" y1="0" x2="' + r1(x(n - 1)) + '" y2="' + H + '"/>');
    h.push(dots.join(''));
    const top = fmtEval(m, g.family);
    h.push('<text x="4" y="11">Black ' + esc(top) + '</text>', '<text x="4" y="' + (H - 4) + '">White ' + esc(top) + '</text>');
    // The latest evaluation in words ("White wins in 1", "Black +1.20").
    if (last >= 0) {
      h.push('<text class="g-last" x="' + (W - 4) + '" y="11" text-anchor="end">' + esc((last + 1) + '. ' + povText(ev[last], texts[last], g.family)) + '</text>');
    }
    svg.innerHTML = h.join('');
  }

  function renderAnalysisList() {
    const el = $('analysis-list');
    const an = currentAnalysis();
    if (!an || !an.length) { el.innerHTML = ''; el.hidden = true; renderGraph(); return; }
    const list = an.filter((m) => num(m.score)).sort((a, b) => b.score - a.score).slice(0, 10);
    el.hidden = !list.length;
    el.innerHTML = list.map((m, k) => '<li><button type="button" class="' + (k === 0 ? 'best' : '') + '" data-play="' + esc(m.move) +
      '" title="Play ' + esc(m.move) + (num(m.score) ? ': ' + esc(evalText(m, curFamily())) : '') + (m.exact ? ' (exact score)' : (num(m.depth) ? ' (searched ' + m.depth + ' plies)' : '')) + '">' + esc(m.move) +
      '<span class="sc' + (m.exact ? ' exact' : '') + '">' + esc(fmtScore(m.score)) + '</span></button></li>').join('');
    // The graph's "No evaluations yet" depends on this list.
    renderGraph();
  }

  function renderControls() {
    const g = S.game;
    const idle = !S.inflight;
    $('undo').disabled = !g || !g.moves.length;
    $('hint').disabled = !g || g.over;
    $('pass').hidden = !(g && g.must_pass && g.human_to_move);
    const pause = $('pause');
    pause.textContent = S.paused ? 'Resume' : 'Pause';
    pause.setAttribute('aria-pressed', S.paused ? 'true' : 'false');
    pause.setAttribute('aria-label', S.paused ? 'Resume agent play' : 'Pause agent play');
    // Pause and Step only mean something when an agent plays a side.
    const noAgent = !!g && bothHumans(g);
    pause.hidden = noAgent;
    $('step').hidden = noAgent;
    $('step').disabled = !(S.paused && idle && agentToMove(g));
    // Paused agent play is a state of the game, not just a button label: say so in the
    // status line while an agent has a side and the game goes on.
    $('paused').hidden = !(S.paused && g && !g.over && !noAgent);
    $('copy').disabled = !g || !g.transcript;
    $('copy-board').disabled = !g || !g.board_string;
    $('set-position').disabled = !g;
    $('apply-players').disabled = !g;
    $('move-input').placeholder = g && g.family === 'gomoku' ? 'h8' : 'd3';
    document.body.classList.toggle('busy', !idle);
  }

  function renderThinking() {
    const el = $('thinking');
    const f = S.inflight;
    const g = S.game;
    let text = '';
    if (f && f.kind === 'agent') {
      text = cap(f.side) + ' (' + specName(f.spec) + ') is thinking…';
    } else if (f && f.kind === 'hint') {
      text = 'Hint: ' + specName(f.spec) + ' is thinking…';
    } else if (g && g.busy && !g.over) {
      const spec = g.players[g.to_move];
      text = isHuman(spec) ? 'The engine is thinking…' : cap(g.to_move) + ' (' + specName(spec) + ') is thinking…';
    }
    el.hidden = !text;
    $('thinking-text').textContent = text;
    // Only "thinking…": the evaluation and PV appear with the decision once it arrives (a
    // side's previous decision is not the current evaluation).
    $('thinking-eval').textContent = '';
  }

  // An "i" in a circle, drawn (the ⓘ character is an empty box in many fonts).
  const INFO_ICON = '<span class="info" role="img" aria-label="Scores are from the mover\'s point of view" title="Scores are from the mover\'s point of view">' +
    '<svg class="icon" viewBox="0 0 16 16" aria-hidden="true"><circle cx="8" cy="8" r="6.5"/><path d="M8 7.2v4.3"/><circle class="dot" cx="8" cy="4.7" r=".95"/></svg></span>';

  function decisionBits(d, short) {
    const bits = [];
    if (num(d.score)) bits.push('eval ' + evalText(d, curFamily()));
    if (num(d.depth)) bits.push('depth ' + d.depth);
    if (!short && num(d.nodes)) bits.push(fmtCount(d.nodes) + ' nodes');
    if (!short && num(d.time_ms)) bits.push(d.time_ms + ' ms');
    if (Array.isArray(d.pv) && d.pv.length) bits.push('pv ' + d.pv.slice(0, short ? 6 : 12).join(' '));
    return bits.join(' · ');
  }

  function renderDecision() {
    const el = $('decision');
    const g = S.game;
    const hi = S.hint;
    let html = '';
    if (hi && g && hi.key === stateKey(g)) {
      const bits = decisionBits(hi.decision, false);
      html = '<b>Hint: ' + esc(hi.move) + '</b>' + (bits ? ' · ' + esc(bits) : '');
    } else if (S.lastDecision) {
      const d = S.lastDecision;
      const bits = decisionBits(d, false);
      html = '<b>' + esc(cap(d.side === 'white' ? 'white' : 'black')) + ' ' + esc(d.move || '') + '</b> (' + esc(d.agent || '') + ')' +
        (bits ? ' · ' + esc(bits) : '') + (num(d.score) ? ' ' + INFO_ICON : '');
    }
    el.innerHTML = html;
    el.hidden = !html;
  }

  // ---------------------------------------------------------------- players panel
  function agentsFor() {
    return S.agents[S.gameId] || [];
  }

  async function loadAgents(id) {
    if (S.agents[id]) return S.agents[id];
    try {
      const r = await api('GET', '/api/agents?game=' + encodeURIComponent(id));
      const list = (r && Array.isArray(r.agents) ? r.agents : []).filter((a) => a && typeof a.name === 'string');
      for (const a of list) a.keys = Array.isArray(a.keys) ? a.keys.filter((k) => k && typeof k.key === 'string') : [];
      S.agents[id] = list;
      return list;
    } catch (e) {
      toast('Could not load the agents: ' + e.message, 'error');
      return [];
    }
  }

  // Shows game `id` in the select and fills the player selects; resetSpecs puts the defaults
  // (Black human, White the game's default agent) into the spec fields.
  async function selectGame(id, resetSpecs) {
    const seq = ++S.selSeq;
    S.gameId = id;
    $('game-select').value = id;
    await loadAgents(id);
    if (seq !== S.selSeq) return false;
    if (resetSpecs) {
      const e = gameEntry(id);
      $('black-spec').value = 'human';
      $('white-spec').value = (e && e.default_agent) || 'human';
    }
    fillAgentSelects();
    return true;
  }

  // Trained models: the catalog lists them by name with the game they play, their agent and
  // the spec that plays them (`dqn:model=othello8-dqn`). Only the current game's are offered.
  function modelsFor(gameId, algo) {
    const list = S.catalog && Array.isArray(S.catalog.models) ? S.catalog.models : [];
    return list.filter((m) => m && typeof m === 'object' && typeof m.name === 'string' && m.game === gameId &&
      (!algo || String(m.algo || '').toLowerCase() === algo.toLowerCase()));
  }
  function modelSpec(m) {
    return typeof m.spec === 'string' && m.spec ? m.spec : m.algo + ':model=' + m.name;
  }
  function takesModel(a) {
    return !!a && a.keys.some((k) => k.key === 'model');
  }
  // The `key=value` settings of a spec.
  function specParams(spec) {
    const out = {};
    const str = String(spec || '');
    const at = str.indexOf(':');
    if (at < 0) return out;
    for (const kv of str.slice(at + 1).split(',')) {
      const eq = kv.indexOf('=');
      if (eq > 0) out[kv.slice(0, eq).trim().toLowerCase()] = kv.slice(eq + 1).trim();
    }
    return out;
  }
  // The model a spec names, among the current game's models of its agent.
  function modelOfSpec(spec) {
    const name = specParams(spec).model;
    return name ? modelsFor(S.gameId, specName(spec)).find((m) => m.name === name) || null : null;
  }

  // The agent menus: Human, every agent, and one entry per trained model of this game for
  // the agents that play one ("dqn · othello8-dqn", which fills in `dqn:model=othello8-dqn`).
  // Such an agent without a model for this game is listed, but cannot be chosen.
  function fillAgentSelects() {
    const agents = agentsFor();
    const opts = ['<option value="human">Human</option>'];
    for (const a of agents) {
      const about = esc(a.about || '');
      if (takesModel(a)) {
        const ms = modelsFor(S.gameId, a.name);
        if (!ms.length) {
          opts.push('<option value="' + esc(a.name) + '" disabled title="' + about + '">' + esc(a.name) + ' (no trained model for this game)</option>');
        }
        for (const m of ms) {
          opts.push('<option value="' + esc(modelSpec(m)) + '" data-model="' + esc(m.name) + '" title="' + about + '">' + esc(a.name + ' · ' + m.name) + '</option>');
        }
      } else {
        opts.push('<option value="' + esc(a.name) + '" title="' + about + '">' + esc(a.name) + '</option>');
      }
    }
    opts.push('<option value="__custom" hidden>Custom spec</option>');
    for (const side of SIDES) {
      $(side + '-agent').innerHTML = opts.join('');
      syncSelect(side);
    }
  }

  function syncSelect(side) {
    const sel = $(side + '-agent');
    const field = $(side + '-spec');
    const spec = field.value.trim();
    const name = specName(spec);
    const a = agentsFor().find((x) => x.name.toLowerCase() === name);
    let v = '__custom';
    if (isHuman(spec)) v = 'human';
    else if (a && takesModel(a)) {
      const m = modelOfSpec(spec);
      if (m) v = modelSpec(m);
    } else if (a) v = a.name;
    else if (!spec) {
      const e = gameEntry(S.gameId);
      const d = agentsFor().find((x) => x.name.toLowerCase() === specName(e && e.default_agent));
      if (d) v = d.name;
    }
    sel.value = v;
    if (sel.value !== v) sel.value = '__custom';
    renderSpecHint(side, a);
  }

  function renderSpecHint(side, a) {
    const el = $(side + '-spec-hint');
    const field = $(side + '-spec');
    const spec = field.value.trim();
    field.classList.remove('invalid');
    if (!spec) {
      const e = gameEntry(S.gameId);
      el.textContent = 'Empty: the game\'s default agent (' + ((e && e.default_agent) || '?') + ').';
      field.title = '';
      return;
    }
    if (isHuman(spec)) {
      el.textContent = 'You play this side by clicking the board.';
      field.title = 'human';
      return;
    }
    if (!a) {
      el.innerHTML = '<span class="warn">Unknown agent “' + esc(specName(spec)) + '”.</span> Pick one from the list.';
      field.classList.add('invalid');
      field.title = '';
      return;
    }
    let html = esc(a.about || '');
    if (takesModel(a)) {
      // The models are choices, not text: each fills in its spec.
      const ms = modelsFor(S.gameId, a.name);
      const entry = gameEntry(S.gameId);
      const game = (entry && entry.label) || S.gameId;
      const named = specParams(spec).model;
      const chosen = modelOfSpec(spec);
      if (!ms.length) {
        html = '<span class="warn">' + esc(a.name) + ' plays a trained model, and this server has none for ' + esc(game) + '.</span> ' + html;
        field.classList.add('invalid');
      } else {
        if (!chosen) {
          html = '<span class="warn">' + (named ? 'No model “' + esc(named) + '” for ' + esc(game) + '.' : esc(a.name) + ' needs a model.') +
            '</span> ' + html;
          field.classList.add('invalid');
        }
        html += '<br>' + (chosen ? 'Models' : 'Choose a model') + ': ' + ms.map((m) => '<button type="button" class="model-pick' + (chosen === m ? ' chosen' : '') + '" data-spec="' +
          esc(modelSpec(m)) + '" title="Use ' + esc(modelSpec(m)) + '">' + esc(m.name) + '</button>').join(' ');
      }
    }
    const keys = a.keys.filter((k) => k.key !== 'model');
    if (keys.length) {
      const eg = takesModel(a) ? '' : ' <span class="muted">e.g. <code>' + esc(a.name + ':' + keys[0].key + '=…') + '</code></span>';
      html += (html ? '<br>' : '') + 'Keys: ' + keys.map((k) => '<code title="' + esc(k.about || '') + '">' + esc(k.key) + '</code>').join(' ') + eg;
    }
    el.innerHTML = html;
    field.title = a.name + (a.about ? ': ' + a.about : '') + a.keys.map((k) => '\n' + k.key + ': ' + (k.about || '')).join('');
  }

  // ---------------------------------------------------------------- events
  function onBoardClick(ev) {
    const t = ev.target && ev.target.closest ? ev.target.closest('[data-index]') : null;
    playPoint(t);
  }

  // Plays the point element `t` (a click, or Enter/Space on a focused point).
  function playPoint(t) {
    const g = S.game;
    if (!t || !g) return;
    const i = Number(t.getAttribute('data-index'));
    if (!validIndex(i)) return;
    const name = coordName(g, i);
    if (S.inflight && S.inflight.kind === 'new') return;
    if (g.over) { toast('The game is over: start a new game.'); return; }
    if (!g.human_to_move) {
      toast('Not your turn: ' + cap(g.to_move) + ' (' + specName(g.players[g.to_move]) + ') is to move.');
      return;
    }
    if (g.must_pass) { toast(cap(g.to_move) + ' has no legal move: press Pass.'); return; }
    const mv = t.getAttribute('data-move');
    if (!mv || !findLegal(g, mv)) {
      const why = stoneAt(g, i) ? 'occupied' : g.forbidden.includes(i) ? 'forbidden for Black (renju)' : 'not a legal move';
      toast(name + ': ' + why + '.', 'error', 2500);
      return;
    }
    play(mv);
  }

  // Keyboard on the board: Enter/Space plays the focused point, arrows (Home/End, PageUp/
  // PageDown for the first/last row) move the focus between points.
  function onBoardKey(e) {
    const t = e.target && e.target.closest ? e.target.closest('.pt[data-index]') : null;
    const g = S.game;
    if (!t || !g || !S.geom || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === 'Enter' || e.key === ' ' || e.key === 'Spacebar') {
      e.preventDefault();
      if (!e.repeat) playPoint(t);
      return;
    }
    const N = S.geom.N;
    const i = Number(t.getAttribute('data-index'));
    if (!validIndex(i)) return;
    let r = Math.floor(i / N);
    let c = i % N;
    switch (e.key) {
      case 'ArrowLeft': c--; break;
      case 'ArrowRight': c++; break;
      case 'ArrowUp': r--; break;
      case 'ArrowDown': r++; break;
      case 'Home': c = 0; break;
      case 'End': c = N - 1; break;
      case 'PageUp': r = 0; break;
      case 'PageDown': r = N - 1; break;
      default: return;
    }
    e.preventDefault();
    r = Math.max(0, Math.min(N - 1, r));
    c = Math.max(0, Math.min(N - 1, c));
    focusPoint(r * N + c);
  }

  // The display index of a typed point name ("d3", "H8"), or null when it is not on the board.
  function indexOfName(g, text) {
    const t = String(text || '').trim().toLowerCase();
    const N = g.size;
    for (let c = 0; c < N; c++) {
      const f = String(g.files[c] || '').toLowerCase();
      if (!f || !t.startsWith(f)) continue;
      const rest = t.slice(f.length);
      for (let r = 0; r < N; r++) if (String(g.ranks[r] || '').toLowerCase() === rest) return r * N + c;
    }
    return null;
  }

  // The move typed in #move-input, checked against the legal moves before it is sent.
  function playTyped() {
    const inp = $('move-input');
    const text = inp.value.trim();
    const g = S.game;
    const bad = (msg) => {
      inp.classList.add('invalid');
      toast(msg, 'error', 4000);
      inp.focus();
      inp.select();
    };
    if (!g) { toast('No game yet.'); return; }
    const example = g.legal.length ? g.legal[0].move : g.family === 'othello' ? 'd3' : 'h8';
    if (!text) { bad('Type a move first, e.g. ' + example + '.'); return; }
    if (g.over) { bad('The game is over: start a new game.'); return; }
    if (!g.human_to_move) {
      bad('Not your turn: ' + cap(g.to_move) + ' (' + specName(g.players[g.to_move]) + ') is to move.');
      return;
    }
    const l = findLegal(g, text);
    if (!l) {
      let why;
      if (text.toLowerCase() === 'pass') {
        why = g.family === 'othello' ? '“pass” is not legal: ' + cap(g.to_move) + ' has a move.' : '“pass” is not a move in this game.';
      } else {
        const i = indexOfName(g, text);
        // Ranks are listed top to bottom: the bottom one is the lowest.
        const range = 'columns ' + g.files[0] + '–' + g.files[g.size - 1] + ', rows ' + g.ranks[g.size - 1] + '–' + g.ranks[0];
        if (i === null) why = '“' + text + '” is not a point on this board (' + range + ').';
        else if (stoneAt(g, i)) why = coordName(g, i) + ' is not legal: occupied.';
        else if (g.forbidden.includes(i)) why = coordName(g, i) + ' is not legal: forbidden for Black (renju).';
        else why = coordName(g, i) + ' is not a legal move.';
      }
      if (g.must_pass) why += ' ' + cap(g.to_move) + ' has no move: type pass.';
      bad(why);
      return;
    }
    inp.value = '';
    inp.classList.remove('invalid');
    play(l.move);
  }

  function togglePause() {
    S.paused = !S.paused;
    renderControls();
    if (!S.inflight) schedule();
  }

  function bind() {
    $('board').addEventListener('click', onBoardClick);
    $('board').addEventListener('keydown', onBoardKey);
    $('move-form').addEventListener('submit', (e) => { e.preventDefault(); playTyped(); });
    $('move-input').addEventListener('input', () => $('move-input').classList.remove('invalid'));
    $('game-select').addEventListener('change', async () => {
      if (await selectGame($('game-select').value, true)) newGame();
    });
    $('new-game').addEventListener('click', newGame);
    for (const side of SIDES) {
      $(side + '-agent').addEventListener('change', () => {
        const v = $(side + '-agent').value;
        if (v === '__custom') return;
        $(side + '-spec').value = v === 'human' ? 'human' : v;
        syncSelect(side);
      });
      // A model named in the hint: fills in its spec.
      $(side + '-spec-hint').addEventListener('click', (e) => {
        const b = e.target && e.target.closest ? e.target.closest('[data-spec]') : null;
        if (!b) return;
        $(side + '-spec').value = b.getAttribute('data-spec');
        syncSelect(side);
        $(side + '-spec').focus();
      });
      $(side + '-spec').addEventListener('input', () => syncSelect(side));
      // Enter applies the players to the current game (never discards it for a new one).
      $(side + '-spec').addEventListener('keydown', (e) => {
        if (e.key === 'Enter' && !e.isComposing) { e.preventDefault(); applyPlayers(); }
      });
    }
    $('apply-players').addEventListener('click', () => applyPlayers());
    $('swap-players').addEventListener('click', swapPlayers);
    $('retry').addEventListener('click', () => {
      if (S.catalog) newGame();
      else { showLoadError(''); start(); }
    });
    $('load-error-dismiss').addEventListener('click', async () => {
      showLoadError('');
      if (S.game && S.game.game !== S.gameId && gameEntry(S.game.game)) {
        await selectGame(S.game.game, false);
      }
    });
    $('undo').addEventListener('click', undo);
    $('hint').addEventListener('click', hint);
    $('pass').addEventListener('click', () => {
      const g = S.game;
      if (g && g.must_pass && g.human_to_move) play('pass');
    });
    $('pause').addEventListener('click', togglePause);
    $('step').addEventListener('click', () => {
      if (S.paused && agentToMove(S.game)) agentMove(true);
    });
    $('speed').addEventListener('input', () => {
      S.speed = Number($('speed').value) || 0;
      $('speed-value').textContent = S.speed + ' ms';
      store('speed', S.speed);
      if (!S.inflight && agentToMove(S.game)) schedule();
    });
    $('copy').addEventListener('click', () => copyText(S.game && S.game.transcript, 'Transcript'));
    $('copy-board').addEventListener('click', () => copyText(S.game && S.game.board_string, 'Board string'));
    $('set-position').addEventListener('click', setPosition);
    $('position-text').addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); setPosition(); }
    });
    $('position-text').addEventListener('input', () => { if (!$('position-error').hidden) showPositionError(''); });
    $('show-evals').addEventListener('change', () => {
      S.showEvals = $('show-evals').checked;
      store('showEvals', S.showEvals);
      renderOverlay();
      renderAnalysisList();
      if (!S.inflight) schedule();
    });
    $('analysis-list').addEventListener('click', (e) => {
      const b = e.target.closest ? e.target.closest('[data-play]') : null;
      const g = S.game;
      if (!b || !g) return;
      if (!g.human_to_move) { toast('Not your turn.'); return; }
      const mv = b.getAttribute('data-play');
      if (findLegal(g, mv)) play(mv);
    });
    let placeQueued = false;
    window.addEventListener('scroll', () => {
      if (placeQueued) return;
      placeQueued = true;
      requestAnimationFrame(() => { placeQueued = false; placeToast(); });
    }, { passive: true });
    let resizeQueued = false;
    window.addEventListener('resize', () => {
      if (resizeQueued) return;
      resizeQueued = true;
      requestAnimationFrame(() => { resizeQueued = false; renderGraph(); sizeLabels(); placeToast(); });
    });
    // Shortcuts: u undo, h hint, Space pause/resume. They work with a button (or a board
    // point) focused, but not while typing in a field.
    let spaceTaken = false;
    window.addEventListener('keydown', (e) => {
      const t = e.target;
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
      if (t && t.closest && t.closest('input, textarea, select, [contenteditable]:not([contenteditable="false"])')) return;
      const k = e.key;
      if (k === 'u' || k === 'U') { if (!e.repeat) undo(); } else if (k === 'h' || k === 'H') { if (!e.repeat) hint(); } else if ((k === ' ' || k === 'Spacebar') && S.game && !bothHumans(S.game)) {
        // Space would also press a focused button: take it (keyup included) for Pause.
        e.preventDefault();
        spaceTaken = true;
        if (!e.repeat) {
          togglePause();
          toast(S.paused ? 'Agent play paused (Space resumes).' : 'Agent play resumed.');
        }
      }
    });
    window.addEventListener('keyup', (e) => {
      if ((e.key === ' ' || e.key === 'Spacebar') && spaceTaken) {
        spaceTaken = false;
        e.preventDefault();
      }
    }, true);
  }

  // ---------------------------------------------------------------- start
  async function start() {
    let cat;
    try {
      cat = await api('GET', '/api/catalog');
    } catch (e) {
      showLoadError('Could not load the game catalog: ' + e.message + ' Retrying in 5 s…');
      clearTimeout(S.startTimer);
      S.startTimer = setTimeout(() => { showLoadError(''); start(); }, 5000);
      return;
    }
    clearTimeout(S.startTimer);
    const games = cat && Array.isArray(cat.games) ? cat.games.filter((e) => e && typeof e.id === 'string') : [];
    if (!games.length) { showLoadError('The server lists no games.'); return; }
    S.catalog = { games, models: Array.isArray(cat.models) ? cat.models : [] };
    const sel = $('game-select');
    sel.innerHTML = games.map((e) => '<option value="' + esc(e.id) + '">' + esc(e.label || e.id) + '</option>').join('');
    sel.disabled = false;
    // Resume the game named in the address (#id) when the server still has it.
    const hashId = (location.hash || '').slice(1);
    if (/^[0-9a-f]{32}$/i.test(hashId)) {
      try {
        const st = await api('GET', '/api/games/' + hashId);
        if (st && gameEntry(st.game)) {
          await selectGame(st.game, false);
          const p = st.players || {};
          $('black-spec').value = p.black || 'human';
          $('white-spec').value = p.white || 'human';
          SIDES.forEach(syncSelect);
          resetRunner();
          S.gen++;
          apply(st);
          schedule();
          return;
        }
      } catch (e) { /* gone: start afresh */ }
    }
    const first = gameEntry('othello8') ? 'othello8' : games[0].id;
    await selectGame(first, true);
    newGame();
  }

  function init() {
    S.speed = Math.max(0, Math.min(2000, Number(load('speed', 500)) || 0));
    S.showEvals = !!load('showEvals', false);
    $('speed').value = String(S.speed);
    $('speed-value').textContent = S.speed + ' ms';
    $('show-evals').checked = S.showEvals;
    bind();
    renderGraph();
    renderMoves();
    renderControls();
    start();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
