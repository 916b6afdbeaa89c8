/*
 * report_selftest.js: run inside ipcc report's page by report_browser.sh (after the page's
 * own script): clicks a header of the functions table, a box of the flame graph and the cycle
 * tree's buttons, as a person would, and writes what happened to <body data-selftest>.
 */
(function () {
  'use strict';
  var out = [];
  try {
    var t = document.getElementById('functions-table'), th = t.tHead.rows[0].cells;
    var column = function (i, f) {
      return Array.prototype.map.call(t.tBodies[0].rows, function (r) { return f(r.cells[i]); });
    };
    th[3].click(); /* function: by name */
    var names = column(3, function (c) { return c.textContent; });
    var sorted = names.slice().sort(function (a, b) { return a.localeCompare(b); });
    out.push(names.join('\n') === sorted.join('\n') ? 'sort-text-ok' : 'sort-text-bad');
    th[1].click(); /* samples: most first */
    var v = column(1, function (c) { return parseFloat(c.getAttribute('data-v')); });
    out.push(v.every(function (x, i) { return i === 0 || v[i - 1] >= x; }) ? 'sort-num-ok'
                                                                         : 'sort-num-bad');
    /* The narrowest function box fills the width when clicked; "whole graph" undoes it. */
    var fn = null;
    Array.prototype.forEach.call(document.querySelectorAll('svg.flame g.f'), function (g) {
      if (g.querySelector('rect').getAttribute('y') === '0' &&
          (!fn || parseFloat(g.getAttribute('data-w')) < parseFloat(fn.getAttribute('data-w'))))
        fn = g;
    });
    var width = function (g) { return parseFloat(g.querySelector('rect').getAttribute('width')); };
    fn.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    out.push(Math.abs(width(fn) - 1200) < 0.5 ? 'zoom-ok' : 'zoom-bad:' + width(fn));
    document.querySelector('.reset').click();
    out.push(Math.abs(width(fn) - 1200 * parseFloat(fn.getAttribute('data-w'))) < 0.5
                 ? 'unzoom-ok' : 'unzoom-bad:' + width(fn));
    document.querySelector('button[data-open="0"][data-for="cycles"]').click();
    out.push(document.querySelectorAll('#cycles details[open]').length === 0 ? 'collapse-ok'
                                                                             : 'collapse-bad');
    document.querySelector('button[data-open="1"][data-for="cycles"]').click();
    out.push(document.querySelectorAll('#cycles details:not([open])').length === 0
                 ? 'expand-ok' : 'expand-bad');
  } catch (e) {
    out.push('error:' + e);
  }
  document.body.setAttribute('data-selftest', out.join(' '));
}());
