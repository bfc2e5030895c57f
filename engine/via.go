package engine

import "context"

type viaKey struct{}

// Via is ctx for a command of the person's given through someone (an MCP
// client asking its human: "the person, asked through <client>"); the
// record names who gave each command.
func Via(ctx context.Context, who string) context.Context {
	return context.WithValue(ctx, viaKey{}, who)
}

// viaOf is who gives the command made with ctx ("" the person at the door).
func viaOf(ctx context.Context) string {
	who, _ := ctx.Value(viaKey{}).(string)
	return who
}

// stoppedBy is who gave the run's first Stop ("" the person at the door).
func (r *Run) stoppedBy() string {
	if v := r.stopVia.Load(); v != nil {
		return *v
	}
	return ""
}
