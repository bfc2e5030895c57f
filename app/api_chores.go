package app

import (
	"time"

	"tandem/backend"
)

// The window's Chores view: the saved chores (backend/chore), run now on
// the devices the person picks, and the schedules the window's Tandem runs
// (backend.Backend.Schedule, started with the window).

// Chores lists the saved chores by name.
func (a *ChoresAPI) Chores() (_ []backend.Chore, err error) {
	defer toUI(&err)
	return a.b.Chores()
}

// SaveChore adds a chore (no id) or changes one, and returns it saved.
func (a *ChoresAPI) SaveChore(c backend.Chore) (_ backend.Chore, err error) {
	defer toUI(&err)
	return a.b.SaveChore(c)
}

// DeleteChore removes a chore; its runs stay in History.
func (a *ChoresAPI) DeleteChore(id string) (err error) {
	defer toUI(&err)
	return a.b.DeleteChore(id)
}

// DraftChore makes a chore of a finished run for the person to name and
// save: its goal, a parameter for each text it typed, and the words of
// what it tapped that the goal names, offered as more parameters.
func (a *ChoresAPI) DraftChore(runID string) (_ backend.ChoreDraft, err error) {
	defer toUI(&err)
	return a.b.DraftChore(runID)
}

// StartChore starts a chore with these values on each device at once,
// each its own run; a device that cannot start says why beside the others.
func (a *ChoresAPI) StartChore(id string, values map[string]string, devices []string) (_ []backend.ChoreStart, err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(40 * time.Second)
	defer cancel()
	return a.b.StartChore(ctx, id, values, devices, backend.RunChoice{})
}

// ChoresNews is the schedules' missed slots and recent starts.
func (a *ChoresAPI) ChoresNews() (_ backend.ChoresNews, err error) {
	defer toUI(&err)
	return a.b.ChoresNews(), nil
}

// AnswerMissed runs a missed slot's chore now (run) or skips it.
func (a *ChoresAPI) AnswerMissed(id string, run bool) (_ []backend.ChoreStart, err error) {
	defer toUI(&err)
	ctx, cancel := a.callCtx(40 * time.Second)
	defer cancel()
	return a.b.AnswerMissed(ctx, id, run)
}
