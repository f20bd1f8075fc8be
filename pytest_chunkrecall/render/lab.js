// The lab's views, drawn from the JSON embedded in the page. Data only ever reaches the
// page as text nodes and attribute values: nothing from the report is parsed as HTML. Text
// from the user (ids, paths, questions, needles, settings) sits in an element of its own that
// isolates it, a <bdi> or one the stylesheet isolates, so that a bidirectional control in it
// (U+202E, say) cannot reorder the page's own words around it.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("lab-data").textContent);
  var SVG = "http://www.w3.org/2000/svg";
  // the verdicts, from their one definition in the package
  var VERDICTS = data.verdicts;
  // a stage's verdict (a loader's, a reranker's) is shown where the run counts it
  var STAGE_VERDICTS = data.stage_verdicts;
  var SYMBOL = data.symbols;
  var views = {};
  var caseEls = {};
  var markEls = {};
  var docEls = {};
  var caseCount = 0;

  function node(ns, tag, attrs, children) {
    var e = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      var v = attrs[k];
      if (v === null || v === undefined || v === false) return;
      if (k === "text") e.textContent = String(v);
      else if (k.slice(0, 2) === "on") e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : String(v));
    });
    (children || []).forEach(function (c) {
      if (c === null || c === undefined || c === false) return;
      e.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
    });
    return e;
  }
  function h(tag, attrs, children) { return node(null, tag, attrs, children); }
  function s(tag, attrs, children) { return node(SVG, tag, attrs, children); }
  function pct(x) { return x === null || x === undefined ? "\u2013" : (100 * x).toFixed(1) + "%"; }
  function num(x, d) { return x === null || x === undefined ? "\u2013" : Number(x).toFixed(d || 0); }
  function has(x) { return x !== null && x !== undefined; }
  function chunkId(doc, index) { return doc + "#" + index; }
  function bdi(text) { return h("bdi", { text: has(text) ? text : "" }); }
  function chunkName(doc, index) { return h("span", {}, [bdi(doc), "#" + index]); }
  function joined(parts, separator) {
    // parts (user text or elements), each isolated, with our separator between them
    var out = [];
    parts.forEach(function (p, i) { if (i) out.push(separator); out.push(typeof p === "object" && p !== null ? p : bdi(p)); });
    return h("span", {}, out);
  }
  function verdictBadge(v) {
    var known = VERDICTS.indexOf(v) >= 0 ? v : "unknown";
    return h("span", { class: "verdict " + known }, [(SYMBOL[v] || "?") + " ", bdi(v || "unknown")]);
  }
  function table(head, rows, numeric) {
    return h("table", {}, [
      h("thead", {}, [h("tr", {}, head.map(function (t, i) {
        return h("th", { class: numeric && numeric[i] ? "num" : null, scope: "col", text: t });
      }))]),
      h("tbody", {}, rows.map(function (r) {
        return h("tr", {}, r.map(function (c, i) {
          var cell = h("td", { class: numeric && numeric[i] ? "num" : null });
          cell.appendChild(typeof c === "object" && c !== null ? c : document.createTextNode(has(c) ? String(c) : "\u2013"));
          return cell;
        }));
      })),
    ]);
  }
  function hitRate(t, interval) {
    if (!t || !has(t.cases)) return "\u2013";
    interval = interval || t.hit_rate_ci95;
    var ci = interval ? " [" + pct(interval[0]) + ", " + pct(interval[1]) + "]" : "";
    return t.hits + "/" + t.cases + " (" + pct(t.hit_rate) + ")" + ci;
  }
  function args(a) {
    return joined(a ? Object.keys(a).map(function (k) { return k + "=" + JSON.stringify(a[k]); }) : [], ", ");
  }

  // ---- charts --------------------------------------------------------------------------
  var hatches = 0;
  function hatch(g) {
    // one pattern per drawing: a pattern in a hidden view would not paint in a shown one
    var id = "hatch-" + ++hatches;
    g.appendChild(s("defs", {}, [s("pattern", { id: id, width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, [
      s("rect", { width: 6, height: 6, fill: "#f3c4bf" }), s("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#d0453a", "stroke-width": 3 }),
    ])]));
    return "url(#" + id + ")";
  }
  function niceStep(raw) {
    // the smallest of 1, 2, 2.5 and 5 times a power of ten that is at least raw
    var base = Math.pow(10, Math.floor(Math.log10(raw)));
    return [1, 2, 2.5, 5, 10].filter(function (f) { return f * base >= raw * (1 - 1e-9); })[0] * base;
  }
  function niceRange(lo, hi) {
    // four equal steps of a round size from a multiple of that size, covering [lo, hi]
    var step = niceStep((hi - lo) / 4 || 1), from = Math.floor(lo / step + 1e-9) * step;
    while (from + 4 * step < hi - 1e-9) { step = niceStep(step * (1 + 1e-6)); from = Math.floor(lo / step + 1e-9) * step; }
    var decimals = 0;
    while (decimals < 6 && Math.abs(Math.round(step * Math.pow(10, decimals)) - step * Math.pow(10, decimals)) > 1e-6) decimals++;
    return { range: [from, from + 4 * step], decimals: decimals };
  }
  var LABEL_CHAR = 6.8, LABEL_CHARS = 28, LABEL_LINE = 14;  // 11px text: a character's width at most, a line's height
  function xLabels(ticks, X) {
    // horizontal while every label fits its slot; else upright (reading upwards), cut to
    // LABEL_CHARS characters, and only every n-th one when the slots are narrower than a line
    var slot = Infinity;
    for (var i = 1; i < ticks.length; i++) slot = Math.min(slot, Math.abs(X(ticks[i][0]) - X(ticks[i - 1][0])));
    var longest = ticks.reduce(function (m, t) { return Math.max(m, String(t[1]).length); }, 0);
    if (longest * LABEL_CHAR <= slot - 6) return { upright: false, depth: 0, every: 1 };
    return { upright: true, depth: Math.min(longest, LABEL_CHARS) * LABEL_CHAR, every: Math.ceil(LABEL_LINE / Math.max(1, slot)) };
  }
  function chart(opts) {
    // opts: {width, height, x: [lo, hi], y: [lo, hi], y2: [lo, hi]?, xlabel, ylabel, y2label,
    //        xticks: [[x, label, full label on hover?], ...]}
    var W = opts.width || 560, L = 66, R = opts.y2 ? 62 : 16, T = 14;
    var X = function (x) { return L + (W - L - R) * (x - opts.x[0]) / ((opts.x[1] - opts.x[0]) || 1); };
    var ticks = opts.xticks || [], layout = xLabels(ticks, X);
    var B = 36 + layout.depth, H = (opts.height || 240) + layout.depth;
    var g = s("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img", "aria-label": opts.label });
    var Y = function (y) { return H - B - (H - B - T) * (y - opts.y[0]) / ((opts.y[1] - opts.y[0]) || 1); };
    var y2 = opts.y2 ? niceRange(opts.y2[0], opts.y2[1]) : null;
    var Y2 = y2 ? function (y) { return H - B - (H - B - T) * (y - y2.range[0]) / ((y2.range[1] - y2.range[0]) || 1); } : null;
    for (var i = 0; i <= 4; i++) {
      var yv = opts.y[0] + (opts.y[1] - opts.y[0]) * i / 4;
      g.appendChild(s("line", { class: "grid", x1: L, x2: W - R, y1: Y(yv), y2: Y(yv) }));
      g.appendChild(s("text", { x: L - 6, y: Y(yv) + 4, "text-anchor": "end", "data-axis": "y", text: opts.yfmt ? opts.yfmt(yv) : num(yv, 2) }));
      if (Y2) {
        var y2v = y2.range[0] + (y2.range[1] - y2.range[0]) * i / 4;
        g.appendChild(s("text", { x: W - R + 6, y: Y(yv) + 4, "data-axis": "y2", "data-value": y2v, text: y2v.toFixed(y2.decimals) + "\u00d7" }));
      }
    }
    ticks.forEach(function (t, n) {
      if (n % layout.every) return;
      var label = String(t[1]), x = X(t[0]), y = H - B + (layout.upright ? 6 : 14);
      var shown = layout.upright && label.length > LABEL_CHARS ? label.slice(0, LABEL_CHARS - 1) + "\u2026" : label;
      g.appendChild(s("text", layout.upright
        ? { x: x, y: y, dy: "0.35em", "text-anchor": "end", transform: "rotate(-90 " + x + " " + y + ")", "data-axis": "x", text: shown }
        : { x: x, y: y, "text-anchor": "middle", "data-axis": "x", text: shown }, [s("title", { text: has(t[2]) ? t[2] : label })]));
    });
    g.appendChild(s("line", { class: "axis", x1: L, x2: W - R, y1: H - B, y2: H - B }));
    g.appendChild(s("line", { class: "axis", x1: L, x2: L, y1: T, y2: H - B }));
    g.appendChild(s("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", "data-axis": "xlabel", text: opts.xlabel }));
    g.appendChild(s("text", { x: 11, y: T + (H - B - T) / 2, transform: "rotate(-90 11 " + (T + (H - B - T) / 2) + ")", "text-anchor": "middle", text: opts.ylabel }));
    if (Y2) g.appendChild(s("text", { x: W - 8, y: T + (H - B - T) / 2, transform: "rotate(90 " + (W - 8) + " " + (T + (H - B - T) / 2) + ")", "text-anchor": "middle", text: opts.y2label }));
    return { svg: g, X: X, Y: Y, Y2: Y2 };
  }
  function path(points, X, Y) {
    return points.map(function (p, i) { return (i ? "L" : "M") + X(p[0]).toFixed(1) + " " + Y(p[1]).toFixed(1); }).join(" ");
  }

  // ---- overview ------------------------------------------------------------------------
  // Where recall goes, stage by stage: the summary's funnel steps, as the terminal's funnel line says them.
  function funnel(f) {
    var parts = [];
    f.steps.forEach(function (step, i) {
      if (i) parts.push(" \u2192 ");
      parts.push(h("span", { "data-funnel": step[2] }, [h("b", { text: String(step[0]) }), " " + step[1]]));
    });
    if (f.lost) parts.push(" (lost: " + f.lost + ")");
    return h("p", { class: "funnel" }, parts);
  }

  function overview() {
    var o = data.overview, t = o.totals || {}, v = t.verdicts || {};
    var sec = views.overview;
    sec.appendChild(h("h2", { text: "Overview" }));
    sec.appendChild(h("div", { class: "cards" }, [
      h("div", { class: "card", "data-total": "hit_rate" }, ["hit-rate", h("b", { text: hitRate(t).split(" [")[0] }), t.hit_rate_ci95 ? "95% CI " + pct(t.hit_rate_ci95[0]) + "\u2013" + pct(t.hit_rate_ci95[1]) : null]),
      has(t.mrr) ? h("div", { class: "card", "data-total": "mrr" }, ["MRR", h("b", { text: num(t.mrr, 3) }), "mean 1/rank"]) : null,
      h("div", { class: "card", "data-total": "split_spans" }, ["split spans", h("b", { text: has(t.split_spans) ? t.split_spans : "\u2013" }), "of " + (t.cases || 0) + " cases"]),
    ]));
    sec.appendChild(h("h3", { text: "Verdicts" }));
    var counted = VERDICTS.filter(function (name) { return STAGE_VERDICTS.indexOf(name) < 0 || v[name]; });
    sec.appendChild(h("p", {}, counted.map(function (name) {
      return h("a", { href: "#cases:" + name, class: "verdict-link", "data-verdict-count": name, style: "margin-right:1rem" }, [verdictBadge(name), " " + (v[name] || 0)]);
    })));
    if (o.funnel) {
      sec.appendChild(h("h3", { text: "Funnel" }));
      sec.appendChild(funnel(o.funnel));
    }
    sec.appendChild(h("h3", { text: "Gold files" }));
    // with a second stage, the first stage's depth and the reranker have columns of their own
    var reranked = (o.gold_files || []).some(function (g) { return g.reranker; });
    sec.appendChild(table(
      ["gold file", "hit-rate", "MRR", "split spans", counted.join(" / "), "chunks", "chunker", "retriever"]
        .concat(reranked ? ["candidates", "reranker"] : [], ["k"]),
      (o.gold_files || []).map(function (g) {
        var gt = g.totals || {}, gv = gt.verdicts || {};
        var stage = !reranked ? [] : g.reranker
          ? [g.candidates, h("span", {}, [bdi(g.reranker), g.reranker_args && Object.keys(g.reranker_args).length ? h("span", {}, ["(", args(g.reranker_args), ")"]) : null])]
          : ["", "none"];
        return [g.path, hitRate(gt, g.hit_rate_ci95), num(has(g.mrr) ? g.mrr : gt.mrr, 3), gt.split_spans,
          counted.map(function (n) { return gv[n] || 0; }).join(" / "), g.chunks,
          h("span", {}, [bdi(g.chunker || ""), g.chunker_args ? h("span", {}, ["(", args(g.chunker_args), ")"]) : null]), g.retriever]
          .concat(stage, [g.k]);
      }), [0, 0, 1, 1, 0, 1, 0, 0].concat(reranked ? [1, 0] : [], [1])));
    if (o.context) sec.appendChild(h("p", { "data-context": "1", text: o.context }));
    sec.appendChild(h("h3", { text: "Hit-rate at rank r" }));
    if (o.curve && o.curve.length) {
      var kmax = o.curve[o.curve.length - 1][0];
      var c = chart({ width: 460, height: 220, x: [1, Math.max(2, kmax)], y: [0, 1], xlabel: "r (rank cut-off)", ylabel: "share with rank \u2264 r", label: "hit-rate at rank r", yfmt: pct,
        xticks: o.curve.map(function (p) { return [p[0], String(p[0])]; }) });
      (o.gold_files || []).forEach(function (g) {
        var at = g.hit_rate_at || (g.totals || {}).hit_rate_at;
        if (!at) return;
        var pts = Object.keys(at).map(Number).sort(function (a, b) { return a - b; }).map(function (r) { return [r, at[String(r)]]; });
        c.svg.appendChild(s("path", { class: "curve-l", d: path(pts, c.X, c.Y), "data-curve": g.path }, [s("title", { text: g.path })]));
      });
      c.svg.appendChild(s("path", { class: "curve", d: path(o.curve, c.X, c.Y) }));
      o.curve.forEach(function (p) {
        c.svg.appendChild(s("circle", { cx: c.X(p[0]), cy: c.Y(p[1]), r: 3.5, fill: "#1f5fbf", "data-r": p[0], "data-share": p[1] }, [s("title", { text: "r=" + p[0] + ": " + pct(p[1]) })]));
        c.svg.appendChild(s("text", { x: c.X(p[0]), y: c.Y(p[1]) - 8, "text-anchor": "middle", text: pct(p[1]) }));
      });
      sec.appendChild(c.svg);
      sec.appendChild(h("p", { class: "legend", text: "solid: all cases; dashed: each gold file (hover for its name)" }));
    } else {
      sec.appendChild(h("p", { class: "muted", text: "This report has no hit-rate by rank (hit_rate_at)." }));
    }
    if (o.comparison) {
      var cmp = o.comparison;
      sec.appendChild(h("h3", { text: "Compared with the baseline" }));
      sec.appendChild(table(["cases", "regressions", "improvements", "hit-rate before", "after", "change (points)", "95% CI (points)", "p", "decision"],
        [[cmp.cases, cmp.regressions, cmp.improvements, pct(cmp.hit_rate_before), pct(cmp.hit_rate_after), num(cmp.delta_points, 1),
          cmp.ci95_points ? num(cmp.ci95_points[0], 1) + " \u2026 " + num(cmp.ci95_points[1], 1) : null, num(cmp.p_value, 4), cmp.decision]],
        [1, 1, 1, 1, 1, 1, 1, 1, 0]));
    }
    if (o.gate) sec.appendChild(h("p", { class: "gate", "data-gate": "1", text: o.gate }));
    if (o.unstable && o.unstable.length) {
      sec.appendChild(h("p", { "data-unstable": o.unstable_count }, [o.unstable_count + " unstable case(s), their repeats differing, each counted at its worst: ", joined(o.unstable.map(function (id) { return h("a", { href: "#case:" + encodeURIComponent(id) }, [bdi(id)]); }), ", ")]));
    }
    if (o.unevaluated && o.unevaluated.length) {
      sec.appendChild(h("p", { class: "muted", text: o.unevaluated.length + " case(s) could not be evaluated and are not counted (an error stopped them; skipped cases are not among them)." }));
    }
  }

  // ---- cases ---------------------------------------------------------------------------
  var filter = { verdicts: {}, text: "" };
  function chunkRow(c, holding) {
    var id = chunkId(c.doc, c.index);
    var tr = h("tr", { class: holding[id] ? "holds" : null }, [
      h("td", { class: "num", text: has(c.rank) ? c.rank : "\u2013" }),
      h("td", {}, [h("a", { href: "#chunk:" + encodeURIComponent(id) }, [chunkName(c.doc, c.index)])]),
      h("td", { class: "num", text: has(c.start) ? "[" + c.start + ", " + c.end + ")" : "unknown" }),
      h("td", { class: "mono", text: c.preview || "" }),
    ]);
    if (holding[id]) tr.appendChild(h("td", { text: "holds the span" }));
    return tr;
  }
  function caseArticle(c) {
    var holding = {};
    (c.holding_ids || []).forEach(function (id) { holding[id] = true; });
    if (c.verdict === "hit" && has(c.rank) && c.top && c.top[c.rank - 1]) holding[chunkId(c.top[c.rank - 1].doc, c.top[c.rank - 1].index)] = true;
    var dl = h("dl", {});
    function row(term, value) { if (has(value) && value !== "") { dl.appendChild(h("dt", { text: term })); dl.appendChild(h("dd", {}, [value])); } }
    row("question", c.question);
    if (c.needles && c.needles.length) row("needles", joined(c.needles.map(function (n) { return h("span", {}, ["\u201c", bdi(n), "\u201d"]); }), "; "));
    row("span", c.span ? h("span", {}, [bdi(c.span), has(c.span_length) ? " (" + c.span_length + " " + (c.unit || "chars") + ")" : ""]) : null);
    row("verdict", h("span", {}, [verdictBadge(c.verdict), has(c.rank) ? " at rank " + c.rank + " of k=" + c.k : " (k=" + c.k + ")", c.span_split ? " \u2014 the span is whole in no chunk" : ""]));
    if (has(c.candidate_rank)) row("candidate rank", h("span", {}, ["the holding chunk was candidate " + c.candidate_rank + " of " + c.candidates + " for the reranker ", bdi(c.reranker || ""), has(c.candidate_score) ? " (first-stage score " + num(c.candidate_score, 4) + ")" : ""]));
    else if (has(c.holding_rank)) row("holding chunk", "ranks " + c.holding_rank + " in a deeper retrieval");
    if (c.ranks_seen) row("repeats", (c.unstable ? "unstable, counted at its worst: " : "stable: ") + "ranks seen " + c.ranks_seen.map(function (r) { return has(r) ? String(r) : "missed"; }).join(", ") + (c.varied ? "; " + c.varied : ""));
    if (c.held && c.held.length) row("held in", joined(c.held.filter(function (x) { return x.chunk; }).map(function (x) { return h("span", {}, [chunkName(x.chunk.doc, x.chunk.index), " [" + x.chunk.start + ", " + x.chunk.end + ")"]); }), "; "));
    if (c.holding_ids && c.holding_ids.length) row("holding chunks", joined(c.holding_ids, ", "));
    if (c.loading) {
      row("lost by the loader", h("span", {}, ["\u201c", bdi(c.loading.pattern), "\u201d in ", bdi(c.loading.doc)]));
      row("reference text", h("span", { class: "mono" }, [bdi(c.loading.reference)]));
      row("loaded text", c.loading.loaded_chars === 0 ? "empty: the loader returned no text" : has(c.loading.loaded) ? h("span", { class: "mono" }, [bdi(c.loading.loaded)]) : "nothing like it");
    }
    (c.reference_notes || []).forEach(function (note) { row("not checked", bdi(note)); });
    if (has(c.pieces_retrieved)) row("pieces retrieved", c.pieces_retrieved ? "yes: each piece between the cuts is in some top-k chunk" : "no");
    if (c.span_at) row("in the document", h("a", { href: "#span:" + encodeURIComponent(c.nodeid), "data-goto-span": c.nodeid }, [bdi(c.span_at.doc), " [" + c.span_at.start + ", " + c.span_at.end + ") \u2192 show"]));
    if (c.baseline) row("baseline", h("span", {}, [verdictBadge(c.baseline.verdict), has(c.baseline.rank) ? " at rank " + c.baseline.rank : ""]));
    row("outcome", c.outcome);
    var body = h("div", { class: "case-body" }, [dl]);
    if (c.top && c.top.length) {
      body.appendChild(h("h4", { text: "Top " + c.top.length + " chunks" }));
      var tb = h("tbody", {}, c.top.slice().sort(function (a, b) { return (a.rank || 0) - (b.rank || 0); }).map(function (x) { return chunkRow(x, holding); }));
      body.appendChild(h("table", {}, [h("thead", {}, [h("tr", {}, ["rank", "chunk", "offsets", "preview"].map(function (t) { return h("th", { scope: "col", text: t }); }))]), tb]));
    }
    if (c.cut) {
      body.appendChild(h("h4", {}, ["Where the cut fell: ", bdi(c.cut.doc), " at " + c.cut.offset]));
      body.appendChild(h("div", { class: "cutline mono", "data-cut": c.cut.offset }, ["\u2026", bdi(c.cut.before || ""), h("span", { class: "cutmark", "aria-label": "cut", text: "|\u2702|" }), bdi(c.cut.after || ""), "\u2026"]));
      var sides = [];
      [["left", c.cut.left], ["right", c.cut.right]].forEach(function (side) {
        var w = side[1];
        if (w) sides.push(h("span", {}, [side[0] + " chunk ", chunkName(w.doc, w.index), " [" + w.start + ", " + w.end + ")"]));
      });
      if (has(c.cut.overlap)) sides.push(h("span", { text: "overlap " + c.cut.overlap }));
      body.appendChild(h("p", { class: "muted" }, [joined(sides, "; ")]));
    }
    var art = h("article", { class: "case", "data-case": c.nodeid, "data-verdict": c.verdict || "unknown", id: "case-" + caseCount++ }, [
      h("details", {}, [h("summary", {}, [verdictBadge(c.verdict), " ", h("code", { text: c.id || c.nodeid }), " ", h("span", { class: "question", text: c.question || "" }),
        has(c.rank) ? h("span", { class: "muted", text: " rank " + c.rank }) : null,
        c.baseline ? h("span", { class: "muted" }, [" (baseline: ", bdi(c.baseline.verdict), ")"]) : null]), body]),
    ]);
    caseEls[c.nodeid] = art;
    return art;
  }
  function cases() {
    var sec = views.cases;
    sec.appendChild(h("h2", { text: "Cases" }));
    var bar = h("div", { class: "filters", role: "group", "aria-label": "filter by verdict" }, ["Show:"]);
    VERDICTS.filter(function (v) {
      return STAGE_VERDICTS.indexOf(v) < 0 || data.cases.some(function (c) { return c.verdict === v; });
    }).forEach(function (v) {
      var b = h("button", { type: "button", "aria-pressed": "true", "data-filter": v, onclick: function () {
        filter.verdicts[v] = !filter.verdicts[v]; b.setAttribute("aria-pressed", filter.verdicts[v] ? "true" : "false"); applyFilter();
      } }, [verdictBadge(v)]);
      filter.verdicts[v] = true;
      bar.appendChild(b);
    });
    bar.appendChild(h("input", { type: "search", placeholder: "question, id or needle", "aria-label": "search cases", oninput: function (e) { filter.text = e.target.value.toLowerCase(); applyFilter(); } }));
    sec.appendChild(bar);
    var group = null, last = null;
    data.cases.forEach(function (c) {
      if (c.gold_file !== last) { last = c.gold_file; sec.appendChild(h("h3", { text: c.gold_file || "(no gold file)" })); group = sec; }
      group.appendChild(caseArticle(c));
    });
    if (!data.cases.length) sec.appendChild(h("p", { class: "muted", text: "No case was evaluated." }));
  }
  function applyFilter() {
    data.cases.forEach(function (c) {
      var text = [c.id, c.question, c.nodeid].concat(c.needles || []).join(" ").toLowerCase();
      var known = VERDICTS.indexOf(c.verdict) >= 0;
      caseEls[c.nodeid].hidden = !((!known || filter.verdicts[c.verdict]) && (!filter.text || text.indexOf(filter.text) >= 0));
    });
  }
  function showAll() {
    filter.text = "";
    views.cases.querySelector("input[type=search]").value = "";
    onlyVerdict(null, true);
  }
  function onlyVerdict(v, all) {
    VERDICTS.forEach(function (x) { filter.verdicts[x] = all || x === v; });
    views.cases.querySelectorAll("[data-filter]").forEach(function (b) { b.setAttribute("aria-pressed", filter.verdicts[b.getAttribute("data-filter")] ? "true" : "false"); });
    applyFilter();
  }

  // ---- documents -----------------------------------------------------------------------
  function documents() {
    var sec = views.documents;
    sec.appendChild(h("h2", { text: "Documents" }));

    if (!data.documents.length) sec.appendChild(h("p", { class: "muted", text: "No document text was given to this page." }));
    var open = data.documents.filter(function (d) { return d.marks.some(function (m) { return m.split; }); });
    if (!open.length) open = data.documents.slice(0, 1);
    data.documents.forEach(function (d) {
      var splits = d.marks.filter(function (m) { return m.split; }).length;
      var det = h("details", { class: "doc", "data-doc": d.id }, [h("summary", {}, [h("code", { text: d.id }),
        " \u2014 " + d.chars.toLocaleString("en") + " chars, " + d.chunks.length + " chunks, " + (d.marks.length - splits) + " whole and " + splits + " split spans" + (d.excerpted ? " (excerpts)" : "")])]);
      det.addEventListener("toggle", function () { if (det.open) drawDocument(d, det); });
      docEls[d.id] = det;
      sec.appendChild(det);
      if (open.indexOf(d) >= 0) det.open = true;
    });
  }
  function docLegend() {
    return h("div", { class: "legend" }, [
      h("span", {}, [h("i", { class: "b0" }), h("i", { class: "b1" }), "one chunk (alternating)"]),
      h("span", {}, [h("i", { class: "ov" }), "overlap: in two or more chunks (hatched)"]), h("span", {}, [h("i", { class: "none" }), "in no chunk"]),
      h("span", {}, ["\u2713 whole span: solid underline"]), h("span", {}, ["\u2702 split span: wavy underline, the cut as \u2702"]),
    ]);
  }
  function drawDocument(d, det) {
    if (det.drawn) return;
    det.drawn = true;
    var body = h("div", { class: "doc-body" });
    var n = Math.max(1, d.chars);
    var strip = h("div", { class: "strip", role: "img", "aria-label": "chunk map of " + d.id + ": " + d.chunks.length + " chunks" });
    d.chunks.forEach(function (w, o) {
      strip.appendChild(h("div", { class: "win r" + (o % 2), "data-chunk": chunkId(d.id, w[0]), "data-start": w[1], "data-end": w[2], title: "chunk " + chunkId(d.id, w[0]) + " [" + w[1] + ", " + w[2] + ")",
        style: "left:" + (100 * w[1] / n).toFixed(3) + "%;width:" + (100 * (w[2] - w[1]) / n).toFixed(3) + "%" }));
    });
    var ticks = h("div", { class: "strip-ticks" });
    d.marks.forEach(function (m) {
      var at = m.cut !== null ? m.cut : m.start;
      strip.appendChild(h("div", { class: "tick" + (m.split ? " split" : ""), style: "left:" + (100 * at / n).toFixed(3) + "%" }));
      ticks.appendChild(h("a", { href: "#case:" + encodeURIComponent(m.case), style: "left:" + (100 * at / n).toFixed(3) + "%", title: m.case + (m.split ? " (split)" : " (whole)"), text: m.split ? "\u2702" : "\u2713" }));
    });
    body.appendChild(strip);
    body.appendChild(ticks);
    body.appendChild(docLegend());
    if (d.unplaced.length) body.appendChild(h("p", { class: "muted", text: d.unplaced.length + " chunk(s) of this document have unknown offsets and are not drawn." }));
    if (d.excerpted) body.appendChild(h("p", { class: "muted", text: "This document is long: shown as excerpts around its spans and cuts; the strip above is the full chunk map." }));
    var text = h("div", { class: "text", tabindex: "0", "aria-label": "text of " + d.id });
    var starts = {}, cuts = {};
    d.marks.forEach(function (m, i) {
      if (m.end > m.start) (starts[m.start] = starts[m.start] || []).push(i);
      if (m.cut !== null) (cuts[m.cut] = cuts[m.cut] || []).push(i);
    });
    var prevEnd = null;
    function markers(at) {
      (cuts[at] || []).forEach(function (i) { text.appendChild(h("span", { class: "cut", role: "img", "aria-label": "cut for " + d.marks[i].case, title: "cut at " + at, "data-cut-of": d.marks[i].case, text: "\u2702" })); });
      (starts[at] || []).forEach(function (i) {
        var m = d.marks[i];
        var a = h("a", { class: "mark-label " + (m.split ? "split" : "whole"), href: "#case:" + encodeURIComponent(m.case), "data-span": m.case, "data-split": m.split ? "true" : "false" },
          [m.split ? "\u2702 split " : "\u2713 whole ", bdi(m.case.split("::").pop())]);
        markEls[m.case] = a;
        text.appendChild(a);
      });
    }
    d.pieces.forEach(function (p) {
      if (prevEnd !== null && p[0] !== prevEnd) {
        markers(prevEnd);
        text.appendChild(h("span", { class: "excerpt-gap", text: "\u2026 " + (p[0] - prevEnd).toLocaleString("en") + " characters not shown \u2026" }));
      }
      if (prevEnd === null && p[0] > 0) text.appendChild(h("span", { class: "excerpt-gap", text: "\u2026 " + p[0].toLocaleString("en") + " characters not shown \u2026" }));
      markers(p[0]);
      var cls = p[3].length === 0 ? "none" : p[3].length > 1 ? "ov" : "b" + (p[3][0] % 2);
      // the innermost span (marks are in order of start) decides the underline
      var inner = p[4].length ? d.marks[p[4][p[4].length - 1]] : null;
      if (inner) cls += inner.split ? " ss" : " sw";
      text.appendChild(h("span", { class: cls, "data-at": p[0], "data-in-span": inner ? inner.case : null }, [p[2]]));
      prevEnd = p[1];
    });
    if (prevEnd !== null) markers(prevEnd);
    // clicking a span's text goes to its case, as its label does (a selection is left alone)
    text.addEventListener("click", function (e) {
      var inSpan = e.target.closest && e.target.closest("[data-in-span]");
      if (inSpan && !String(window.getSelection())) location.hash = "#case:" + encodeURIComponent(inSpan.getAttribute("data-in-span"));
    });
    body.appendChild(text);
    det.appendChild(body);
  }

  // ---- the lab -------------------------------------------------------------------------
  function keptWhole(C, V, L) {
    // mirrors the report's arithmetic: min(1, (C - L) / (C - V)), 0 past the chunk size
    if (L > C) return 0;
    if (V >= L || C <= V) return 1;
    return Math.max(0, Math.min(1, (C - L) / (C - V)));
  }
  function averaged(C, V, lengths) {
    if (!lengths.length) return null;
    return lengths.reduce(function (a, L) { return a + keptWhole(C, V, L); }, 0) / lengths.length;
  }
  function greenRuns(windows, L, n) {
    // start s is green when some chunk [a, b) has a <= s and s + L <= b
    var ws = windows.slice().sort(function (x, y) { return x[0] - y[0]; });
    var runs = [], maxEnd = -Infinity;
    for (var i = 0; i < ws.length; i++) {
      maxEnd = Math.max(maxEnd, ws[i][1]);
      var from = ws[i][0], to = Math.min(i + 1 < ws.length ? ws[i + 1][0] : n, maxEnd - L + 1);
      if (to > from) runs.push([from, to]);
    }
    return runs;
  }
  function band(windows, L, lo, hi, width, label) {
    var g = s("svg", { viewBox: "0 0 " + width + " 74", width: width, height: 74, role: "img", "aria-label": label });
    var red = hatch(g);
    var X = function (x) { return 4 + (width - 8) * (x - lo) / ((hi - lo) || 1); };
    windows.forEach(function (w, o) {
      if (w[1] < lo || w[0] > hi) return;
      g.appendChild(s("rect", { x: X(Math.max(lo, w[0])), y: 2 + 12 * (o % 2), width: Math.max(1, X(Math.min(hi, w[1])) - X(Math.max(lo, w[0]))), height: 10, fill: o % 2 ? "#fbe9cf" : "#dbe8fb", stroke: "#6d7d95" }));
    });
    g.appendChild(s("rect", { class: "red", fill: red, x: X(lo), y: 32, width: X(hi) - X(lo), height: 18 }));
    var green = 0;
    greenRuns(windows, L, hi).forEach(function (r) {
      var a = Math.max(lo, r[0]), b = Math.min(hi, r[1]);
      if (b <= a) return;
      green += b - a;
      g.appendChild(s("rect", { class: "green", x: X(a), y: 32, width: Math.max(0.5, X(b) - X(a)), height: 18 }));
    });
    g.appendChild(s("text", { x: 4, y: 66, text: "start positions: green = span of length " + L + " kept whole, red hatched = split" }));
    return { svg: g, share: green / Math.max(1, hi - lo) };
  }
  function labFile(lab) {
    var box = h("div", { class: "lab", "data-lab": lab.gold_file }, [h("h3", {}, [h("code", { text: lab.gold_file })])]);
    if (!lab.known) { box.appendChild(h("p", { class: "reason", "data-reason": "offsets", text: lab.reason })); return box; }
    var C = lab.size, V0 = lab.overlap, u = lab.unit, lengths = lab.lengths;
    // the summary's statistics of these lengths, as the terminal prints them
    var median = lengths.length ? lab.length_p50 : Math.round(C / 4);
    var p90 = lengths.length ? lab.length_p90 : Math.round(C / 4);
    box.appendChild(h("p", {}, ["measured chunk size C = " + C + " ", bdi(u), ", effective overlap V = " + V0 + (has(lab.configured) ? " (configured " + lab.configured + ")" : "") +
      "; " + lengths.length + " span lengths, median " + median + ", p90 " + p90 + " (the slider's start); kept whole: observed " + pct(lab.observed_whole) + ", predicted " + pct(lab.predicted_whole)]));
    // the overlaps worth looking at: past twice the measured one or the long spans, cost only grows
    var top = Math.max(1, Math.min(C - 1, Math.round(Math.max(2 * V0, 1.5 * p90, C / 2))));
    var vIn = h("input", { type: "range", min: 0, max: top, value: Math.min(V0, top), "aria-label": "overlap V" });
    var lIn = h("input", { type: "range", min: 1, max: Math.max(Math.ceil(1.25 * C), lengths.length ? lengths[lengths.length - 1] : 1), value: Math.max(1, p90), "aria-label": "span length L" });
    var vOut = h("span", { class: "readout", "data-readout": "V" }), lOut = h("span", { class: "readout", "data-readout": "L" });
    var pOut = h("span", { class: "readout", "data-readout": "P" }), pLOut = h("span", { class: "readout", "data-readout": "PL" }), costOut = h("span", { class: "readout", "data-readout": "cost" });
    box.appendChild(h("div", { class: "controls" }, [h("label", {}, ["overlap V", vIn, vOut]), h("label", {}, ["span length L", lIn, lOut])]));
    box.appendChild(h("p", {}, ["at V: P(V) over the measured lengths ", pOut, "; for length L ", pLOut, "; index cost C/(C\u2212V) ", costOut]));
    var ideal = h("div", {}), measured = h("div", {}), plot = h("div", {});
    box.appendChild(h("h4", { text: "Windows of size C with overlap V, and the start positions of a span of length L" }));
    box.appendChild(ideal);
    var doc = data.documents.filter(function (d) { return d.id === lab.doc; })[0];
    if (doc) { box.appendChild(h("h4", {}, ["The measured chunks of ", bdi(doc.id), " at length L"])); box.appendChild(measured); }
    box.appendChild(h("h4", { text: "P(V) and index cost against overlap V" }));
    box.appendChild(plot);
    function draw() {
      var V = Number(vIn.value), L = Number(lIn.value), stride = Math.max(1, C - V);
      vOut.textContent = String(V); lOut.textContent = String(L);
      var p = averaged(C, V, lengths);
      pOut.textContent = pct(p); pOut.setAttribute("data-value", has(p) ? String(p) : "");
      pLOut.textContent = pct(keptWhole(C, V, L)); costOut.textContent = num(C / stride, 2) + "\u00d7";
      var extent = 3 * stride + C, wins = [];
      for (var a = 0; a < extent; a += stride) wins.push([a, a + C]);
      var b = band(wins, L, 0, extent, 720, "ideal windows");
      ideal.replaceChildren(b.svg, h("p", { class: "muted", "data-readout": "ideal-share", text: "green share of the start positions drawn: " + pct(b.share) }));
      if (doc) {
        var mw = doc.chunks.map(function (w) { return [w[1], w[2]]; });
        var whole = band(mw, L, 0, Math.max(1, doc.chars - L + 1), 720, "measured chunks").share;
        var lo = mw.length ? mw[0][0] : 0, hi = mw.length ? mw[Math.min(mw.length, 5) - 1][1] : doc.chars;
        var mb = band(mw, L, lo, Math.max(lo + 1, Math.min(hi, doc.chars - L + 1)), 720, "measured chunks of " + doc.id);
        measured.replaceChildren(mb.svg, h("p", { class: "muted", "data-readout": "measured-share", "data-value": String(whole),
          text: "the first " + Math.min(mw.length, 5) + " chunks drawn; green share of start positions in the whole document: " + pct(whole) }));
      }
      var costMax = Math.min(10, C / Math.max(1, C - top));
      var c = chart({ width: 620, height: 250, x: [0, top], y: [0, 1], y2: [1, costMax], xlabel: "overlap V (" + u + ")", ylabel: "P(V): share kept whole", y2label: "index cost C/(C\u2212V)", label: "kept-whole share and index cost against overlap", yfmt: pct,
        xticks: [0, 0.25, 0.5, 0.75, 1].map(function (f) { var x = Math.round(f * top); return [x, String(x)]; }) });
      var pts = [], ptsL = [], cost = [];
      for (var x = 0; x <= top; x += Math.max(1, Math.floor(top / 200))) {
        pts.push([x, averaged(C, x, lengths) || 0]); ptsL.push([x, keptWhole(C, x, L)]);
        var cx = C / (C - x); if (cx <= costMax) cost.push([x, cx]);
      }
      c.svg.appendChild(s("path", { class: "curve", d: path(pts, c.X, c.Y) }, [s("title", { text: "P(V) averaged over measured span lengths" })]));
      c.svg.appendChild(s("path", { class: "curve-l", d: path(ptsL, c.X, c.Y) }, [s("title", { text: "P(V) at length L" })]));
      c.svg.appendChild(s("path", { class: "cost", d: path(cost, c.X, c.Y2) }, [s("title", { text: "index cost" })]));
      c.svg.appendChild(s("line", { x1: c.X(V), x2: c.X(V), y1: 14, y2: 214, stroke: "#444", "stroke-dasharray": "2 2" }));
      if (has(lab.observed_whole)) {
        var ox = c.X(V0), oy = c.Y(lab.observed_whole);
        c.svg.appendChild(s("path", { d: "M" + ox + " " + (oy - 6) + " l6 6 l-6 6 l-6 -6 z", fill: "#b3261e", "data-observed": lab.observed_whole }, [s("title", { text: "observed kept whole at V=" + V0 + ": " + pct(lab.observed_whole) })]));
        c.svg.appendChild(s("text", { x: ox + 8, y: oy + 14, text: "observed " + pct(lab.observed_whole) }));
      }
      plot.replaceChildren(c.svg, h("p", { class: "legend", text: "solid: P(V) averaged over the measured span lengths; dashed: P(V) at length L; dotted: index cost C/(C\u2212V) (right axis); \u25c6 observed kept-whole share at the measured V; vertical line: the slider's V" }));
    }
    vIn.addEventListener("input", draw); lIn.addEventListener("input", draw);
    draw();
    return box;
  }
  function labView() {
    var sec = views.lab;
    sec.appendChild(h("h2", { text: "The lab" }));
    sec.appendChild(h("p", { class: "muted", text: "A blind window of size C sliding with overlap V keeps a span of length L whole at a share min(1, (C \u2212 L)/(C \u2212 V)) of start positions, and grows the index by C/(C \u2212 V)." }));
    data.lab.forEach(function (lab) { sec.appendChild(labFile(lab)); });
    if (!data.lab.length) sec.appendChild(h("p", { class: "muted", text: "No gold file in this report." }));
  }

  // ---- sweep ---------------------------------------------------------------------------
  function sweep() {
    var sec = views.sweep, sw = data.sweep;
    sec.appendChild(h("h2", {}, ["Sweep ", bdi(sw.spec || "")]));
    var rows = sw.rows || [];
    sec.appendChild(table(["setting", "chunks", "index \u00d7", "split spans", "hit-rate", "change (points)", "p (Holm)", "to the answer", "errors"],
      rows.map(function (r) { return [r.label, r.chunks, num(r.index_multiplier, 2), r.split_spans, r.hits + "/" + r.cases + " (" + pct(r.hit_rate) + ")", has(r.change_points) ? num(r.change_points, 1) : "", r.p_holm_text || "", has(r.context_to_answer_mean) ? num(r.context_to_answer_mean, 0) : "", joined(r.errors || [], "; ")]; }),
      [0, 1, 1, 1, 1, 1, 1, 1, 0]));
    if (sw.cheapest_text) sec.appendChild(h("p", { "data-cheapest": "1", text: sw.cheapest_text }));
    if (rows.some(function (r) { return r.significant; })) {
      sec.appendChild(h("p", { class: "muted", "data-footnote": "holm", text: "* differs from the configured setting beyond chance (exact two-sided McNemar on the same cases, Holm-adjusted across " + (rows.length - 1) + " settings, at the run's chunkrecall_alpha)" }));
    }
    if (!rows.length) return;
    var costMax = Math.max.apply(null, rows.map(function (r) { return r.index_multiplier || 1; }).concat([1.5]));
    var c = chart({ width: 640, height: 260, x: [-0.5, rows.length - 0.5], y: [0, 1], y2: [0, costMax], xlabel: "setting", ylabel: "hit-rate", y2label: "index cost \u00d7", label: "hit-rate and index cost per setting", yfmt: pct,
      xticks: rows.map(function (r, i) { return [i, r.setting ? r.label : "configured", r.label]; }) });
    var bw = (c.X(1) - c.X(0)) * 0.5, cost = [];
    rows.forEach(function (r, i) {
      var y = c.Y(r.hit_rate || 0);
      c.svg.appendChild(s("rect", { class: "bar" + (r.setting ? "" : " configured"), x: c.X(i) - bw / 2, y: y, width: bw, height: c.Y(0) - y, "data-row": r.label }, [s("title", { text: r.label + ": " + pct(r.hit_rate) })]));
      c.svg.appendChild(s("text", { x: c.X(i), y: y - 4, "text-anchor": "middle", text: pct(r.hit_rate) }));
      if (has(r.index_multiplier)) cost.push([i, r.index_multiplier]);
    });
    c.svg.appendChild(s("path", { class: "cost", d: path(cost, c.X, c.Y2) }));
    cost.forEach(function (p) { c.svg.appendChild(s("circle", { cx: c.X(p[0]), cy: c.Y2(p[1]), r: 3, fill: "#8a5a00" })); });
    sec.appendChild(c.svg);
    sec.appendChild(h("p", { class: "muted", text: "bars: hit-rate (left axis); dotted line: index cost relative to no overlap (right axis)" }));
  }

  // ---- routing -------------------------------------------------------------------------
  function show(name) {
    Object.keys(views).forEach(function (k) { views[k].hidden = k !== name; });
    document.querySelectorAll("nav a").forEach(function (a) {
      if (a.getAttribute("data-view") === name) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
    });
  }
  function flash(e) { e.classList.remove("flash"); void e.offsetWidth; e.classList.add("flash"); }
  function route() {
    var hash = decodeURIComponent(location.hash.slice(1));
    var colon = hash.indexOf(":"), kind = colon < 0 ? hash : hash.slice(0, colon), arg = colon < 0 ? "" : hash.slice(colon + 1);
    if (kind === "case" && caseEls[arg]) {
      show("cases");
      var art = caseEls[arg];
      if (art.hidden) showAll();
      art.querySelector("details").open = true;
      art.scrollIntoView({ block: "start" }); art.querySelector("summary").focus(); flash(art);
    } else if (kind === "cases") {
      show("cases");
      if (VERDICTS.indexOf(arg) >= 0) onlyVerdict(arg);
    } else if (kind === "span") {
      var c = data.cases.filter(function (x) { return x.nodeid === arg; })[0];
      show("documents");
      if (c && c.span_at && docEls[c.span_at.doc]) {
        docEls[c.span_at.doc].open = true; drawDocument(data.documents.filter(function (d) { return d.id === c.span_at.doc; })[0], docEls[c.span_at.doc]);
        var m = markEls[arg];
        if (m) { m.scrollIntoView({ block: "center" }); m.focus(); flash(m); }
      }
    } else if (kind === "chunk") {
      show("documents");
      var doc = arg.slice(0, arg.lastIndexOf("#"));
      if (docEls[doc]) {
        docEls[doc].open = true; drawDocument(data.documents.filter(function (d) { return d.id === doc; })[0], docEls[doc]);
        var w = docEls[doc].querySelector('[data-chunk="' + CSS.escape(arg) + '"]');
        if (w) { w.scrollIntoView({ block: "center" }); flash(w); }
      }
    } else if (views[kind]) {
      show(kind);
    } else {
      show("overview");
    }
  }

  var nav = h("nav", { "aria-label": "views" });
  var main = h("main", {});
  [["overview", "Overview"], ["cases", "Cases"], ["documents", "Documents"], ["lab", "The lab"]].concat(data.sweep ? [["sweep", "Sweep"]] : []).forEach(function (v) {
    nav.appendChild(h("a", { href: "#" + v[0], "data-view": v[0], text: v[1] }));
    views[v[0]] = h("section", { class: "view", id: "view-" + v[0], "data-view": v[0], "aria-label": v[1] });
    main.appendChild(views[v[0]]);
  });
  var header = h("header", {}, [h("h1", { text: "chunkrecall lab" }), nav]);
  document.body.appendChild(header);
  // a linked case scrolls to just below the sticky bar, however high the bar has wrapped
  function navHeight() { document.documentElement.style.setProperty("--nav-height", header.getBoundingClientRect().height + "px"); }
  navHeight();
  if (window.ResizeObserver) new ResizeObserver(navHeight).observe(header); else window.addEventListener("resize", navHeight);
  document.body.appendChild(main);
  overview(); cases(); documents(); labView();
  if (data.sweep) sweep();
  window.addEventListener("hashchange", route);
  window.addEventListener("beforeprint", function () {
    data.documents.forEach(function (d) { docEls[d.id].open = true; drawDocument(d, docEls[d.id]); });
    document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  });
  route();
  document.body.setAttribute("data-ready", "1");
})();
