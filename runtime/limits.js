// Allocation guards: run in every VM before the prelude and the spider bundle. goja
// allocates what one call of these built-ins asks for at once, in Go, where a size past
// the address space is a fatal out-of-memory error (or a makeslice panic) that no catch
// sees. Each guard throws a RangeError before the allocation when the call would need more
// than maxBytes (JS_MAX_ALLOCATION_MB), then calls the original with its arguments already
// converted (so a valueOf or toString runs once). Strings count 2 bytes a character,
// array elements 16 bytes (a goja Value). It returns setMax(bytes), which changes the limit.
(function (g, bytes) {
  "use strict";
  // fastJoin: arrays up to this length joined with a separator of up to 64 characters
  // cannot pass maxChars (the common case, checked without conversions).
  let maxBytes, maxChars, maxElems, mib, fastJoin;
  const setMax = (b) => {
    maxBytes = b;
    maxChars = Math.floor(b / 2);
    maxElems = Math.floor(b / 16);
    mib = Math.round(b / 1048576);
    fastJoin = Math.floor(maxChars / 64);
  };
  setMax(bytes);
  const over = (what) => new RangeError(what + " (over JS_MAX_ALLOCATION_MB, " + mib + " MiB)");
  const apply = Reflect.apply;
  // call(f)(self, ...args) calls f, immune to later changes of Function.prototype.call.
  const call = (f) => Function.prototype.call.bind(f);
  const toInt = (v) => { const n = Math.trunc(+v); return n !== n ? 0 : n; };
  const toLength = (v) => { const n = toInt(v); return n <= 0 ? 0 : Math.min(n, Number.MAX_SAFE_INTEGER); };
  const replace = (o, name, f) => {
    Object.defineProperty(o, name, { value: f, writable: true, enumerable: false, configurable: true });
  };

  const S = g.String.prototype;
  const origRepeat = S.repeat, origPadStart = S.padStart, origPadEnd = S.padEnd;
  const callRepeat = call(origRepeat);
  replace(S, "repeat", {
    repeat(count) {
      if (typeof this === "string" && typeof count === "number" && (this.length * count <= maxChars || count === Infinity)) {
        return callRepeat(this, count); // the common case: no conversion
      }
      if (this === null || this === undefined) return apply(origRepeat, this, [count]);
      const s = String(this), n = toInt(count);
      if (s.length > 0 && n > 0 && n !== Infinity && s.length * n > maxChars) throw over("Invalid string length");
      return apply(origRepeat, s, [n === Infinity ? count : n]);
    },
  }.repeat);
  const pad = (orig) => {
    const callPad = call(orig);
    return function (maxLength, fillString) {
    if (typeof this === "string" && typeof maxLength === "number" && maxLength <= maxChars) {
      return callPad(this, maxLength, fillString);
    }
    if (this === null || this === undefined) return apply(orig, this, [maxLength, fillString]);
    const s = String(this), n = toLength(maxLength);
    const fill = fillString === undefined ? undefined : String(fillString);
    if (n > s.length && n > maxChars && fill !== "") throw over("Invalid string length");
    return apply(orig, s, [n, fill]);
    };
  };
  replace(S, "padStart", { padStart: pad(origPadStart) }.padStart);
  replace(S, "padEnd", { padEnd: pad(origPadEnd) }.padEnd);

  const A = g.Array.prototype;
  const origJoin = A.join, origFill = A.fill;
  const callJoin = call(origJoin), isArray = Array.isArray;
  replace(A, "join", {
    join(separator) {
      if (isArray(this) && this.length <= fastJoin && (separator === undefined || (typeof separator === "string" && separator.length <= 64))) {
        return callJoin(this, separator);
      }
      if (this === null || this === undefined) return apply(origJoin, this, [separator]);
      const o = Object(this), n = toLength(o.length);
      const sep = separator === undefined ? "," : String(separator);
      if (n > maxChars || (n > 1 && (n - 1) * sep.length > maxChars)) throw over("Invalid string length");
      return apply(origJoin, o, [sep]);
    },
  }.join);
  const relative = (v, n, dflt) => {
    if (v === undefined) return dflt;
    const i = toInt(v);
    return i < 0 ? Math.max(n + i, 0) : Math.min(i, n);
  };
  replace(A, "fill", {
    fill(value, start, end) {
      if (this === null || this === undefined) return apply(origFill, this, [value, start, end]);
      const o = Object(this), n = toLength(o.length);
      const from = relative(start, n, 0), to = relative(end, n, n);
      if (to - from > maxElems) throw over("Invalid array length");
      return apply(origFill, o, [value, from, to]);
    },
  }.fill);

  // A constructor is replaced by a function that checks, then constructs the original with
  // the same new.target. It shares the original's prototype (instanceof holds; goja's
  // instanceof refuses a Proxy), statics and [[Prototype]], so subclasses and species work,
  // and prototype.constructor names it.
  const guardCtor = (name, bytesOf, what) => {
    const C = g[name];
    if (typeof C !== "function") return;
    const W = {
      [name]: function (...args) {
        if (new.target === undefined) return apply(C, undefined, args); // throws: needs new
        if (bytesOf(args) > maxBytes) throw over(what);
        return Reflect.construct(C, args, new.target === W ? C : new.target);
      },
    }[name];
    for (const k of Reflect.ownKeys(C)) {
      if (k !== "prototype") Object.defineProperty(W, k, Object.getOwnPropertyDescriptor(C, k));
    }
    Object.defineProperty(W, "prototype", { value: C.prototype, writable: false, enumerable: false, configurable: false });
    Object.setPrototypeOf(W, Object.getPrototypeOf(C));
    Object.defineProperty(C.prototype, "constructor", { value: W, writable: true, enumerable: false, configurable: true });
    Object.defineProperty(g, name, { value: W, writable: true, enumerable: false, configurable: true });
  };
  const bufferBytes = (args) => toInt(args[0]);
  guardCtor("ArrayBuffer", bufferBytes, "Array buffer allocation failed");
  guardCtor("SharedArrayBuffer", bufferBytes, "Array buffer allocation failed");
  const isBuffer = (v) => v instanceof g.ArrayBuffer || (typeof g.SharedArrayBuffer === "function" && v instanceof g.SharedArrayBuffer);
  for (const name of ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array",
    "Int32Array", "Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"]) {
    const bpe = g[name] ? g[name].BYTES_PER_ELEMENT : 1;
    guardCtor(name, (args) => {
      const a = args[0];
      if (a === null || (typeof a !== "object" && typeof a !== "function")) return toInt(a) * bpe;
      if (isBuffer(a)) return 0; // a view: no allocation
      const n = a.length; // an array-like: its length is what is allocated
      return typeof n === "number" ? toLength(n) * bpe : 0;
    }, "Invalid typed array length");
  }
  return setMax;
})
