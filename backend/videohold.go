package backend

import (
	"context"
	"image"

	"tandem/engine/model"
)

// heldPlanner is a run's planner whose decisions wait until its video
// rolls (beginVideo): the model is asked at once, and its answer is
// handed on once the video has its first picture (or the wait for it is
// over), so the run's first action is in the video without the run's
// start waiting for the stream to open. Later decisions find the video
// rolling and pass at once. The wait ends with the call's context: a
// Stop, a pause or a take-over is never held by it. The plan's latency
// stays the model's own (the planner measures it).
type heldPlanner struct {
	next    model.Planner
	rolling <-chan struct{}
}

// holdUntil wraps p so that its decisions wait for rolling; a nil planner
// stays nil.
func holdUntil(p model.Planner, rolling <-chan struct{}) model.Planner {
	if p == nil {
		return nil
	}
	return &heldPlanner{next: p, rolling: rolling}
}

func (h *heldPlanner) Plan(ctx context.Context, in model.Input, onThought func(string)) (model.Plan, error) {
	p, err := h.next.Plan(ctx, in, onThought)
	if err != nil {
		return p, err
	}
	select {
	case <-h.rolling:
		return p, nil
	case <-ctx.Done():
		return model.Plan{}, ctx.Err()
	}
}

// Prepare passes frames on to a planner that prepares them.
func (h *heldPlanner) Prepare(img image.Image) {
	if p, ok := h.next.(model.Preparer); ok {
		p.Prepare(img)
	}
}

// ReadsCurrentApp says what the planner behind says; one that does not
// say is given the app in front, as the engine gives it.
func (h *heldPlanner) ReadsCurrentApp() bool {
	a, ok := h.next.(model.AppReader)
	return !ok || a.ReadsCurrentApp()
}
