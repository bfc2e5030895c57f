package eval

// Summary is a suite's score, the last line of `tandem eval --json`.
type Summary struct {
	Tasks   int     `json:"tasks"`
	Success int     `json:"success"`
	Rate    float64 `json:"rate"`
	// FalseDone counts runs that said they succeeded where the phone says
	// no; MissedDone runs the phone says succeeded that did not say so.
	FalseDone  int                  `json:"false_done"`
	MissedDone int                  `json:"missed_done"`
	ByTier     map[Tier]TierSummary `json:"by_tier"`
	Tokens     int                  `json:"tokens"`
	Cost       float64              `json:"cost"`
	Seconds    float64              `json:"seconds"`
}

// TierSummary is one tier's share.
type TierSummary struct {
	Tasks   int     `json:"tasks"`
	Success int     `json:"success"`
	Rate    float64 `json:"rate"`
}

// Summarize scores results; seconds is the suite's wall time. declined
// says which tasks succeed by declining.
func Summarize(results []TaskRun, declined map[string]bool, seconds float64) Summary {
	s := Summary{ByTier: map[Tier]TierSummary{}, Seconds: seconds}
	for _, r := range results {
		s.Tasks++
		t := s.ByTier[r.Tier]
		t.Tasks++
		if r.Success {
			s.Success++
			t.Success++
		}
		if r.ClaimedDone && !r.Success {
			s.FalseDone++
		}
		if r.Success && !r.ClaimedDone && !declined[r.Template] {
			s.MissedDone++
		}
		s.Tokens += r.Tokens
		s.Cost += r.Cost
		t.Rate = rate(t.Success, t.Tasks)
		s.ByTier[r.Tier] = t
	}
	s.Rate = rate(s.Success, s.Tasks)
	return s
}

func rate(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(k) / float64(n)
}

// Declined is the templates whose tasks succeed by declining.
func Declined(tasks []Task) map[string]bool {
	out := map[string]bool{}
	for _, t := range tasks {
		if t.Spec.Decline {
			out[t.Template] = true
		}
	}
	return out
}
