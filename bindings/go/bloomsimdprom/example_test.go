package bloomsimdprom_test

import (
	"fmt"
	"net/http/httptest"
	"strings"

	bloomsimd "github.com/libbloomsimd/libbloomsimd/bindings/go"
	"github.com/libbloomsimd/libbloomsimd/bindings/go/bloomsimdprom"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// A service exports its filter next to its own metrics; Prometheus scrapes
// /metrics. The filter is Concurrent, since requests insert while the
// scrape reads.
func ExampleCollector() {
	seen, _ := bloomsimd.New(1000, 0.01, bloomsimd.Concurrent())
	defer seen.Close()
	for i := uint64(0); i < 850; i++ {
		seen.InsertNewUint64(i * 0x9E3779B97F4A7C15)
	}

	c := bloomsimdprom.NewCollector()
	c.Add("seen", seen)
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)

	// what promhttp.HandlerFor(reg, ...) serves on /metrics
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if strings.HasPrefix(line, "bloomsimd_capacity") || strings.HasPrefix(line, "bloomsimd_layers") {
			fmt.Println(line)
		}
	}
	// Output:
	// bloomsimd_capacity{filter="seen"} 1000
	// bloomsimd_layers{filter="seen"} 1
}
