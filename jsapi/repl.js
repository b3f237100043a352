// The globals of `jscrawl shell`, installed on the spider's first VM by REPL. Called with
// the global object, the "jscrawl" exports, the spider instance and the Go hooks
// { print(line), bound(response) }; returns { inspect(value), setResponse(response) }.
(function (g, api, spider, hooks) {
  "use strict";
  const { Request, Response, Selector, SelectorList, Headers } = api;
  const moduleFetch = g.fetch;

  function quote(s) {
    return "'" + s.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t") + "'";
  }
  function short(s, n) { return s.length > n ? s.slice(0, n) + "..." : s; }
  const ident = /^[A-Za-z_$][\w$]*$/;

  // show renders a value the way Node's REPL does for common cases: strings quoted,
  // objects and arrays on one line when short, nested ones cut at depth 3.
  function show(v, depth, seen, key) {
    switch (typeof v) {
      case "string": return quote(v);
      case "undefined": return "undefined";
      case "bigint": return String(v) + "n";
      case "symbol": return v.toString();
      case "number": return Object.is(v, -0) ? "-0" : String(v);
      case "boolean": return String(v);
      case "function": {
        const isClass = /^class\b/.test(Function.prototype.toString.call(v));
        // Go natives are named after their Go function: show the property name instead.
        let name = v.name || "(anonymous)";
        if (/[\/*]/.test(v.name)) name = key || "(native)";
        return (isClass ? "[class " : "[Function: ") + name + "]";
      }
    }
    if (v === null) return "null";
    if (v instanceof Error) return v.stack || String(v);
    if (v instanceof Selector) return "<Selector data=" + quote(short(String(v), 70)) + ">";
    if (v instanceof Response || v instanceof Request) return String(v);
    if (v instanceof Promise) return "Promise { <pending> }";
    if (v instanceof Date) return isNaN(v) ? "Invalid Date" : v.toISOString();
    if (v instanceof RegExp) return String(v);
    if (seen.indexOf(v) >= 0) return "[Circular]";
    const isArr = Array.isArray(v);
    if (depth > 2) return isArr ? "[Array]" : "[Object]";
    seen = seen.concat([v]);
    const parts = [];
    if (isArr) {
      const n = Math.min(v.length, 100);
      for (let i = 0; i < n; i++) parts.push(show(v[i], depth + 1, seen));
      if (v.length > n) parts.push("... " + (v.length - n) + " more items");
    } else if (v instanceof Map || v instanceof Headers) {
      const sep = v instanceof Map ? " => " : ": ";
      for (const [k, x] of v) parts.push(show(k, depth + 1, seen) + sep + show(x, depth + 1, seen));
    } else if (v instanceof Set) {
      for (const x of v) parts.push(show(x, depth + 1, seen));
    } else {
      for (const k of Object.keys(v)) parts.push((ident.test(k) ? k : quote(k)) + ": " + show(v[k], depth + 1, seen, k));
    }
    let prefix = "";
    const proto = Object.getPrototypeOf(v);
    if (v instanceof SelectorList) prefix = "SelectorList(" + v.length + ") ";
    else if (v instanceof Map) prefix = "Map(" + v.size + ") ";
    else if (v instanceof Headers) prefix = "Headers ";
    else if (v instanceof Set) prefix = "Set(" + v.size + ") ";
    else if (!isArr && proto === null) prefix = "[Object: null prototype] ";
    else if (!isArr && proto !== Object.prototype && proto.constructor && proto.constructor.name) prefix = proto.constructor.name + " ";
    const [open, close] = isArr ? ["[", "]"] : ["{", "}"];
    if (parts.length === 0) return prefix + open + close;
    const one = prefix + open + " " + parts.join(", ") + " " + close;
    if (one.length <= 76 && one.indexOf("\n") < 0) return one;
    const pad = "  ".repeat(depth + 1);
    let rows = parts;
    if (isArr && parts.length > 6 && parts.every((p) => p.length <= 16 && p.indexOf("\n") < 0)) {
      // Many short values (numbers, short strings): several a row, as Node does.
      rows = [];
      let row = "";
      for (const p of parts) {
        if (row && pad.length + row.length + p.length + 2 > 80) { rows.push(row.slice(0, -1)); row = ""; }
        row += p + ", ";
      }
      rows.push(row.slice(0, -2));
      return prefix + open + "\n" + rows.map((r) => pad + r).join("\n") + "\n" + "  ".repeat(depth) + close;
    }
    return prefix + open + "\n" + rows.map((p) => pad + p).join(",\n") + "\n" + "  ".repeat(depth) + close;
  }
  const inspect = (v) => show(v, 0, []);

  // console writes to the shell's output; strings are printed as they are.
  const line = function () {
    const parts = [];
    for (let i = 0; i < arguments.length; i++) parts.push(typeof arguments[i] === "string" ? arguments[i] : inspect(arguments[i]));
    hooks.print(parts.join(" "));
  };
  g.console = { log: line, info: line, debug: line, trace: line, warn: line, error: line };

  function setResponse(r) {
    g.response = r;
    g.request = r ? r.request : undefined;
    if (r) hooks.bound(r);
    return r;
  }

  // fetch(url | Request, init?) downloads through the crawler and re-binds response and
  // request (Scrapy shell's fetch).
  g.fetch = function fetch(input, init) {
    return moduleFetch(input, init).then(setResponse);
  };
  g.spider = spider;
  g.response = undefined;
  g.request = undefined;
  return { inspect, setResponse };
})
