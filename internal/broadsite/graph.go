// Package broadsite is the broad-crawl workload of issue 26: a link graph spread over many
// hosts (Graph), the loopback site that serves it with one listener per host on its own
// 127.x address and records what each host sees (Site, Report), and the politeness limit
// computed from the same graph (Limit): how long an ideal crawler that keeps every host
// busy at one page per DOWNLOAD_DELAY takes.
//
// jscrawl bench --hosts N --pages P runs it, and the broad-crawl tests of package main
// crawl it; Scrapy's counterpart is a site of many domains crawled with
// CONCURRENT_REQUESTS_PER_DOMAIN=1 and a DOWNLOAD_DELAY.
package broadsite

import (
	"fmt"
	"net/netip"
)

// Links is the number of links from each page to pages of other hosts.
const Links = 5

// Seed is the seed of the graph's pseudo-random cross-host links: every run, the bench's
// and the tests', crawls the same graph.
const Seed uint64 = 26

// MaxHosts is the number of hosts HostAddr can name: 127.0.1.1 to 127.0.254.254.
const MaxHosts = 254 * 254

// Page is one page of the site: page N (0-based) of host Host (0-based; host 0 is
// 127.0.1.1).
type Page struct {
	Host, N int
}

// Graph is the site's link graph: Hosts hosts of Pages pages each. Page k of host h links
// to page k+1 of host h (none from the last page) and to Links pages of other hosts, chosen
// by a pseudo-random function of Seed, h and k (the same links every run). A Graph is a
// value with no state: its methods are safe for concurrent use.
type Graph struct {
	Hosts, Pages int
}

// NewGraph returns the graph of hosts hosts of pages pages, or an error when either is
// below 1 or hosts is above MaxHosts.
func NewGraph(hosts, pages int) (Graph, error) {
	if hosts < 1 || hosts > MaxHosts {
		return Graph{}, fmt.Errorf("%d hosts: want 1 to %d", hosts, MaxHosts)
	}
	if pages < 1 {
		return Graph{}, fmt.Errorf("%d pages per host: want 1 or more", pages)
	}
	return Graph{Hosts: hosts, Pages: pages}, nil
}

// Len is the number of pages of the graph.
func (g Graph) Len() int { return g.Hosts * g.Pages }

// Starts are the pages a crawl starts from: page 0 of every host, in host order. With
// them every page is reachable through its host's chain of next-page links whatever the
// cross-host links, and the cross-host links only make pages known earlier.
func (g Graph) Starts() []Page {
	out := make([]Page, g.Hosts)
	for h := range out {
		out[h] = Page{Host: h}
	}
	return out
}

// Links returns the pages p links to: the next page of its host first (when p is not the
// last), then up to Links distinct pages of other hosts (none with one host; fewer when
// there are fewer other pages).
func (g Graph) Links(p Page) []Page {
	out := make([]Page, 0, 1+Links)
	if p.N+1 < g.Pages {
		out = append(out, Page{Host: p.Host, N: p.N + 1})
	}
	others := (g.Hosts - 1) * g.Pages
	want := min(Links, others)
	x := Seed ^ uint64(p.Host)<<32 ^ uint64(p.N)
	for base := len(out); len(out) < base+want; {
		x = splitmix64(x)
		q := Page{Host: (p.Host + 1 + int(x%uint64(g.Hosts-1))) % g.Hosts, N: int((x >> 32) % uint64(g.Pages))}
		if !contains(out, q) {
			out = append(out, q)
		}
	}
	return out
}

func contains(ps []Page, q Page) bool {
	for _, p := range ps {
		if p == q {
			return true
		}
	}
	return false
}

// splitmix64 is Steele, Lea and Flood's SplitMix64 step: a fixed, portable generator, so
// the graph does not depend on math/rand's algorithms.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// HostAddr returns the loopback address of host i (0-based): 127.0.1.1 for host 0, on to
// 127.0.1.254, then 127.0.2.1 and so on. Linux routes all of 127.0.0.0/8 to the loopback
// interface, so these need no setup there (macOS needs an alias per address).
func HostAddr(i int) netip.Addr {
	return netip.AddrFrom4([4]byte{127, 0, byte(1 + i/254), byte(1 + i%254)})
}

// HostOf returns the host index of a loopback address HostAddr returned, or -1.
func HostOf(a netip.Addr) int {
	a = a.Unmap()
	if !a.Is4() {
		return -1
	}
	b := a.As4()
	if b[0] != 127 || b[1] != 0 || b[2] < 1 || b[2] > 254 || b[3] < 1 || b[3] > 254 {
		return -1
	}
	return int(b[2]-1)*254 + int(b[3]-1)
}
