package app

// What the page can call, grouped as the services Wails binds (each is
// window.go.app.<Service>.<Method> in the page; frontend/src/lib/backend.ts
// is the page's one door to them, routed by the generated list in
// frontend/src/lib/gen/types.ts). Each service is a thin view of the App:
// its methods take only JSON-friendly arguments, bound their own time,
// hand the work to the subsystem that owns it (the device registry, the
// runs, the settings store, the records, the mirror feed) and return an
// error the person can read (toUI). The App itself binds nothing, so its
// lifecycle (startup, shutdown) cannot be called from the page.
//
//	service      file(s)                                   what for
//	DevicesAPI   api_devices.go                            list, connect, the virtual phone
//	RunsAPI      api_runs.go, compact.go, attention.go     start a task and command it; the window in front
//	HistoryAPI   api_history.go, report_open.go            past runs, reports, resume
//	MirrorAPI    api_mirror.go, popout.go                  the live mirror and the person's input on it
//	SettingsAPI  app.go, profiles.go, models.go, welcome.go settings, model profiles, the welcome
//	EvalAPI      api_eval.go                               the Evaluate view: models on the world of chores
//	ChoresAPI    api_chores.go                             saved chores, run now or on a schedule

// DevicesAPI lists and opens devices.
type DevicesAPI struct{ *App }

// RunsAPI starts tasks and carries the person's commands to them.
type RunsAPI struct{ *App }

// HistoryAPI reads past runs, writes their reports and resumes them.
type HistoryAPI struct{ *App }

// MirrorAPI feeds the live mirror and takes the person's input on it.
type MirrorAPI struct{ *App }

// SettingsAPI reads and changes the settings, the model profiles and the
// first-run welcome.
type SettingsAPI struct{ *App }

// EvalAPI runs and reads evaluations of the person's models (eval/).
type EvalAPI struct{ *App }

// ChoresAPI keeps the saved chores and starts them (backend/chore).
type ChoresAPI struct{ *App }

// Services are what the page can call, one value per bound service.
type Services struct {
	Devices  *DevicesAPI
	Runs     *RunsAPI
	History  *HistoryAPI
	Mirror   *MirrorAPI
	Settings *SettingsAPI
	Eval     *EvalAPI
	Chores   *ChoresAPI
}

func newServices(a *App) Services {
	return Services{&DevicesAPI{a}, &RunsAPI{a}, &HistoryAPI{a}, &MirrorAPI{a}, &SettingsAPI{a}, &EvalAPI{a}, &ChoresAPI{a}}
}

// bound is what Wails binds: every service, in a fixed order.
func (s Services) bound() []any {
	return []any{s.Devices, s.Runs, s.History, s.Mirror, s.Settings, s.Eval, s.Chores}
}
