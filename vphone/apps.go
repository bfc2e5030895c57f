package vphone

import "tandem/vphone/screens"

// The apps the phone has, named as its users (tests, tools) name them; the
// apps themselves are in screens/.

// App is one installed app.
type App = screens.App

// FormState is the Form app's fields.
type FormState = screens.FormState

// The built-in apps' packages.
const (
	PkgLauncher = screens.PkgLauncher
	PkgCounter  = screens.PkgCounter
	PkgNotes    = screens.PkgNotes
	PkgList     = screens.PkgList
	PkgDialog   = screens.PkgDialog
	PkgSettings = screens.PkgSettings
	PkgShop     = screens.PkgShop
	PkgLogin    = screens.PkgLogin
	PkgAnim     = screens.PkgAnim
	PkgGame     = screens.PkgGame
	PkgForm     = screens.PkgForm
	PkgChat     = screens.PkgChat
)

// The input methods the phone knows.
const (
	IMELatin = screens.IMELatin
	IMEADB   = screens.IMEADB
)
