// Package bloomsimdprom exports named libbloomsimd filters to Prometheus: one
// gauge per figure, each under the bloomsimd_ prefix with a filter label.
//
//	c := bloomsimdprom.NewCollector()
//	c.Add("seen", seen)              // a Concurrent filter, or see AddLocked
//	prometheus.MustRegister(c)
//	http.Handle("/metrics", promhttp.Handler())
//
// Every value is a field of the library (bloomsimd_get_info and
// bloomsimd_get_fill_info, through the bloomsimd package's Info and
// FillInfo); this package reports them and derives none. What each means,
// with alert rules for 80% of capacity and for the FPR above target, is in
// docs/OPERATIONS.md.
//
// A scrape reads every bit of each filter once (FillInfo: about 1 ms per
// 16 MiB), on the scraping goroutine. That is a read, so the bloomsimd
// package's rules apply: a filter written to while it is scraped must be
// Concurrent, or be added with AddLocked and the lock its writers hold.
//
// This package is its own module so that the bloomsimd package itself keeps
// no dependency.
package bloomsimdprom

import (
	"fmt"
	"sort"
	"sync"

	bloomsimd "github.com/libbloomsimd/libbloomsimd/bindings/go"
	"github.com/prometheus/client_golang/prometheus"
)

// The gauges, in the order they are described and collected.
var (
	descItems = desc("items",
		"Keys the filter counted (insert-and-report-new; every key of a scalable filter or window).")
	descCapacity = desc("capacity",
		"Keys the filter was sized for (a scalable filter: its first layer; a window: each generation).")
	descBits        = desc("bits", "Bits of the filter's bit arrays, all layers.")
	descMemoryBytes = desc("memory_bytes", "Bytes of the filter's bit arrays, all layers.")
	descLayers      = desc("layers", "Layers: 1, a scalable filter's layers, a window's generations.")
	descFillRatio   = desc("fill_ratio", "Share of the filter's bits that are set.")
	descEstimated   = desc("estimated_items", "Distinct keys estimated from the bits set.")
	descPredicted   = desc("predicted_fpr",
		"False-positive rate of a lookup now: the filter's FPR model at its estimated keys.")
	descTarget = desc("target_fpr", "False-positive rate the filter was sized for.")
	descLoad   = desc("load_ratio",
		"Share of its capacity the filter has taken (a scalable filter: of its first layer; alert at 0.8).")
)

func desc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc("bloomsimd_"+name, help, []string{"filter"}, nil)
}

type entry struct {
	f    *bloomsimd.Filter
	lock sync.Locker // held while the filter is read; nil: none
}

// Collector is a prometheus.Collector of named filters. Its methods are
// safe to call from any goroutine, also while it is being scraped.
type Collector struct {
	mu      sync.Mutex
	filters map[string]entry
}

// NewCollector returns a Collector with no filters.
func NewCollector() *Collector { return &Collector{filters: map[string]entry{}} }

// Add exports f under the label filter=name. The filter must be Concurrent
// if anything writes to it while it is scraped (else use AddLocked). An
// error if name is empty or already taken, or f is nil.
func (c *Collector) Add(name string, f *bloomsimd.Filter) error { return c.add(name, f, nil) }

// AddLocked is Add for a filter that is not Concurrent and is written to
// while scraped: lock is held while the filter is read (the read lock of the
// RWMutex its writers take, say: mu.RLocker()).
func (c *Collector) AddLocked(name string, f *bloomsimd.Filter, lock sync.Locker) error {
	if lock == nil {
		return fmt.Errorf("bloomsimdprom: filter %q: nil lock", name)
	}
	return c.add(name, f, lock)
}

func (c *Collector) add(name string, f *bloomsimd.Filter, lock sync.Locker) error {
	if name == "" || f == nil {
		return fmt.Errorf("bloomsimdprom: a filter needs a name and a non-nil *Filter")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, taken := c.filters[name]; taken {
		return fmt.Errorf("bloomsimdprom: a filter named %q is already exported", name)
	}
	c.filters[name] = entry{f, lock}
	return nil
}

// Remove stops exporting the filter named name (before it is closed, say);
// false if there was none.
func (c *Collector) Remove(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.filters[name]
	delete(c.filters, name)
	return ok
}

// Describe sends the gauges' descriptions (prometheus.Collector).
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descItems, descCapacity, descBits, descMemoryBytes, descLayers,
		descFillRatio, descEstimated, descPredicted, descTarget, descLoad} {
		ch <- d
	}
}

// Collect reads every filter and sends its gauges (prometheus.Collector),
// in name order. A filter closed without Remove sends nothing.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	names := make([]string, 0, len(c.filters))
	for name := range c.filters {
		names = append(names, name)
	}
	entries := make([]entry, len(names))
	sort.Strings(names)
	for i, name := range names {
		entries[i] = c.filters[name]
	}
	c.mu.Unlock()
	for i, e := range entries {
		collectOne(ch, names[i], e)
	}
}

func collectOne(ch chan<- prometheus.Metric, name string, e entry) {
	if e.lock != nil {
		e.lock.Lock()
		defer e.lock.Unlock()
	}
	fill, err := e.f.FillInfo()
	if err != nil {
		return // closed
	}
	info := e.f.Info()
	gauge := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, name)
	}
	gauge(descItems, float64(info.Items))
	gauge(descCapacity, float64(info.Capacity))
	gauge(descBits, float64(info.Bits))
	gauge(descMemoryBytes, float64(info.MemoryBytes))
	gauge(descLayers, float64(info.Layers))
	gauge(descFillRatio, fill.FillRatio)
	gauge(descEstimated, fill.EstimatedItems)
	gauge(descPredicted, fill.FPRNow)
	gauge(descTarget, info.FPR)
	gauge(descLoad, fill.Load)
}
