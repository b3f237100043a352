// Preload for running Crawlee's examples under Node against jscrawl's loopback fixture site
// (crawlee_examples_test.go): `node --import ./connect-to.mjs example.mjs`.
//
// JSCRAWL_CONNECT_TO holds the same "host:port=ip:port" rules as jscrawl's
// DOWNLOAD_CONNECT_TO setting (comma-separated). A connection Node opens to a host:port a
// rule names goes to the rule's ip:port instead; the TLS server name and the certificate
// check stay the host's (trust the test CA with NODE_EXTRA_CA_CERTS), and the Host header
// stays the URL's, as curl's --connect-to. Host names the rules name resolve to 127.0.0.1
// through dns.lookup (a client that resolves before connecting: its TLS server name still
// finds the rule), and a connection to 127.0.0.1:80 or :443 that no rule names throws
// instead of reaching whatever listens there. JSCRAWL_CONNECT_TO_DEBUG=1 logs each
// connection to stderr.
import dns from "node:dns";
import net from "node:net";

const rules = new Map();
for (const rule of (process.env.JSCRAWL_CONNECT_TO ?? "").split(",")) {
    const [from, to] = rule.trim().split("=");
    if (!from || !to) continue;
    const i = to.lastIndexOf(":");
    rules.set(from.toLowerCase(), { host: to.slice(0, i), port: Number(to.slice(i + 1)) });
}
const hosts = new Set([...rules.keys()].map((k) => k.slice(0, k.lastIndexOf(":"))));

// target returns where a connection to host:port goes, or undefined when no rule names it.
function target(host, port, tls) {
    if (typeof host !== "string") return undefined;
    const p = Number(port) || (tls ? 443 : 80);
    return rules.get(`${host.toLowerCase()}:${p}`);
}

// connect rewrites the options of net.Socket.prototype.connect: (options[, cb]), the
// normalized [options, cb] array net.connect passes, or (port[, host][, cb]).
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
    let options;
    let rest;
    if (Array.isArray(args[0])) {
        [options, ...rest] = args[0];
    } else if (args[0] !== null && typeof args[0] === "object") {
        [options, ...rest] = args;
    } else if (typeof args[0] === "number" || typeof args[0] === "string") {
        options = { port: args[0], host: typeof args[1] === "string" ? args[1] : "localhost" };
        rest = args.slice(typeof args[1] === "string" ? 2 : 1);
    }
    if (options && !options.path) {
        const tls = this.encrypted || options.servername !== undefined;
        let to = target(options.host ?? "localhost", options.port, tls);
        if (!to && net.isIP(options.host ?? "") && options.servername) {
            to = target(options.servername, options.port, tls); // resolved by dns.lookup below
        }
        if (!to && options.host === "127.0.0.1" && [80, 443].includes(Number(options.port) || (tls ? 443 : 80))) {
            throw new Error(`connect-to.mjs: a connection to 127.0.0.1:${options.port} that no rule names (a host resolved through dns.lookup, over http)`);
        }
        if (process.env.JSCRAWL_CONNECT_TO_DEBUG) {
            process.stderr.write(`connect-to.mjs: ${options.host}:${options.port} -> ${to ? to.host + ":" + to.port : "unchanged"}\n`);
        }
        if (to) {
            const copy = { ...options, host: to.host, port: to.port };
            delete copy.lookup;
            return connect.call(this, copy, ...rest);
        }
    }
    return connect.apply(this, args);
};

// lookup answers 127.0.0.1 for the hosts the rules name (their connections are rewritten
// above); other names resolve as before.
const lookup = dns.lookup;
dns.lookup = function (hostname, options, callback) {
    if (typeof options === "function") {
        callback = options;
        options = {};
    }
    if (typeof hostname === "string" && hosts.has(hostname.toLowerCase())) {
        const opts = typeof options === "number" ? { family: options } : (options ?? {});
        const addr = { address: "127.0.0.1", family: 4 };
        process.nextTick(() => (opts.all ? callback(null, [addr]) : callback(null, addr.address, addr.family)));
        return {};
    }
    return lookup.call(this, hostname, options, callback);
};
const lookupPromise = dns.promises.lookup;
dns.promises.lookup = async function (hostname, options) {
    if (typeof hostname === "string" && hosts.has(hostname.toLowerCase())) {
        const addr = { address: "127.0.0.1", family: 4 };
        return options?.all ? [addr] : addr;
    }
    return lookupPromise.call(this, hostname, options);
};
