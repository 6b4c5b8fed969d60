package bloomsimdprom

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	bloomsimd "github.com/libbloomsimd/libbloomsimd/bindings/go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// scrape serves reg through promhttp, GETs it as Prometheus would and
// parses the text exposition format.
func scrape(t *testing.T, reg *prometheus.Registry) map[string]*dto.MetricFamily {
	t.Helper()
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.PanicOnError}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p expfmt.TextParser
	families, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the scrape does not parse: %v", err)
	}
	return families
}

// value of family name for filter=label; fails if it is missing.
func value(t *testing.T, families map[string]*dto.MetricFamily, name, label string) float64 {
	t.Helper()
	fam, ok := families[name]
	if !ok || fam.GetType() != dto.MetricType_GAUGE {
		t.Fatalf("no gauge %s in the scrape", name)
	}
	for _, m := range fam.Metric {
		if len(m.Label) == 1 && m.Label[0].GetName() == "filter" && m.Label[0].GetValue() == label {
			return m.GetGauge().GetValue()
		}
	}
	t.Fatalf("%s has no filter=%q", name, label)
	return 0
}

func keys(from, n uint64) []uint64 {
	k := make([]uint64, n)
	for i := range k {
		k[i] = (from + uint64(i)) * 0x9E3779B97F4A7C15
	}
	return k
}

func TestScrapeReportsTheLibrarysFields(t *testing.T) {
	plain, err := bloomsimd.New(10000, 0.01, bloomsimd.Concurrent())
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := plain.InsertNewUint64s(keys(0, 8100), nil); err != nil {
		t.Fatal(err)
	}
	grown, err := bloomsimd.New(1000, 0.001, bloomsimd.WithGrowth(2))
	if err != nil {
		t.Fatal(err)
	}
	defer grown.Close()
	if _, err := grown.InsertNewUint64s(keys(1<<32, 5000), nil); err != nil {
		t.Fatal(err)
	}

	c := NewCollector()
	var mu sync.RWMutex
	if err := c.Add("seen", plain); err != nil {
		t.Fatal(err)
	}
	if err := c.AddLocked("grown", grown, mu.RLocker()); err != nil {
		t.Fatal(err)
	}
	if c.Add("seen", grown) == nil || c.Add("", grown) == nil || c.Add("x", nil) == nil ||
		c.AddLocked("y", grown, nil) == nil {
		t.Fatal("a taken name, an empty name, a nil filter and a nil lock are errors")
	}
	reg := prometheus.NewPedanticRegistry() // checks the descriptions against what is collected
	reg.MustRegister(c)
	families := scrape(t, reg)

	for name, f := range map[string]*bloomsimd.Filter{"seen": plain, "grown": grown} {
		info := f.Info()
		fill, err := f.FillInfo()
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]float64{
			"bloomsimd_items":           float64(info.Items),
			"bloomsimd_capacity":        float64(info.Capacity),
			"bloomsimd_bits":            float64(info.Bits),
			"bloomsimd_memory_bytes":    float64(info.MemoryBytes),
			"bloomsimd_layers":          float64(info.Layers),
			"bloomsimd_fill_ratio":      fill.FillRatio,
			"bloomsimd_estimated_items": fill.EstimatedItems,
			"bloomsimd_predicted_fpr":   fill.FPRNow,
			"bloomsimd_target_fpr":      info.FPR,
			"bloomsimd_load_ratio":      fill.Load,
		}
		for metric, v := range want {
			if got := value(t, families, metric, name); got != v {
				t.Errorf("%s{filter=%q} = %v, the library says %v", metric, name, got, v)
			}
		}
	}
	if l := value(t, families, "bloomsimd_load_ratio", "seen"); l < 0.8 || l > 0.81 {
		t.Errorf("8100 keys (a few false positives not counted) of 10000: load %v", l)
	}
	if l := value(t, families, "bloomsimd_layers", "grown"); l < 3 {
		t.Errorf("5000 keys from a first layer of 1000 at growth 2: %v layers", l)
	}

	// the lock is held while the filter is read: a writer holding it stalls the scrape
	mu.Lock()
	done := make(chan struct{})
	go func() { scrape(t, reg); close(done) }()
	select {
	case <-done:
		t.Fatal("the scrape read a filter whose lock a writer held")
	default:
	}
	mu.Unlock()
	<-done

	// removed and closed filters leave the scrape
	if !c.Remove("grown") || c.Remove("grown") {
		t.Fatal("Remove reports whether the name was exported")
	}
	plain.Close()
	if families = scrape(t, reg); len(families) != 0 {
		t.Fatalf("nothing left to export, yet the scrape has %d families", len(families))
	}
}
