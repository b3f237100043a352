// The runtime prelude: runs in every VM before the spider bundle. It returns an object of
// hidden helpers that Go keeps; nothing here is a public API.
(function (g, hooks) {
  "use strict";
  // goja lacks Symbol.asyncIterator; esbuild's helpers fall back to this registered symbol.
  if (typeof Symbol.asyncIterator === "undefined") {
    Object.defineProperty(Symbol, "asyncIterator", { value: Symbol.for("Symbol.asyncIterator") });
  }
  const INNER = Symbol("jscrawl.inner");

  // asyncGen replaces esbuild's __asyncGenerator: it returns an async iterator that keeps
  // the inner sync generator, so the engine can drive a callback without a promise per
  // yielded value. The standard async iterator (esbuild's, for user code that iterates with
  // for-await) is built only when next, throw or return is first called: the engine's
  // driver never calls them, and building it costs a dozen closures per callback.
  // IS_AWAIT marks the prototype of esbuild's __await (the Await of asyncGen), so the driver
  // tells an awaited value from a yielded one with a property read instead of instanceof
  // (which costs a native call and allocations in goja, once per yielded value).
  const IS_AWAIT = Symbol("jscrawl.isAwait");
  const REAL = Symbol("jscrawl.asyncIterator");
  // origAsyncGenerator is esbuild's own __asyncGenerator, kept once rather than in each
  // iterator: every bundle has the same helper (the same esbuild), a reloaded one included.
  let origAsyncGenerator = null;
  const realIter = (it) => {
    let r = it[REAL];
    if (r === undefined) {
      const inner = it[INNER];
      r = origAsyncGenerator(undefined, undefined, function () { return inner; });
      Object.defineProperty(it, REAL, { value: r });
    }
    return r;
  };
  class AsyncGen {
    next(v) { return realIter(this).next(v); }
    throw(e) { return realIter(this).throw(e); }
    return(v) { return realIter(this).return(v); }
    [Symbol.asyncIterator]() { return this; }
  }
  const asyncGenProto = AsyncGen.prototype;
  function asyncGen(orig, self, args, gen, Await) {
    if (Await.prototype[IS_AWAIT] !== true) Object.defineProperty(Await.prototype, IS_AWAIT, { value: true });
    origAsyncGenerator = orig;
    // An object literal with the prototype and a symbol-keyed property set by assignment
    // (out of Object.keys, for-in and JSON): 8 allocations, where new AsyncGen with
    // Object.defineProperty of each property cost 31.
    const it = { __proto__: asyncGenProto };
    it[INNER] = gen.apply(self, args);
    return it;
  }

  // isThenable: a value whose then is a function of its own or of a prototype other than
  // Object.prototype. A then a spider put on Object.prototype would otherwise make every item
  // a thenable, and the driver would wait for it forever.
  const objectProto = Object.prototype;
  const hasOwn = Object.prototype.hasOwnProperty;
  function ownThen(x, then) {
    return then !== objectProto.then || hasOwn.call(x, "then");
  }
  function isThenable(x) {
    if (x === null || (typeof x !== "object" && typeof x !== "function")) return false;
    const then = x.then;
    return typeof then === "function" && ownThen(x, then);
  }

  // drive consumes whatever a callback returned: a lowered async generator, a sync
  // generator or iterator, an async iterable, a promise, an array or a single value.
  // onValue(v) gets each produced value (arrays are flattened one level); onDone(err) is
  // called exactly once, with undefined on success.
  // Scopes: the work a callback starts while its code runs (its synchronous start and every
  // step of a generator, which is all of a lowered async *callback) is registered in the
  // callback's scope, so a failing callback can cancel what it still awaits (structured
  // concurrency, like asyncio's TaskGroup). cur.scope is the scope of the callback code
  // running now, set only while it runs (null: none). It lives in an object the host keeps,
  // so that after a JS_CALLBACK_TIMEOUT interrupt (which skips finally blocks and so leaves
  // it set) the host reads which callback ran away without running JS.
  const cur = { scope: null };
  // hostValue(id, v) hands a produced value to the host and returns what it returned (a
  // promise: "pause until it settles"); hostDone(id, e) ends run id (e undefined: success).
  // Both are made once per VM: a closure per callback costs goja about nine allocations.
  const hostValue = hooks.value;
  const hostDone = hooks.done;
  // A run is one callback the host drives: its scope (cancels, finals and tag, what
  // __jscrawlScope() returns while its code runs) and the driver's state, with the
  // driver's steps as methods of runProto rather than closures (the fixed cost of a
  // callback used to be six of them).
  // tag identifies the callback to the host (which callback started a download).
  // cancels and finals are made on the first registration (most callbacks start no
  // download and receive no browser page). finals run when the scope ends, whether it
  // failed or not (a browser page a callback received is closed then).
  // Eight properties at most: goja's object takes a ninth at the cost of four allocations.
  const newRun = (id, tag) => ({
    __proto__: runProto, cancels: null, finals: null, tag: tag || 0,
    id: id, finished: false, gen: null, resumeFn: null, failFn: null,
  });
  const inScope = (scope, f) => {
    const prev = cur.scope;
    cur.scope = scope;
    try { return f(); } finally { cur.scope = prev; }
  };
  const cancelScope = (scope) => {
    if (scope.cancels === null) return;
    for (const c of scope.cancels) { try { c(); } catch (e) { /* already settled */ } }
    scope.cancels.clear();
  };
  const endScope = (scope, e) => {
    if (e !== undefined) cancelScope(scope);
    if (scope.finals === null) return;
    for (const f of scope.finals) { try { f(); } catch (err) { /* a final must not throw */ } }
    scope.finals.clear();
  };
  Object.defineProperty(g, "__jscrawlScope", { value: () => cur.scope });
  // __jscrawlBindScope(fn) returns fn bound to the current scope (if any): called later, from
  // a promise continuation, it still runs in the callback's scope.
  Object.defineProperty(g, "__jscrawlBindScope", {
    value: (fn) => {
      const scope = cur.scope;
      if (scope === null) return fn;
      return function (...args) { return inScope(scope, () => fn.apply(this, args)); };
    },
  });

  // asyncFn replaces esbuild's __async (lowered async functions): an async function called
  // while a callback's code runs keeps that callback's scope in every later step, after each
  // await, so the downloads it starts are the callback's too.
  function asyncFn(orig, self, args, gen) {
    const scope = cur.scope;
    if (scope === null) return orig(self, args, gen);
    return orig(self, args, function () {
      const it = gen.apply(this, arguments);
      const run = (f, v) => {
        const prev = cur.scope;
        cur.scope = scope;
        try { return f.call(it, v); } finally { cur.scope = prev; }
      };
      return { next: (v) => run(it.next, v), throw: (e) => run(it.throw, e) };
    });
  }
  Object.defineProperty(g, "__jscrawlAsync", { value: asyncFn });

  // call runs fn with self and n arguments (a0 and a1, or the array a0 when n > 2) in a new
  // scope, run id, and drives its result in the same scope. wrap, when given, transforms the
  // result before it is driven (spider middlewares); tag, when given, is the scope's tag.
  // The arguments come one by one rather than in an array the host makes (fewer
  // allocations); cur.scope is restored without a finally block, as inScope's is on a
  // throw, and neither runs after an interrupt (the host reads cur.scope then).
  function call(id, tag, wrap, fn, self, n, a0, a1) {
    const run = newRun(id, tag);
    const prev = cur.scope;
    let result;
    cur.scope = run;
    try {
      if (typeof wrap !== "function") {
        result = n === 0 ? fn.call(self) : n === 1 ? fn.call(self, a0) : n === 2 ? fn.call(self, a0, a1) : fn.apply(self, a0);
      } else {
        let r;
        try {
          r = n === 0 ? fn.call(self) : n === 1 ? fn.call(self, a0) : n === 2 ? fn.call(self, a0, a1) : fn.apply(self, a0);
        } catch (e) {
          // The wrapper sees the error as a failing result (processSpiderException).
          r = { then(_, reject) { reject(e); } };
        }
        result = wrap(r);
      }
    } catch (e) {
      cur.scope = prev;
      run.finished = true;
      endScope(run, e);
      return hostDone(id, e);
    }
    cur.scope = prev;
    run.drive(result);
  }

  // drive consumes whatever a callback returned (run id, a new untagged scope): see
  // runProto.drive.
  function drive(id, result) {
    newRun(id, 0).drive(result);
  }

  // The driver. drive consumes whatever a callback returned: a lowered async generator, a
  // sync generator or iterator, an async iterable, a promise, an array or a single value.
  // Each produced value goes to the host (arrays are flattened one level); end tells the
  // host exactly once, with undefined on success.
  // Scopes: the work a callback starts while its code runs (its synchronous start and every
  // step of a generator, which is all of a lowered async *callback) is registered in the
  // callback's scope, so a failing callback can cancel what it still awaits (structured
  // concurrency, like asyncio's TaskGroup). cur.scope is the scope of the callback code
  // running now, set only while it runs (null: none). It lives in an object the host keeps,
  // so that after a JS_CALLBACK_TIMEOUT interrupt (which skips finally blocks and so leaves
  // it set) the host reads which callback ran away without running JS.
  const runProto = {
    end(e) {
      if (this.finished) return;
      this.finished = true;
      endScope(this, e);
      hostDone(this.id, e);
    },
    // emit returns what the host returned for the last value: a promise means "pause:
    // pull the next value only when it settles" (backpressure on start()).
    emit(v) {
      if (!Array.isArray(v)) return hostValue(this.id, v);
      let pause;
      for (let i = 0; i < v.length; i++) pause = hostValue(this.id, v[i]) || pause;
      return pause;
    },
    drive(result) {
      try {
        if (result === undefined || result === null) return this.end();
        if (typeof result === "object" && result[INNER]) {
          this.gen = result[INNER];
          return this.step("next", undefined);
        }
        if (isThenable(result)) {
          return result.then((v) => this.drive(v), (e) => this.end(e));
        }
        if (typeof result === "object" && !Array.isArray(result) && typeof result.next === "function") {
          if (typeof result[Symbol.asyncIterator] === "function" && typeof result[Symbol.iterator] !== "function") {
            return asyncIter(result[Symbol.asyncIterator](), this);
          }
          return syncIter(result, this);
        }
        if (typeof result === "object" && typeof result[Symbol.asyncIterator] === "function") {
          return asyncIter(result[Symbol.asyncIterator](), this);
        }
        const pause = this.emit(result);
        if (pause) pause.then(() => this.end(), (e) => this.end(e)); else this.end();
      } catch (e) {
        this.end(e);
      }
    },
    // resume and fail go on with the generator once a pause or an await settles; made on
    // first use (most callbacks never pause).
    resume() { return this.resumeFn || (this.resumeFn = () => this.step("next", undefined)); },
    fail() { return this.failFn || (this.failFn = (e) => this.step("throw", e)); },
    // step drives the inner sync generator of a lowered async generator (fast path).
    step(k, v) {
      const gen = this.gen;
      for (;;) {
        let r;
        const prev = cur.scope;
        try {
          cur.scope = this;
          r = gen[k](v);
        } catch (e) {
          cur.scope = prev;
          return this.end(e);
        }
        cur.scope = prev;
        if (r.done) return this.end();
        const x = r.value;
        if (x !== null && typeof x === "object" && x[IS_AWAIT] === true) {
          const star = x[1];
          Promise.resolve(x[0]).then(
            (y) => this.step("next", star ? { done: y.done, value: y.value } : y), this.fail());
          return;
        }
        let pause;
        // Inlined isThenable and emit: this loop runs once per yielded value.
        if (x !== null && typeof x === "object") {
          const then = x.then;
          if (typeof then === "function" && ownThen(x, then)) {
            x.then((y) => {
              let p;
              try { p = this.emit(y); } catch (e) { return this.step("throw", e); }
              if (p) p.then(this.resume(), this.fail()); else this.step("next", undefined);
            }, this.fail());
            return;
          }
          try {
            pause = Array.isArray(x) ? this.emit(x) : hostValue(this.id, x);
          } catch (e) {
            k = "throw"; v = e;
            continue;
          }
        } else {
          try { pause = this.emit(x); } catch (e) { k = "throw"; v = e; continue; }
        }
        if (pause) { pause.then(this.resume(), this.fail()); return; }
        k = "next"; v = undefined;
      }
    },
  };

  function syncIter(it, run) {
    const emit = (v) => run.emit(v);
    const done = (e) => run.end(e);
    const resume = () => step("next", undefined);
    const fail = (e) => step("throw", e);
    const step = (k, v) => {
      for (;;) {
        let r;
        try {
          r = inScope(run, () => (k === "throw" ? (it.throw ? it.throw(v) : (() => { throw v; })()) : it.next(v)));
        } catch (e) {
          return done(e);
        }
        if (r.done) return done();
        const x = r.value;
        if (isThenable(x)) {
          x.then((y) => {
            let p;
            try { p = emit(y); } catch (e) { return fail(e); }
            if (p) p.then(resume, fail); else resume();
          }, fail);
          return;
        }
        let pause;
        try { pause = emit(x); } catch (e) { k = "throw"; v = e; continue; }
        if (pause) { pause.then(resume, fail); return; }
        k = "next"; v = undefined;
      }
    };
    step("next", undefined);
  }

  // asyncIter pulls an async iterator; each next() runs in the callback's scope, so code an
  // iterator runs when pulled (a base spider calling the user's callback, a hand-written
  // iterable) starts its downloads in that scope.
  function asyncIter(it, run) {
    const done = (e) => run.end(e);
    const next = () => {
      let p;
      try { p = inScope(run, () => it.next()); } catch (e) { return done(e); }
      Promise.resolve(p).then((r) => {
        if (r.done) return done();
        let pause;
        try { pause = run.emit(r.value); } catch (e) { return done(e); }
        if (pause) pause.then(next, done); else next();
      }, done);
    };
    next();
  }

  // inspect renders a console argument the way Node's util.format does for common cases.
  function inspect(v) {
    if (typeof v === "string") return v;
    if (v instanceof Error) return v.stack || String(v);
    if (typeof v === "function") return "[Function: " + (v.name || "anonymous") + "]";
    if (typeof v === "object" && v !== null) {
      try {
        const s = JSON.stringify(v);
        if (s !== undefined) return s;
      } catch (e) { /* circular */ }
      return Object.prototype.toString.call(v);
    }
    return String(v);
  }
  const log = (level) => function () {
    const parts = [];
    for (let i = 0; i < arguments.length; i++) parts.push(inspect(arguments[i]));
    hooks.log(level, parts.join(" "));
  };
  const console = {
    log: log("info"), info: log("info"), debug: log("debug"), trace: log("debug"),
    warn: log("warn"), error: log("error"),
  };
  Object.defineProperty(g, "console", { value: console, writable: true, configurable: true });
  // Some npm packages read process.env.NODE_ENV: give them an empty, host-free process.
  Object.defineProperty(g, "process", {
    value: Object.freeze({ env: Object.freeze({}), argv: Object.freeze([]), platform: "jscrawl" }),
    writable: true, configurable: true,
  });
  Object.defineProperty(g, "__jscrawlAsyncGen", { value: asyncGen });

  // queueMicrotask, AbortController and AbortSignal (WHATWG), which goja lacks.
  const hidden = (name, value) => Object.defineProperty(g, name, { value, writable: true, configurable: true });
  hidden("queueMicrotask", (fn) => {
    if (typeof fn !== "function") throw new TypeError("queueMicrotask needs a function");
    Promise.resolve().then(fn);
  });
  const domError = (name, message) => { const e = new Error(message); e.name = name; return e; };
  const KEY = Symbol("AbortSignal");
  const abortSignal = (s, reason) => {
    if (s.aborted) return;
    s.aborted = true;
    s.reason = reason === undefined ? domError("AbortError", "This operation was aborted") : reason;
    const ev = { type: "abort", target: s };
    if (typeof s.onabort === "function") s.onabort(ev);
    for (const l of s[KEY].slice()) {
      if (l.once) s.removeEventListener("abort", l.fn);
      l.fn.call(s, ev);
    }
  };
  class AbortSignal {
    constructor(key) {
      if (key !== KEY) throw new TypeError("Illegal constructor: use new AbortController().signal");
      this.aborted = false;
      this.reason = undefined;
      this.onabort = null;
      Object.defineProperty(this, KEY, { value: [] });
    }
    addEventListener(type, fn, opts) {
      if (type !== "abort" || typeof fn !== "function") return;
      if (this[KEY].some((l) => l.fn === fn)) return;
      this[KEY].push({ fn, once: !!(opts && opts.once) });
    }
    removeEventListener(type, fn) {
      const i = this[KEY].findIndex((l) => l.fn === fn);
      if (i >= 0) this[KEY].splice(i, 1);
    }
    throwIfAborted() { if (this.aborted) throw this.reason; }
    static abort(reason) { const s = new AbortSignal(KEY); abortSignal(s, reason); return s; }
    static timeout(ms) {
      const s = new AbortSignal(KEY);
      setTimeout(() => abortSignal(s, domError("TimeoutError", "The operation timed out after " + ms + " ms")), ms);
      return s;
    }
    static any(signals) {
      const s = new AbortSignal(KEY);
      for (const x of signals) if (x.aborted) { abortSignal(s, x.reason); return s; }
      for (const x of signals) x.addEventListener("abort", () => abortSignal(s, x.reason), { once: true });
      return s;
    }
  }
  class AbortController {
    constructor() { this.signal = new AbortSignal(KEY); }
    abort(reason) { abortSignal(this.signal, reason); }
  }
  hidden("AbortSignal", AbortSignal);
  hidden("AbortController", AbortController);
  return { drive: drive, call: call, inspect: inspect, cur: cur };
})
