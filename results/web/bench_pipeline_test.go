package web

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"mascot.dev/mascot/internal/benchdb"
)

// BenchmarkPipelinePages100k measures server-side rendering of the pages of
// the benchmark pipeline run (benchdb: 100,000 evaluation episodes, one
// unit each, 3.8 million judgment rows, candidates, pairs and trace rows),
// and of its comparison with a cached rerun of it. One iteration per page
// is enough for the slow ones: run with -benchtime 1x. The report and
// compare pages are measured cold (both runs' report cache entries
// forgotten first: computed and stored) and then warm (served from the
// cache).
func BenchmarkPipelinePages100k(b *testing.B) {
	st := benchdb.Open(b, 100_000)
	var mid int64
	must(b, st.Reader().QueryRow(`SELECT id FROM episodes WHERE mode = 'eval' ORDER BY id LIMIT 1 OFFSET 50000`).Scan(&mid))
	h, err := NewHandler(st, Options{Patience: time.Hour}) // measure the computation, not the "computing" answer
	must(b, err)
	run := "/runs/" + benchdb.RunID
	compare := "/compare?a=" + benchdb.RunID + "&b=" + benchdb.RunB
	for _, c := range []struct {
		name, path string
		cold       bool
	}{
		{"runs_list", "/", false},
		{"run", run, false},
		{"conversations_first", run + "/episodes", false},
		{"conversation", "/episodes/" + strconv.FormatInt(mid, 10) + "?run=" + benchdb.RunID, false},
		{"candidates", run + "/candidates", false},
		{"report_cold", run + "/report", true},
		{"report", run + "/report", false},
		{"report_with_training_cold", run + "/report?training=1", true},
		{"report_with_training", run + "/report?training=1", false},
		{"compare_cold", compare, true},
		{"compare", compare, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			defer benchdb.ReportCPU(b)()
			req := httptest.NewRequest(http.MethodGet, c.path, nil)
			req.Host = "127.0.0.1" // the viewer's guard serves loopback hosts only
			for b.Loop() {
				if c.cold {
					must(b, st.ForgetResults(req.Context(), benchdb.RunID))
					must(b, st.ForgetResults(req.Context(), benchdb.RunB))
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d\n%s", c.path, rec.Code, rec.Body)
				}
			}
		})
	}
}
