package cli

import (
	"context"
	"fmt"
	"time"

	"tandem/backend"
	"tandem/engine"
)

// supervise answers the run's requests from stdin and stops on Ctrl+C or
// the timeout, until the run ends; the exit code says whether it
// succeeded. On this computer's display the backend turns the person's own
// hand into a take-over (the request is asked here: Enter hands back) and
// the stop hotkey into Stop, as in the window.
func supervise(ctx context.Context, env Env, r *backend.RunHandle, reqs <-chan engine.Request, timeout time.Duration) int {
	lines := readLines(env.Stdin, r.Done())
	var limit <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		limit = t.C
	}
	for {
		select {
		case <-ctx.Done():
			_ = r.Stop(context.WithoutCancel(ctx))
			<-r.Done()
			return ExitFail
		case <-limit:
			fmt.Fprintf(env.Stderr, "run: --timeout %s reached: stopping the run\n", timeout)
			_ = r.StopFor(context.WithoutCancel(ctx), engine.Cause{Code: engine.CauseTimeLimit, N: timeout.String()})
			<-r.Done()
			return ExitFail
		case <-r.Done():
			if res, _ := r.Wait(context.WithoutCancel(ctx)); res.State == engine.Done && res.Success {
				return ExitOK
			}
			return ExitFail
		case req := <-reqs:
			answerRequest(ctx, env, r, req, lines, false)
		}
	}
}
