package engine

import "testing"

// BenchmarkAccepts: what a door's question "does this state take that
// command" costs (handsFor asks it for every input of the person).
func BenchmarkAccepts(b *testing.B) {
	n := 0
	for i := 0; i < b.N; i++ {
		for _, s := range States {
			if s.Accepts(OnTakeOver) {
				n++
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(States)), "ns/accepts")
	_ = n
}
